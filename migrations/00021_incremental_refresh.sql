-- +goose Up
-- The hourly refresh is incremental (db.Store.Refresh): it redoes the rows whose recency
-- bucket turned since the last refresh, those of users whose VIP or notability changed, and
-- those that left the window. A full rebuild is made when the last one is a day old, or was
-- made with other weights: rebuilt_at and weights say when and with which.
ALTER TABLE snapshot_meta ADD COLUMN rebuilt_at timestamptz, ADD COLUMN weights text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE snapshot_meta DROP COLUMN rebuilt_at, DROP COLUMN weights;
