-- +goose Up
-- Who redid a snapshot row, by transaction id: the feed service's in-memory copy of the
-- snapshot catches up on the rows listed from the oldest transaction that was still running
-- when it last looked (pg_snapshot_xmin), so a change committed late is never skipped and
-- none is listed again and again.
ALTER TABLE snapshot_dirty ADD COLUMN xid bigint NOT NULL DEFAULT (pg_current_xact_id()::text::bigint);
CREATE INDEX snapshot_dirty_xid_idx ON snapshot_dirty (xid);

-- +goose Down
DROP INDEX snapshot_dirty_xid_idx;
ALTER TABLE snapshot_dirty DROP COLUMN xid;
