-- +goose Up
-- Late commits beyond posts (issue 44.17): a comment's bump and a filter feed's entry (a
-- like, a comment, a tag, a mention) are dated before their transaction commits, like a post,
-- so each keeps the transaction that last wrote it (as posts do, 00054) for ChronoLate,
-- FilterLate and ActivityLate. Added without a default and the default set after: existing
-- rows stay NULL (committed long ago) and the tables are not rewritten.
ALTER TABLE post_bumps ADD COLUMN xid xid8;
ALTER TABLE post_bumps ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
CREATE INDEX post_bumps_xid_idx ON post_bumps (xid) WHERE xid IS NOT NULL;
ALTER TABLE filter_posts ADD COLUMN xid xid8;
ALTER TABLE filter_posts ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
CREATE INDEX filter_posts_xid_idx ON filter_posts (xid) WHERE xid IS NOT NULL;

-- An entry dated again (a like again, a new comment by the same person) arrives again: it
-- takes the transaction that moved it.
-- +goose StatementBegin
CREATE FUNCTION filter_posts_redated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.xid := pg_current_xact_id();
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER filter_posts_redated BEFORE UPDATE OF at ON filter_posts
    FOR EACH ROW WHEN (NEW.at IS DISTINCT FROM OLD.at) EXECUTE FUNCTION filter_posts_redated();

-- +goose Down
DROP TRIGGER filter_posts_redated ON filter_posts;
DROP FUNCTION filter_posts_redated;
DROP INDEX filter_posts_xid_idx;
ALTER TABLE filter_posts DROP COLUMN xid;
DROP INDEX post_bumps_xid_idx;
ALTER TABLE post_bumps DROP COLUMN xid;
