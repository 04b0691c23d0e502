-- +goose Up
-- Activity in the home feed (seed 003: a friend feed subscribes to friends' posts, comments
-- and likes): whether a reader's home feed brings in the posts people they follow liked or
-- commented on ("with their likes and comments", the default) or only what they shared.
ALTER TABLE users ADD COLUMN home_activity boolean NOT NULL DEFAULT true;

-- The site's likes and comments in time order (their places in the likes and comments
-- feeds): what the home feed's activity arrivals read for an interval.
CREATE INDEX filter_posts_activity_idx ON filter_posts (at DESC) WHERE feed LIKE 'l:%' OR feed LIKE 'c:%';

-- +goose Down
DROP INDEX filter_posts_activity_idx;
ALTER TABLE users DROP COLUMN home_activity;
