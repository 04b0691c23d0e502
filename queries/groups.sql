-- name: CreateGroupFeed :one
INSERT INTO feeds (kind, owner_id, name, title, access, moderated)
VALUES ('group', @owner_id, @name, @title, @access, @moderated)
RETURNING *;

-- name: GroupByName :one
SELECT * FROM feeds WHERE kind = 'group' AND lower(name) = lower(@name);

-- name: UpsertMember :exec
INSERT INTO group_members (feed_id, user_id, role, state) VALUES (@feed_id, @user_id, @role, @state)
ON CONFLICT (feed_id, user_id) DO UPDATE SET role = EXCLUDED.role, state = EXCLUDED.state;

-- name: Membership :one
SELECT role, state FROM group_members WHERE feed_id = @feed_id AND user_id = @user_id;

-- name: RemoveMember :exec
DELETE FROM group_members WHERE feed_id = @feed_id AND user_id = @user_id;

-- name: GroupMembers :many
SELECT u.id, u.handle, u.display_name, u.vip, m.role, m.state
  FROM group_members m JOIN users u ON u.id = m.user_id
 WHERE m.feed_id = @feed_id
 ORDER BY m.role DESC, m.state, u.handle;

-- name: AddMembersAsReaders :exec
INSERT INTO feed_readers (feed_id, user_id)
SELECT m.feed_id, m.user_id FROM group_members m WHERE m.feed_id = @feed_id AND m.state = 'active'
ON CONFLICT DO NOTHING;

-- name: GroupsOf :many
-- Groups a user may post to.
SELECT f.* FROM feeds f JOIN group_members m ON m.feed_id = f.id
 WHERE m.user_id = @user_id AND m.state = 'active' AND f.kind = 'group'
 ORDER BY f.name;

-- name: ListGroups :many
SELECT * FROM feeds WHERE kind = 'group' ORDER BY name LIMIT 200;

-- name: CreateDirectsFeed :one
INSERT INTO feeds (kind, owner_id, access) VALUES ('directs', @owner_id, 'private') RETURNING id;

-- name: FeedPosts :many
-- A base feed (a group), newest first, as the viewer may read it.
SELECT p.* FROM post_cards p
 WHERE p.id IN (SELECT fp.post_id FROM feed_posts fp WHERE fp.feed_id = @feed_id)
   AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[])
   AND (p.created_at, p.id) < (@before_at::timestamptz, @before_id::bigint)
 ORDER BY p.created_at DESC, p.id DESC
 LIMIT @lim;

-- name: DirectPosts :many
-- Directs the viewer sent or received, newest first.
SELECT p.* FROM post_cards p
 WHERE p.id IN (SELECT fp.post_id FROM feed_posts fp
                  JOIN feeds f ON f.id = fp.feed_id
                  JOIN feed_readers r ON r.feed_id = f.id
                 WHERE f.kind = 'directs' AND r.user_id = @viewer_id)
   AND p.deleted_at IS NULL
   AND (p.created_at, p.id) < (@before_at::timestamptz, @before_id::bigint)
 ORDER BY p.created_at DESC, p.id DESC
 LIMIT @lim;
