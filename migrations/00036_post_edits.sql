-- +goose Up
-- An author edits a post's title, text and tags (its link stays); cards say "edited".
ALTER TABLE posts ADD COLUMN edited_at timestamptz;

-- The views every post list reads through carry it (their other columns unchanged).
CREATE OR REPLACE VIEW post_cards AS
SELECT p.id, p.author_id, p.anchor_id, p.url, p.title, p.body, p.canonical_url, p.anchor_url, p.kind,
       p.host, p.link_hosts, p.linked_urls, p.image_count, p.url_count, p.sci_score, p.tags, p.is_public,
       p.protected_owner_ids, p.private_feed_ids, p.created_at, p.deleted_at, p.anchor_kind,
       p.like_count, p.comment_count, p.bumped_at,
       u.handle AS author_handle, u.display_name AS author_name, u.vip AS author_vip,
       p.edited_at
  FROM posts p
  JOIN users u ON u.id = p.author_id;

-- +goose Down
DROP VIEW post_cards;
CREATE VIEW post_cards AS
SELECT p.id, p.author_id, p.anchor_id, p.url, p.title, p.body, p.canonical_url, p.anchor_url, p.kind,
       p.host, p.link_hosts, p.linked_urls, p.image_count, p.url_count, p.sci_score, p.tags, p.is_public,
       p.protected_owner_ids, p.private_feed_ids, p.created_at, p.deleted_at, p.anchor_kind,
       p.like_count, p.comment_count, p.bumped_at,
       u.handle AS author_handle, u.display_name AS author_name, u.vip AS author_vip
  FROM posts p
  JOIN users u ON u.id = p.author_id;
ALTER TABLE posts DROP COLUMN edited_at;
