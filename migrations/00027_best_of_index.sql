-- +goose Up
-- Best of (ChooseBestOf, after every refresh) reads the items with a public share in the
-- last week: at 4M posts about 80,000 of the snapshot's 1.1M rows, which the snapshot's
-- score order keeps on about a tenth of its pages. This index finds them there instead of
-- a scan of the whole table (1.2 s of the hourly refresh at 4M). RefreshSnapshot builds it
-- on every new snapshot.
CREATE INDEX feed_snapshot_public_date_idx ON feed_snapshot (public_date) WHERE any_public;

-- +goose Down
DROP INDEX feed_snapshot_public_date_idx;
