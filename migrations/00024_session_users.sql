-- +goose Up
-- A session row names its user (written with the session's data, from its user_id value),
-- so that a request reads its session, its user and what the access rules need of them in
-- one round trip (SessionWithAccess). NULL: an anonymous session, or one written before.
ALTER TABLE sessions ADD COLUMN user_id bigint;

-- What the access rules need of a viewer: the users in a ban with them, either way, the
-- private feeds they read, and what they hid and muted (tributary.Viewer). Read by id.
CREATE VIEW viewer_access AS
SELECT u.id AS viewer_id,
       ARRAY(SELECT b.banned_id FROM bans b WHERE b.user_id = u.id
             UNION SELECT b.user_id FROM bans b WHERE b.banned_id = u.id ORDER BY 1)::bigint[] AS blocked,
       ARRAY(SELECT r.feed_id FROM feed_readers r WHERE r.user_id = u.id ORDER BY 1)::bigint[] AS private_feeds,
       ARRAY(SELECT h.anchor_id FROM hidden_items h WHERE h.user_id = u.id ORDER BY 1)::bigint[] AS hidden,
       ARRAY(SELECT m.word FROM mutes m WHERE m.user_id = u.id ORDER BY m.word)::text[] AS muted,
       ARRAY(SELECT m.collapse FROM mutes m WHERE m.user_id = u.id ORDER BY m.word)::boolean[] AS muted_collapse
  FROM users u;

-- +goose Down
DROP VIEW viewer_access;
ALTER TABLE sessions DROP COLUMN user_id;
