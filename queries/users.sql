-- name: CreateUser :one
INSERT INTO users (handle, display_name, password_hash, vip, notability, created_at)
VALUES (@handle, @display_name, @password_hash, @vip, @notability, @created_at)
RETURNING *;

-- name: CreatePostsFeed :one
INSERT INTO feeds (kind, owner_id, access) VALUES ('posts', @owner_id, 'public')
RETURNING id;

-- name: UserByHandle :one
SELECT * FROM users WHERE lower(handle) = lower(@handle) AND deleted_at IS NULL;

-- name: UserByID :one
SELECT * FROM users WHERE id = @id AND deleted_at IS NULL;

-- name: UserWithAccess :one
-- A signed-in user and what the access rules need of them, in one round trip (for a session
-- that does not name its user: SessionWithAccess reads the others').
SELECT sqlc.embed(u), sqlc.embed(a)
  FROM users u JOIN viewer_access a ON a.viewer_id = u.id
 WHERE u.id = @id AND u.deleted_at IS NULL;

-- name: SessionWithAccess :one
-- A session that names its user, with the user and what the access rules need of them: the
-- one round trip every signed-in request makes before its page's; and the user's unread
-- notifications, which every page's header shows. A session unused for 30 days (sessionIdle
-- in db/sessions.go) is over, as one past its expiry is. The count is -1 when the one this
-- instance kept (kept_*, db/unread.go) still holds as far as this read can tell: the same
-- user, newest notification, read-up-to marker, bans and private feeds, and no change of
-- posts' access or users' privacy since.
SELECT s.data, s.seen_at, sqlc.embed(u), sqlc.embed(a), k.newest_id, k.read_upto_us,
       k.access_change,
       CASE WHEN u.id = @kept_user::bigint AND k.newest_id = @kept_newest_id::bigint AND k.read_upto_us = @kept_read_upto_us::bigint
                 AND k.access_change = @kept_access_change::bigint
                 AND a.blocked = @kept_blocked::bigint[] AND a.private_feeds = @kept_private_feeds::bigint[] THEN -1
            ELSE notification_unread(u.id, a.blocked, a.private_feeds) END::int AS unread
  FROM sessions s
  JOIN users u ON u.id = s.user_id AND u.deleted_at IS NULL
  JOIN viewer_access a ON a.viewer_id = u.id
  CROSS JOIN LATERAL (
       SELECT coalesce((SELECT n.id FROM notifications n WHERE n.recipient_id = u.id
                         ORDER BY n.created_at DESC, n.id DESC LIMIT 1), 0)::bigint AS newest_id,
              coalesce((SELECT (extract(epoch FROM r.read_upto) * 1e6)::bigint FROM notification_reads r
                         WHERE r.user_id = u.id), 0)::bigint AS read_upto_us,
              coalesce((SELECT max(c.id) FROM site_changes c WHERE c.kind IN ('posts', 'users')), 0)::bigint AS access_change) k
 WHERE s.token_hash = @token_hash AND current_timestamp < s.expiry
   AND s.seen_at > current_timestamp - interval '30 days';

-- name: SessionData :one
-- A session's data (one that names no user, or whose user is gone).
SELECT data, seen_at FROM sessions
 WHERE token_hash = @token_hash AND current_timestamp < expiry AND seen_at > current_timestamp - interval '30 days';

-- name: CommitSession :exec
-- Writes a session; its User-Agent is kept when the write has none (a write outside a request).
INSERT INTO sessions (token_hash, data, expiry, user_id, user_agent)
VALUES (@token_hash, @data, @expiry, @user_id, @user_agent)
ON CONFLICT (token_hash) DO UPDATE SET data = EXCLUDED.data, expiry = EXCLUDED.expiry, user_id = EXCLUDED.user_id,
    seen_at = now(), user_agent = CASE WHEN EXCLUDED.user_agent = '' THEN sessions.user_agent ELSE EXCLUDED.user_agent END;

-- name: UpdateSession :exec
-- Writes a session read at the request's start: a session ended meanwhile (logged out from
-- elsewhere, a password changed) stays ended rather than being written again.
UPDATE sessions SET data = @data, expiry = @expiry, user_id = @user_id, seen_at = now(),
       user_agent = CASE WHEN @user_agent::text = '' THEN user_agent ELSE @user_agent::text END
 WHERE token_hash = @token_hash;

