-- +goose Up
-- Storage of the snapshot for its readers (each refresh builds it so, see db/snapshot.go):
-- the GIN index takes each change at once instead of in a pending list that every search
-- reads through, and the table, whose rows each share rewrites, is vacuumed early. Rows are
-- laid out in score order by the next refresh.
ALTER INDEX feed_snapshot_sharers_idx SET (fastupdate = off);
SELECT gin_clean_pending_list('feed_snapshot_sharers_idx');
ALTER TABLE feed_snapshot SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.05);

-- +goose Down
ALTER TABLE feed_snapshot RESET (autovacuum_vacuum_scale_factor, autovacuum_analyze_scale_factor);
ALTER INDEX feed_snapshot_sharers_idx RESET (fastupdate);
