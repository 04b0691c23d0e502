-- +goose Up
-- Where a post went, as home feeds and the author's page read it (docs: a post's destinations
-- decide where it appears): in its author's own feed, or a direct (whose recipients follow
-- its author). A post only in groups is neither: it is not on its author's page and does not
-- reach the author's followers' homes as the author's share.
ALTER TABLE posts ADD COLUMN in_own_feed boolean NOT NULL DEFAULT true,
                  ADD COLUMN is_direct   boolean NOT NULL DEFAULT false;
UPDATE posts p
   SET in_own_feed = EXISTS (SELECT 1 FROM feed_posts fp JOIN feeds f ON f.id = fp.feed_id
                              WHERE fp.post_id = p.id AND f.kind = 'posts' AND f.owner_id = p.author_id),
       is_direct = EXISTS (SELECT 1 FROM feed_posts fp JOIN feeds f ON f.id = fp.feed_id
                            WHERE fp.post_id = p.id AND f.kind = 'directs')
 WHERE EXISTS (SELECT 1 FROM feed_posts fp JOIN feeds f ON f.id = fp.feed_id
                WHERE fp.post_id = p.id AND f.kind IN ('group', 'directs'));

-- A rollup counts a sharer as a followee's share only for posts that reach followers.
CREATE OR REPLACE VIEW post_facts AS
SELECT p.id, p.anchor_id, a.url AS anchor_url, a.kind AS anchor_kind, p.url, p.canonical_url, p.title, p.body,
       p.host, p.linked_urls, p.image_count, p.url_count, p.sci_score, p.tags, p.created_at,
       u.id AS author_id, u.handle, u.display_name, u.vip, u.notability,
       p.is_public, p.protected_owner_ids, p.private_feed_ids, p.deleted_at,
       (p.in_own_feed OR p.is_direct) AS to_followers
  FROM posts p
  JOIN users u ON u.id = p.author_id
  JOIN anchors a ON a.id = p.anchor_id;

-- +goose Down
DROP VIEW post_facts;
CREATE VIEW post_facts AS
SELECT p.id, p.anchor_id, a.url AS anchor_url, a.kind AS anchor_kind, p.url, p.canonical_url, p.title, p.body,
       p.host, p.linked_urls, p.image_count, p.url_count, p.sci_score, p.tags, p.created_at,
       u.id AS author_id, u.handle, u.display_name, u.vip, u.notability,
       p.is_public, p.protected_owner_ids, p.private_feed_ids, p.deleted_at
  FROM posts p
  JOIN users u ON u.id = p.author_id
  JOIN anchors a ON a.id = p.anchor_id;
ALTER TABLE posts DROP COLUMN is_direct, DROP COLUMN in_own_feed;
