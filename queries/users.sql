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
       ARRAY(SELECT r.feed_id FROM feed_readers r WHERE r.user_id = u.id ORDER BY 1)::bigint[] AS private_feeds
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
