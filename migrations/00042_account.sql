-- +goose Up
-- A user's profile: a bio (rendered as a post's text is) and an avatar, the hashes of its
-- two squares in images (64 and 256 pixels; NULL: none, initials are shown).
ALTER TABLE users ADD COLUMN bio          text NOT NULL DEFAULT '',
                  ADD COLUMN avatar       text CHECK (avatar ~ '^[0-9a-f]{64}$'),
                  ADD COLUMN avatar_large text CHECK (avatar_large ~ '^[0-9a-f]{64}$');

-- A new avatar is a 'users' change as a new display name is: every instance drops what it
-- kept of the user, and a refresh redoes the snapshot rows that name them.
DROP TRIGGER users_site_change ON users;
CREATE TRIGGER users_site_change AFTER UPDATE OF vip, is_private, notability, handle, display_name, avatar ON users
    FOR EACH ROW WHEN (OLD.vip IS DISTINCT FROM NEW.vip OR OLD.is_private IS DISTINCT FROM NEW.is_private
                       OR OLD.notability IS DISTINCT FROM NEW.notability OR OLD.handle IS DISTINCT FROM NEW.handle
                       OR OLD.display_name IS DISTINCT FROM NEW.display_name OR OLD.avatar IS DISTINCT FROM NEW.avatar)
    EXECUTE FUNCTION record_user_change();

-- The views cards read their authors through carry the author's avatar (their other columns
-- unchanged), so a card's avatar comes with the row it already reads.
CREATE OR REPLACE VIEW post_facts AS
SELECT p.id, p.anchor_id, a.url AS anchor_url, a.kind AS anchor_kind, p.url, p.canonical_url, p.title, p.body,
       p.host, p.linked_urls, p.image_count, p.url_count, p.sci_score, p.tags, p.created_at,
       u.id AS author_id, u.handle, u.display_name, u.vip, u.notability,
       p.is_public, p.protected_owner_ids, p.private_feed_ids, p.deleted_at,
       (p.in_own_feed OR p.is_direct) AS to_followers,
       u.avatar
  FROM posts p
  JOIN users u ON u.id = p.author_id
  JOIN anchors a ON a.id = p.anchor_id;

CREATE OR REPLACE VIEW post_cards AS
SELECT p.id, p.author_id, p.anchor_id, p.url, p.title, p.body, p.canonical_url, p.anchor_url, p.kind,
       p.host, p.link_hosts, p.linked_urls, p.image_count, p.url_count, p.sci_score, p.tags, p.is_public,
       p.protected_owner_ids, p.private_feed_ids, p.created_at, p.deleted_at, p.anchor_kind,
       p.like_count, p.comment_count, p.bumped_at,
       u.handle AS author_handle, u.display_name AS author_name, u.vip AS author_vip,
       p.edited_at,
       u.avatar AS author_avatar
  FROM posts p
  JOIN users u ON u.id = p.author_id;

-- Session tokens are stored hashed (SHA-256): a copy of the table opens no session. The
-- sessions of before are kept, their tokens hashed in place. Each session has an id to be
-- named by on its user's sessions page, when it began, when it was last used (its idle
-- timeout counts from then) and the User-Agent it was begun or last written with.
ALTER TABLE sessions RENAME COLUMN token TO token_hash;
ALTER TABLE sessions ALTER COLUMN token_hash TYPE bytea USING sha256(convert_to(token_hash, 'UTF8'));
ALTER TABLE sessions ADD COLUMN id         bigint NOT NULL GENERATED ALWAYS AS IDENTITY UNIQUE,
                     ADD COLUMN created_at timestamptz NOT NULL DEFAULT now(),
                     ADD COLUMN seen_at    timestamptz NOT NULL DEFAULT now(),
                     ADD COLUMN user_agent text NOT NULL DEFAULT '';
CREATE INDEX sessions_user_idx ON sessions (user_id) WHERE user_id IS NOT NULL;

-- +goose Down
DROP INDEX sessions_user_idx;
ALTER TABLE sessions DROP COLUMN user_agent, DROP COLUMN seen_at, DROP COLUMN created_at, DROP COLUMN id;
DELETE FROM sessions; -- a hash cannot be turned back into its token
ALTER TABLE sessions ALTER COLUMN token_hash TYPE text USING encode(token_hash, 'hex');
ALTER TABLE sessions RENAME COLUMN token_hash TO token;
DROP VIEW post_cards;
CREATE VIEW post_cards AS
SELECT p.id, p.author_id, p.anchor_id, p.url, p.title, p.body, p.canonical_url, p.anchor_url, p.kind,
       p.host, p.link_hosts, p.linked_urls, p.image_count, p.url_count, p.sci_score, p.tags, p.is_public,
       p.protected_owner_ids, p.private_feed_ids, p.created_at, p.deleted_at, p.anchor_kind,
       p.like_count, p.comment_count, p.bumped_at,
       u.handle AS author_handle, u.display_name AS author_name, u.vip AS author_vip,
       p.edited_at
  FROM posts p
  JOIN users u ON u.id = p.author_id;
DROP VIEW post_facts;
CREATE VIEW post_facts AS
SELECT p.id, p.anchor_id, a.url AS anchor_url, a.kind AS anchor_kind, p.url, p.canonical_url, p.title, p.body,
       p.host, p.linked_urls, p.image_count, p.url_count, p.sci_score, p.tags, p.created_at,
       u.id AS author_id, u.handle, u.display_name, u.vip, u.notability,
       p.is_public, p.protected_owner_ids, p.private_feed_ids, p.deleted_at,
       (p.in_own_feed OR p.is_direct) AS to_followers
  FROM posts p
  JOIN users u ON u.id = p.author_id
  JOIN anchors a ON a.id = p.anchor_id;
DROP TRIGGER users_site_change ON users;
CREATE TRIGGER users_site_change AFTER UPDATE OF vip, is_private, notability, handle, display_name ON users
    FOR EACH ROW WHEN (OLD.vip IS DISTINCT FROM NEW.vip OR OLD.is_private IS DISTINCT FROM NEW.is_private
                       OR OLD.notability IS DISTINCT FROM NEW.notability OR OLD.handle IS DISTINCT FROM NEW.handle
                       OR OLD.display_name IS DISTINCT FROM NEW.display_name)
    EXECUTE FUNCTION record_user_change();
ALTER TABLE users DROP COLUMN avatar_large, DROP COLUMN avatar, DROP COLUMN bio;
