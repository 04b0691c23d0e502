-- +goose Up
-- A search's candidates (feed/searchcache.go) are its newest results as of a time, shared by
-- the readers of one search on an instance and checked again for each. What could make an
-- older post a result after that time is looked for in each request: comments made or
-- edited since (these indexes), and posts made with a time in the past (an import): those
-- record a 'past_posts' change that every instance hears of, and drops its candidates.
CREATE INDEX comments_created_idx ON comments (created_at);
CREATE INDEX comments_edited_idx ON comments (edited_at) WHERE edited_at IS NOT NULL;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION record_new_posts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    subjects bigint[] := ARRAY(SELECT n.id FROM new_rows n);
BEGIN
    INSERT INTO site_changes (kind, ids)
    VALUES ('new_posts', CASE WHEN cardinality(subjects) > 1000 THEN '{}' ELSE subjects END);
    -- Posted more than a search's settling time (feed.searchSettle) before this
    -- transaction began: no longer new to what was read since.
    IF EXISTS (SELECT 1 FROM new_rows n WHERE n.created_at < now() - interval '5 seconds') THEN
        INSERT INTO site_changes (kind, ids) VALUES ('past_posts', '{}');
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION record_new_posts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    subjects bigint[] := ARRAY(SELECT n.id FROM new_rows n);
BEGIN
    INSERT INTO site_changes (kind, ids)
    VALUES ('new_posts', CASE WHEN cardinality(subjects) > 1000 THEN '{}' ELSE subjects END);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
DROP INDEX comments_edited_idx;
DROP INDEX comments_created_idx;
