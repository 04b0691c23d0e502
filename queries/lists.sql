-- Lists: a user's own feeds of chosen members (migrations/00017_lists.sql).

-- name: CreateList :one
INSERT INTO lists (owner_id, name, exclusive, created_at)
SELECT @owner_id, @name, @exclusive, now()
 WHERE (SELECT count(*) FROM lists WHERE owner_id = @owner_id) < sqlc.arg(max_lists)::int
RETURNING id;

-- name: ListsOf :many
-- A user's lists, by name, with how many members each has and whether member_id (0: nobody)
-- is one of them.
SELECT l.id, l.name, l.exclusive,
       (SELECT count(*) FROM list_members m WHERE m.list_id = l.id)::int AS members,
       EXISTS (SELECT 1 FROM list_members m WHERE m.list_id = l.id AND m.member_id = @member_id)::boolean AS has_member
  FROM lists l
 WHERE l.owner_id = @owner_id
 ORDER BY lower(l.name), l.id;

-- name: ListOf :one
SELECT l.id, l.name, l.exclusive FROM lists l WHERE l.id = @id AND l.owner_id = @owner_id;

-- name: ListMembers :many
SELECT u.id, u.handle, u.display_name, u.vip
  FROM list_members m JOIN users u ON u.id = m.member_id
 WHERE m.list_id = @list_id
 ORDER BY u.handle;

-- name: RenameList :execrows
UPDATE lists SET name = @name WHERE id = @id AND owner_id = @owner_id;

-- name: SetListExclusive :execrows
UPDATE lists SET exclusive = @exclusive WHERE id = @id AND owner_id = @owner_id AND exclusive <> @exclusive;

-- name: DeleteList :execrows
DELETE FROM lists WHERE id = @id AND owner_id = @owner_id;

-- name: AddListMember :execrows
-- Adds a member to a list of the owner's, unless the list is full; a member already there
-- stays (no row).
INSERT INTO list_members (list_id, member_id)
SELECT l.id, @member_id FROM lists l
 WHERE l.id = @list_id AND l.owner_id = @owner_id
   AND (SELECT count(*) FROM list_members m WHERE m.list_id = l.id) < sqlc.arg(max_members)::int
ON CONFLICT DO NOTHING;

-- name: RemoveListMember :execrows
DELETE FROM list_members m USING lists l
 WHERE m.list_id = l.id AND l.id = @list_id AND l.owner_id = @owner_id AND m.member_id = @member_id;
