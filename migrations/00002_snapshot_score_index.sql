-- +goose Up
-- The logged-in snapshot path reads the best rows first and stops early (feed.Service):
-- an index in score order serves the heavy followed sets, the GIN index the light ones.
CREATE INDEX feed_snapshot_score_idx ON feed_snapshot (score DESC, date DESC, anchor_id);

-- +goose Down
DROP INDEX feed_snapshot_score_idx;
