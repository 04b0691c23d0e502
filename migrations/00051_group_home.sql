-- +goose Up
-- A home feed aggregates the groups its reader is a member of (seed 003): the groups a post
-- is in are kept on the post (as its access is) and on its item's snapshot row, and the
-- viewer's read carries the groups they are an active member of.
ALTER TABLE posts ADD COLUMN group_feed_ids bigint[] NOT NULL DEFAULT '{}';
UPDATE posts p SET group_feed_ids = g.ids
  FROM (SELECT fp.post_id, array_agg(fp.feed_id ORDER BY fp.feed_id) AS ids
          FROM feed_posts fp JOIN feeds f ON f.id = fp.feed_id AND f.kind = 'group'
         GROUP BY fp.post_id) g
 WHERE g.post_id = p.id;

-- A home read finds the recent posts of the reader's groups by this index.
CREATE INDEX posts_group_feeds_idx ON posts USING gin (group_feed_ids);

-- Keeps posts.group_feed_ids as feed_posts changes, whoever writes it.
-- +goose StatementBegin
CREATE FUNCTION post_group_feeds_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    post bigint := CASE WHEN TG_OP = 'DELETE' THEN OLD.post_id ELSE NEW.post_id END;
    ids bigint[] := ARRAY(SELECT fp.feed_id FROM feed_posts fp JOIN feeds f ON f.id = fp.feed_id AND f.kind = 'group'
                           WHERE fp.post_id = post ORDER BY 1);
BEGIN
    UPDATE posts SET group_feed_ids = ids WHERE id = post AND group_feed_ids IS DISTINCT FROM ids;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER feed_posts_group_feeds AFTER INSERT OR DELETE ON feed_posts
    FOR EACH ROW EXECUTE FUNCTION post_group_feeds_sync();

DROP VIEW post_facts;
CREATE VIEW post_facts AS
SELECT p.id, p.anchor_id, a.url AS anchor_url, a.kind AS anchor_kind, p.url, p.canonical_url, p.title, p.body,
       p.host, p.linked_urls, p.image_count, p.url_count, p.sci_score, p.tags, p.created_at,
       u.id AS author_id, u.handle, u.display_name, u.vip, u.notability,
       p.is_public, p.protected_owner_ids, p.private_feed_ids, p.deleted_at,
       (p.in_own_feed OR p.is_direct) AS to_followers,
       u.avatar, p.group_feed_ids
  FROM posts p
  JOIN users u ON u.id = p.author_id
  JOIN anchors a ON a.id = p.anchor_id;

-- The groups of an item's readable posts; GIN-indexed for the member-groups overlap.
ALTER TABLE feed_snapshot ADD COLUMN group_ids bigint[] NOT NULL DEFAULT '{}';
CREATE INDEX feed_snapshot_groups_idx ON feed_snapshot USING gin (group_ids);

CREATE OR REPLACE VIEW viewer_access AS
SELECT u.id AS viewer_id,
       ARRAY(SELECT b.banned_id FROM bans b WHERE b.user_id = u.id
             UNION SELECT b.user_id FROM bans b WHERE b.banned_id = u.id ORDER BY 1)::bigint[] AS blocked,
       ARRAY(SELECT r.feed_id FROM feed_readers r WHERE r.user_id = u.id ORDER BY 1)::bigint[] AS private_feeds,
       ARRAY(SELECT h.anchor_id FROM hidden_items h WHERE h.user_id = u.id ORDER BY 1)::bigint[] AS hidden,
       ARRAY(SELECT m.word FROM mutes m WHERE m.user_id = u.id ORDER BY m.word)::text[] AS muted,
       ARRAY(SELECT m.collapse FROM mutes m WHERE m.user_id = u.id ORDER BY m.word)::boolean[] AS muted_collapse,
       ARRAY(SELECT g.feed_id FROM group_members g WHERE g.user_id = u.id AND g.state = 'active' ORDER BY 1)::bigint[] AS groups,
       ARRAY(SELECT f.name FROM group_members g JOIN feeds f ON f.id = g.feed_id
              WHERE g.user_id = u.id AND g.state = 'active' ORDER BY g.feed_id)::text[] AS group_names
  FROM users u;

-- +goose Down
DROP VIEW viewer_access;
CREATE VIEW viewer_access AS
SELECT u.id AS viewer_id,
       ARRAY(SELECT b.banned_id FROM bans b WHERE b.user_id = u.id
             UNION SELECT b.user_id FROM bans b WHERE b.banned_id = u.id ORDER BY 1)::bigint[] AS blocked,
       ARRAY(SELECT r.feed_id FROM feed_readers r WHERE r.user_id = u.id ORDER BY 1)::bigint[] AS private_feeds,
       ARRAY(SELECT h.anchor_id FROM hidden_items h WHERE h.user_id = u.id ORDER BY 1)::bigint[] AS hidden,
       ARRAY(SELECT m.word FROM mutes m WHERE m.user_id = u.id ORDER BY m.word)::text[] AS muted,
       ARRAY(SELECT m.collapse FROM mutes m WHERE m.user_id = u.id ORDER BY m.word)::boolean[] AS muted_collapse
  FROM users u;
DROP INDEX feed_snapshot_groups_idx;
ALTER TABLE feed_snapshot DROP COLUMN group_ids;
DROP VIEW post_facts;
CREATE VIEW post_facts AS
SELECT p.id, p.anchor_id, a.url AS anchor_url, a.kind AS anchor_kind, p.url, p.canonical_url, p.title, p.body,
       p.host, p.linked_urls, p.image_count, p.url_count, p.sci_score, p.tags, p.created_at,
       u.id AS author_id, u.handle, u.display_name, u.vip, u.notability,
       p.is_public, p.protected_owner_ids, p.private_feed_ids, p.deleted_at,
       (p.in_own_feed OR p.is_direct) AS to_followers,
       u.avatar
  FROM posts p
  JOIN users u ON u.id = p.author_id
  JOIN anchors a ON a.id = p.anchor_id;
DROP INDEX posts_group_feeds_idx;
DROP TRIGGER feed_posts_group_feeds ON feed_posts;
DROP FUNCTION post_group_feeds_sync();
ALTER TABLE posts DROP COLUMN group_feed_ids;
