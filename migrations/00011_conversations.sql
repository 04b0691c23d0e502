-- +goose Up
-- Conversations (seed 003): likes and comments attach to a post, so they follow its access.

CREATE TABLE likes (
    post_id    bigint      NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (post_id, user_id)
);
-- A post's likers newest first (the few a card names); a user's likes (the liked-by feed).
CREATE INDEX likes_post_recent_idx ON likes (post_id, created_at DESC);
CREATE INDEX likes_user_idx ON likes (user_id, created_at DESC, post_id);

CREATE TABLE comments (
    id         bigserial   PRIMARY KEY,
    post_id    bigint      NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    author_id  bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    body       text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    edited_at  timestamptz
);
-- A post's thread in order, and how many comments it got in the last day (bumping).
CREATE INDEX comments_post_idx ON comments (post_id, created_at, id);
CREATE INDEX comments_author_idx ON comments (author_id, created_at DESC, post_id);

-- What every card shows, kept with the post: its likes and comments, by anyone (a viewer's
-- count leaves out those in a ban with them, read per page), and its place in chronological
-- feeds. bumped_at is when the post last arrived: its creation, or the comment that bumped it.
ALTER TABLE posts ADD COLUMN like_count    integer NOT NULL DEFAULT 0,
                  ADD COLUMN comment_count integer NOT NULL DEFAULT 0,
                  ADD COLUMN bumped_at     timestamptz;
UPDATE posts SET bumped_at = created_at;
ALTER TABLE posts ALTER COLUMN bumped_at SET NOT NULL;
CREATE INDEX posts_author_bumped_idx ON posts (author_id, bumped_at DESC, id DESC);

-- Every arrival of a bumped post: its creation and each bump, with the ord the one global
-- sequence gave it. A fencepost lists an interval (from, to] by each post's last arrival up to
-- `to`, so a bump after the fencepost neither moves the post out of the pages being scrolled
-- nor shows it twice in one fencepost. Posts never bumped have no rows here: their one
-- arrival is their creation.
CREATE TABLE post_bumps (
    post_id bigint      NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    at      timestamptz NOT NULL,
    ord     bigint      NOT NULL,
    PRIMARY KEY (post_id, at, ord)
);

-- The views every post list reads through carry the new columns.
DROP VIEW post_cards;
CREATE VIEW post_cards AS
SELECT p.*, u.handle AS author_handle, u.display_name AS author_name, u.vip AS author_vip
  FROM posts p
  JOIN users u ON u.id = p.author_id;

-- +goose Down
DROP VIEW post_cards;
CREATE VIEW post_cards AS
SELECT p.id, p.author_id, p.anchor_id, p.url, p.title, p.body, p.canonical_url, p.anchor_url, p.kind,
       p.host, p.link_hosts, p.linked_urls, p.image_count, p.url_count, p.sci_score, p.tags, p.is_public,
       p.protected_owner_ids, p.private_feed_ids, p.created_at, p.deleted_at, p.anchor_kind,
       u.handle AS author_handle, u.display_name AS author_name, u.vip AS author_vip
  FROM posts p
  JOIN users u ON u.id = p.author_id;
DROP TABLE post_bumps;
DROP INDEX posts_author_bumped_idx;
ALTER TABLE posts DROP COLUMN bumped_at, DROP COLUMN comment_count, DROP COLUMN like_count;
DROP TABLE comments;
DROP TABLE likes;
