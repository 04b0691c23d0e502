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

-- name: LockGroup :exec
-- Serializes changes of a group's members, so that checks such as "another admin stays"
-- hold until the change commits.
SELECT id FROM feeds WHERE id = @id FOR NO KEY UPDATE;

-- name: ApprovePending :execrows
-- Lets a pending member in; no row when the user has not asked to join.
UPDATE group_members SET state = 'active' WHERE feed_id = @feed_id AND user_id = @user_id AND state = 'pending';

-- name: PromoteMember :execrows
-- Makes an active member an admin; no row when the user is not one.
UPDATE group_members SET role = 'admin' WHERE feed_id = @feed_id AND user_id = @user_id AND state = 'active';

-- name: OtherAdmins :one
SELECT count(*) FROM group_members
 WHERE feed_id = @feed_id AND user_id <> @user_id AND role = 'admin' AND state = 'active';

-- name: ModerateGroup :exec
UPDATE feeds SET moderated = true WHERE id = @id;
