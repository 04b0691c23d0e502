-- name: RecomputePostAccess :many
-- Refold the access of posts from their feeds (seed 003): the posts of some feeds, or some
-- posts. Returns the anchors touched, whose snapshot rows must be redone.
WITH affected AS (
    SELECT fp.post_id FROM feed_posts fp
     WHERE fp.feed_id = ANY(@feed_ids::bigint[]) OR fp.post_id = ANY(@post_ids::bigint[])),
agg AS (
    SELECT fp.post_id,
           bool_or(f.access = 'public') AS pub,
           coalesce(array_agg(DISTINCT f.owner_id) FILTER (WHERE f.access = 'protected'), '{}')::bigint[] AS prot,
           coalesce(array_agg(DISTINCT f.id) FILTER (WHERE f.access = 'private'), '{}')::bigint[] AS priv
      FROM feed_posts fp
      JOIN feeds f ON f.id = fp.feed_id
     WHERE fp.post_id IN (SELECT post_id FROM affected)
     GROUP BY fp.post_id)
UPDATE posts p
   SET is_public = agg.pub, protected_owner_ids = agg.prot, private_feed_ids = agg.priv
  FROM agg
 WHERE p.id = agg.post_id
RETURNING p.anchor_id;

-- name: ViewerAccessOf :one
-- What the access rules need of a viewer, in one round trip.
SELECT * FROM viewer_access WHERE viewer_id = @viewer_id;

-- name: SetFeedAccess :exec
UPDATE feeds SET access = @access WHERE id = @id;

-- name: SetUserPrivate :exec
UPDATE users SET is_private = @is_private WHERE id = @id;

-- name: AddReader :exec
INSERT INTO feed_readers (feed_id, user_id) VALUES (@feed_id, @user_id) ON CONFLICT DO NOTHING;

-- name: RemoveReader :exec
DELETE FROM feed_readers WHERE feed_id = @feed_id AND user_id = @user_id;

-- name: AddFollowersAsReaders :exec
-- Going private: the people who follow you now keep reading you.
INSERT INTO feed_readers (feed_id, user_id)
SELECT @feed_id::bigint, f.follower_id FROM follows f WHERE f.followed_id = @owner_id AND f.state = 'active'
UNION SELECT @feed_id::bigint, @owner_id::bigint
ON CONFLICT DO NOTHING;

-- name: FeedByID :one
SELECT * FROM feeds WHERE id = @id;

-- name: FollowRequests :many
SELECT u.* FROM follows f JOIN users u ON u.id = f.follower_id
 WHERE f.followed_id = @owner_id AND f.state = 'pending' ORDER BY f.created_at, u.id;

-- name: SetFollowState :execrows
UPDATE follows SET state = @state WHERE follower_id = @follower_id AND followed_id = @followed_id;

-- name: Followers :many
SELECT u.* FROM follows f JOIN users u ON u.id = f.follower_id
 WHERE f.followed_id = @owner_id AND f.state = 'active' ORDER BY u.handle;

-- name: Ban :exec
INSERT INTO bans (user_id, banned_id) VALUES (@user_id, @banned_id) ON CONFLICT DO NOTHING;

-- name: Unban :exec
DELETE FROM bans WHERE user_id = @user_id AND banned_id = @banned_id;

-- name: HasBanned :one
SELECT EXISTS (SELECT 1 FROM bans WHERE user_id = @user_id AND banned_id = @banned_id);

-- name: PostOwner :one
SELECT author_id, anchor_id FROM posts WHERE id = @id AND deleted_at IS NULL;

-- name: DeletePost :exec
UPDATE posts SET deleted_at = @at WHERE id = @id;
