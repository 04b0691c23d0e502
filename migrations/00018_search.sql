-- +goose Up
-- Search (seed 002's search river): PostgreSQL full-text search over posts (title, text, the
-- URL: as PostgreSQL's parser reads one, host and path, and as its words, so "holography"
-- finds .../holography-notes) and comments, a tsvector kept with each row (recomputed only
-- when its text changes: counting a like leaves it, and the update HOT) under a GIN index.
ALTER TABLE posts ADD COLUMN search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', title), 'A') ||
    setweight(to_tsvector('english', body), 'B') ||
    setweight(to_tsvector('english', url || ' ' || regexp_replace(url, '[^[:alnum:]]+', ' ', 'g')), 'D')) STORED;
CREATE INDEX posts_search_idx ON posts USING gin (search);

ALTER TABLE comments ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED;
CREATE INDEX comments_search_idx ON comments USING gin (search);

ANALYZE posts;
ANALYZE comments;

-- +goose Down
DROP INDEX comments_search_idx;
ALTER TABLE comments DROP COLUMN search;
DROP INDEX posts_search_idx;
ALTER TABLE posts DROP COLUMN search;
