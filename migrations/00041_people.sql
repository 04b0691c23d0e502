-- +goose Up
-- A way in for newcomers (/people): the tags a user picked on the first-run page, whose
-- active sharers are suggested to them, and trigram indexes for finding people by handle or
-- display name with ILIKE.
CREATE TABLE user_tags (
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    tag     text   NOT NULL,
    PRIMARY KEY (user_id, tag)
);

CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX users_handle_trgm_idx ON users USING gin (lower(handle) gin_trgm_ops);
CREATE INDEX users_display_name_trgm_idx ON users USING gin (lower(display_name) gin_trgm_ops);

-- +goose Down
DROP INDEX users_display_name_trgm_idx;
DROP INDEX users_handle_trgm_idx;
DROP TABLE user_tags;
