-- name: CreateUser :one
INSERT INTO users (handle, display_name, password_hash, vip, notability, created_at)
VALUES (@handle, @display_name, @password_hash, @vip, @notability, @created_at)
RETURNING *;

-- name: CreatePostsFeed :one
INSERT INTO feeds (kind, owner_id, access) VALUES ('posts', @owner_id, 'public')
RETURNING id;

-- name: UserByHandle :one
SELECT * FROM users WHERE lower(handle) = lower(@handle);

-- name: UserByID :one
SELECT * FROM users WHERE id = @id;

-- name: UserWithAccess :one
-- A signed-in user and what the access rules need of them, in one round trip (for a session
-- that does not name its user: SessionWithAccess reads the others').
SELECT sqlc.embed(u), sqlc.embed(a)
  FROM users u JOIN viewer_access a ON a.viewer_id = u.id
 WHERE u.id = @id;

-- name: SessionWithAccess :one
-- A session that names its user, with the user and what the access rules need of them: the
-- one round trip every signed-in request makes before its page's; and the user's unread
-- notifications, which every page's header shows.
SELECT s.data, sqlc.embed(u), sqlc.embed(a), notification_unread(u.id, a.blocked, a.private_feeds)::int AS unread
  FROM sessions s
  JOIN users u ON u.id = s.user_id
  JOIN viewer_access a ON a.viewer_id = u.id
 WHERE s.token = @token AND current_timestamp < s.expiry;

-- name: SessionData :one
-- A session's data (one that names no user, or whose user is gone).
SELECT data FROM sessions WHERE token = @token AND current_timestamp < expiry;

-- name: CommitSession :exec
INSERT INTO sessions (token, data, expiry, user_id) VALUES (@token, @data, @expiry, @user_id)
ON CONFLICT (token) DO UPDATE SET data = EXCLUDED.data, expiry = EXCLUDED.expiry, user_id = EXCLUDED.user_id;

-- name: DeleteSession :exec
DELETE FROM sessions WHERE token = @token;

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
DELETE FROM sessions WHERE expiry < now();

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
