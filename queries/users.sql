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
-- A signed-in user and what the access rules need of them, in the one round trip every
-- request of theirs makes.
SELECT sqlc.embed(u),
       ARRAY(SELECT b.banned_id FROM bans b WHERE b.user_id = u.id
             UNION SELECT b.user_id FROM bans b WHERE b.banned_id = u.id ORDER BY 1)::bigint[] AS blocked,
       ARRAY(SELECT r.feed_id FROM feed_readers r WHERE r.user_id = u.id ORDER BY 1)::bigint[] AS private_feeds,
       ARRAY(SELECT h.anchor_id FROM hidden_items h WHERE h.user_id = u.id ORDER BY 1)::bigint[] AS hidden,
       ARRAY(SELECT m.word FROM mutes m WHERE m.user_id = u.id ORDER BY m.word)::text[] AS muted,
       ARRAY(SELECT m.collapse FROM mutes m WHERE m.user_id = u.id ORDER BY m.word)::boolean[] AS muted_collapse
  FROM users u WHERE u.id = @id;

-- name: CountUsers :one
SELECT count(*) FROM users;

-- name: UserStats :one
SELECT
    (SELECT count(*) FROM follows f WHERE f.follower_id = @id AND f.state = 'active') AS following,
    (SELECT count(*) FROM follows f WHERE f.followed_id = @id AND f.state = 'active') AS followers,
    (SELECT count(*) FROM posts p WHERE p.author_id = @id AND p.deleted_at IS NULL) AS posts;

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