-- name: TouchSession :exec
-- A session is used: its idle timeout starts again.
UPDATE sessions SET seen_at = now() WHERE token_hash = @token_hash;

-- name: DeleteSession :exec
DELETE FROM sessions WHERE token_hash = @token_hash;

-- name: UserSessions :many
-- A user's open sessions, the most recently used first; current says which is token_hash's.
SELECT id, created_at, seen_at, user_agent, (token_hash = @token_hash)::boolean AS current
  FROM sessions
 WHERE user_id = @user_id AND current_timestamp < expiry AND seen_at > current_timestamp - interval '30 days'
 ORDER BY seen_at DESC, id DESC;

-- name: DeleteUserSession :one
-- Ends one of a user's sessions, by its id; current says whether it was token_hash's.
DELETE FROM sessions WHERE id = @id AND user_id = @user_id RETURNING (token_hash = @token_hash)::boolean AS current;

-- name: DeleteUserSessions :execrows
-- Ends every session of a user but the one of keep_hash (none: every one).
DELETE FROM sessions WHERE user_id = @user_id AND token_hash <> @keep_hash;

-- name: SetPassword :exec
UPDATE users SET password_hash = @password_hash WHERE id = @id;

-- name: SetProfile :exec
UPDATE users SET display_name = @display_name, bio = @bio WHERE id = @id;

-- name: SetAvatar :exec
UPDATE users SET avatar = sqlc.narg(avatar), avatar_large = sqlc.narg(avatar_large) WHERE id = @id;

-- name: SnapshotAnchorsOf :many
-- The items in the snapshot a user shared, whose rows name them (a profile change redoes them).
SELECT DISTINCT p.anchor_id
  FROM posts p
 WHERE p.author_id = @author_id AND EXISTS (SELECT 1 FROM feed_snapshot f WHERE f.anchor_id = p.anchor_id)
 ORDER BY p.anchor_id;

-- name: CountUsers :one
SELECT count(*) FROM users;

-- name: UserStats :one
-- A user's counts as a viewer sees them: their posts only those the viewer may read (a
-- direct or a private post is not told by the count).
SELECT
    (SELECT count(*) FROM follows f WHERE f.follower_id = @id AND f.state = 'active') AS following,
    (SELECT count(*) FROM follows f WHERE f.followed_id = @id AND f.state = 'active') AS followers,
    (SELECT count(*) FROM posts p WHERE p.author_id = @id AND p.deleted_at IS NULL
        AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[])) AS posts;

-- name: DeleteExpiredSessions :execrows
-- Sessions past their expiry or unused for 30 days.
DELETE FROM sessions WHERE expiry < now() OR seen_at < now() - interval '30 days';

-- name: HideItem :one
-- Hides the item of a post the user may read, by that post; no row when the post is not
-- theirs to read.
INSERT INTO hidden_items (user_id, anchor_id, post_id, created_at)
SELECT @user_id::bigint, p.anchor_id, p.id, @at FROM posts p
 WHERE p.id = @post_id AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @user_id::bigint, @blocked::bigint[], @private_feeds::bigint[])
ON CONFLICT (user_id, anchor_id) DO UPDATE SET post_id = EXCLUDED.post_id, created_at = EXCLUDED.created_at
RETURNING anchor_id;

-- name: UnhideItem :exec
-- Brings back the item of a post (whichever of its shares hid it).
DELETE FROM hidden_items h USING posts p WHERE p.id = @post_id AND h.user_id = @user_id AND h.anchor_id = p.anchor_id;

-- name: HiddenPosts :many
-- The posts a user hid items by, newest first, as the user may read them now.
SELECT sqlc.embed(p), h.created_at AS hidden_at FROM hidden_items h
  JOIN post_cards p ON p.id = h.post_id
 WHERE h.user_id = @user_id AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @user_id::bigint, @blocked::bigint[], @private_feeds::bigint[])
 ORDER BY h.created_at DESC, h.anchor_id DESC
 LIMIT @lim::int;

-- name: Mute :exec
INSERT INTO mutes (user_id, word, collapse, created_at) VALUES (@user_id, @word, @collapse, @at)
ON CONFLICT (user_id, word) DO UPDATE SET collapse = EXCLUDED.collapse;

-- name: Unmute :exec
DELETE FROM mutes WHERE user_id = @user_id AND word = @word;

-- name: CountMutes :one
SELECT count(*) FROM mutes WHERE user_id = @user_id;
