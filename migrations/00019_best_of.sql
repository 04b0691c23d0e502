-- +goose Up
-- Best of the week, chosen with each snapshot refresh (queries/best.sql): the items most
-- shared and discussed in the week before it, best first. Read whole by /best: choosing them
-- per request read every row of the week (60-250 ms at 400k posts).
ALTER TABLE snapshot_meta ADD COLUMN best_ids bigint[] NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE snapshot_meta DROP COLUMN best_ids;
