-- +goose Up
-- Activity in the home feed (seed 003: a friend feed subscribes to friends' posts, comments
-- and likes): whether a reader's home feed brings in the posts people they follow liked or
-- commented on ("with their likes and comments", the default) or only what they shared.
ALTER TABLE users ADD COLUMN home_activity boolean NOT NULL DEFAULT true;

-- +goose Down
ALTER TABLE users DROP COLUMN home_activity;
