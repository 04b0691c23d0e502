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

-- name: ProfileOf :one
-- A user page's head in one statement: the user; their counts as a viewer sees them (their
-- posts only those the viewer may read: a direct or a private post is not told by the count);
-- their posts feed's access; and how the viewer stands with them: the viewer's follow and ban
-- of them, or for the user themself how many follow requests wait. The follow counts are
-- kept on write (user_stats, migration 64); posts are counted on two partial indexes: the
-- public ones, and those restricted ones the viewer may read.
SELECT sqlc.embed(u),
    coalesce(s.following, 0)::bigint AS following,
    coalesce(s.followers, 0)::bigint AS followers,
    ((SELECT count(*) FROM posts p WHERE p.author_id = u.id AND p.is_public AND p.deleted_at IS NULL)
        + (SELECT count(*) FROM posts p WHERE p.author_id = u.id AND NOT p.is_public AND p.deleted_at IS NULL
            AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[])))::bigint AS posts,
    coalesce((SELECT fd.access FROM feeds fd WHERE fd.owner_id = u.id AND fd.kind = 'posts' AND fd.name = ''), '')::text AS visibility,
    coalesce((SELECT f.state FROM follows f WHERE f.follower_id = @viewer_id::bigint AND f.followed_id = u.id AND u.id <> @viewer_id::bigint), '')::text AS follow_state,
    EXISTS (SELECT 1 FROM bans b WHERE b.user_id = @viewer_id::bigint AND b.banned_id = u.id AND u.id <> @viewer_id::bigint) AS banned,
    CASE WHEN u.id = @viewer_id::bigint THEN coalesce(s.requests, 0) ELSE 0 END::int AS requests
  FROM users u LEFT JOIN user_stats s ON s.user_id = u.id
 WHERE u.id = @id AND u.deleted_at IS NULL;

-- name: PostsFeedAccess :one
SELECT access FROM feeds WHERE owner_id = @owner_id AND kind = 'posts' AND name = '';
