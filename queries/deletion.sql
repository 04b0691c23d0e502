-- name: MarkUserDeleted :one
-- Deletes an account as of at: it can no longer log in, and naming display_name tells every
-- instance's user names (users_site_change) that the user changed. The row stays, so the
-- handle stays taken.
UPDATE users SET deleted_at = @at, password_hash = '', display_name = display_name
 WHERE id = @id AND deleted_at IS NULL
RETURNING id;

-- name: DeleteUserPosts :many
-- Every post of a deleted user leaves every feed as a deleted post does; the anchors to redo.
UPDATE posts SET deleted_at = @at WHERE author_id = @user_id AND deleted_at IS NULL
RETURNING anchor_id;

-- name: DeleteUserLikes :many
-- A deleted user's likes, gone and uncounted as Unlike does; the anchors to redo.
WITH del AS (DELETE FROM likes l WHERE l.user_id = @user_id RETURNING l.post_id),
n AS (SELECT del.post_id, count(*)::int AS n FROM del GROUP BY del.post_id)
UPDATE posts p SET like_count = p.like_count - n.n FROM n WHERE p.id = n.post_id
RETURNING p.anchor_id;

-- name: DeleteUserComments :many
-- A deleted user's comments, gone and uncounted as DeleteComment does; the anchors to redo.
WITH del AS (DELETE FROM comments c WHERE c.author_id = @user_id RETURNING c.post_id),
n AS (SELECT del.post_id, count(*)::int AS n FROM del GROUP BY del.post_id)
UPDATE posts p SET comment_count = p.comment_count - n.n FROM n WHERE p.id = n.post_id
RETURNING p.anchor_id;

-- name: DeleteUserFollows :many
-- A deleted user's follows either way; the readers whose home feeds change.
DELETE FROM follows f WHERE f.follower_id = @user_id OR f.followed_id = @user_id
RETURNING f.follower_id;

-- name: DeleteUserMemberships :exec
-- A deleted user leaves the groups and the lists others made (after HandOverGroups), and
-- the private feeds they read: member lists show them no more, and they read nothing.
WITH gm AS (DELETE FROM group_members WHERE user_id = @user_id),
rd AS (DELETE FROM feed_readers WHERE user_id = @user_id)
DELETE FROM list_members WHERE member_id = @user_id;

-- name: HandOverGroups :exec
-- The groups a deleted user administered alone go to their longest-standing other active
-- member as admin; those with no other member are closed (moderated, with nobody to let
-- anyone in), their posts readable as before.
WITH alone AS (
    SELECT g.id FROM feeds g
      JOIN group_members m ON m.feed_id = g.id AND m.user_id = @user_id AND m.role = 'admin'
     WHERE g.kind = 'group'
       AND NOT EXISTS (SELECT 1 FROM group_members o WHERE o.feed_id = g.id AND o.user_id <> @user_id
                          AND o.role = 'admin' AND o.state = 'active')),
heir AS (
    SELECT DISTINCT ON (m.feed_id) m.feed_id, m.user_id FROM group_members m JOIN alone a ON a.id = m.feed_id
      JOIN users u ON u.id = m.user_id AND u.deleted_at IS NULL
     WHERE m.user_id <> @user_id AND m.state = 'active'
     ORDER BY m.feed_id, m.created_at, m.user_id),
promoted AS (
    UPDATE group_members m SET role = 'admin' FROM heir h WHERE m.feed_id = h.feed_id AND m.user_id = h.user_id
    RETURNING m.feed_id)
UPDATE feeds f SET moderated = true
  FROM alone a WHERE f.id = a.id AND a.id NOT IN (SELECT h.feed_id FROM heir h);

-- name: PurgeUser :exec
-- Removes for good what a deleted user left: memberships, lists, readers, mutes, hides and
-- their events (memberships again: DeleteAccount removed them, a join may race). Bans stay:
-- one the user made still guards the groups they created, and lifting it would widen access. Their row and handle stay; so do their posts, deleted (others'
-- hides and comments hang on them).
WITH gm AS (DELETE FROM group_members WHERE user_id = @user_id),
lm AS (DELETE FROM list_members WHERE member_id = @user_id),
ls AS (DELETE FROM lists WHERE owner_id = @user_id),
rd AS (DELETE FROM feed_readers WHERE user_id = @user_id),
mu AS (DELETE FROM mutes WHERE user_id = @user_id),
hi AS (DELETE FROM hidden_items WHERE user_id = @user_id)
DELETE FROM events WHERE viewer_id = @user_id;
