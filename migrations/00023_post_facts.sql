-- +goose Up
-- A post with what a rollup needs of it (tributary.RollupOf): its item, author and access.
-- The refresh reads it by item (a few thousand at a time) or whole (a full rebuild), as one
-- row shape.
CREATE VIEW post_facts AS
SELECT p.id, p.anchor_id, a.url AS anchor_url, a.kind AS anchor_kind, p.url, p.canonical_url, p.title, p.body,
       p.host, p.linked_urls, p.image_count, p.url_count, p.sci_score, p.tags, p.created_at,
       u.id AS author_id, u.handle, u.display_name, u.vip, u.notability,
       p.is_public, p.protected_owner_ids, p.private_feed_ids, p.deleted_at
  FROM posts p
  JOIN users u ON u.id = p.author_id
  JOIN anchors a ON a.id = p.anchor_id;

-- +goose Down
DROP VIEW post_facts;
