-- +goose Up
-- Late commits (issue 44.17): a post's arrival is its instance's clock before its
-- transaction, so one that commits after a reader's fencepost can be dated before it. Each
-- post keeps the transaction that wrote it and each fencepost the snapshot it was read in,
-- so a later fencepost can find what the earlier one could not see (LateCommitted).
-- Added without a default and the default set after: existing rows stay NULL (committed long
-- ago) and the table is not rewritten.
ALTER TABLE posts ADD COLUMN xid xid8;
ALTER TABLE posts ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
CREATE INDEX posts_xid_idx ON posts (xid) WHERE xid IS NOT NULL;
ALTER TABLE fenceposts ADD COLUMN snap text;

-- +goose Down
ALTER TABLE fenceposts DROP COLUMN snap;
DROP INDEX posts_xid_idx;
ALTER TABLE posts DROP COLUMN xid;
