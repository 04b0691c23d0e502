-- name: ClaimExport :one
-- Marks an export as begun now unless one began after since (a day ago); returns when the
-- last one began (now, when the claim succeeded).
UPDATE users SET exported_at = CASE WHEN exported_at IS NULL OR exported_at <= @since::timestamptz
                                    THEN @now::timestamptz ELSE exported_at END
 WHERE id = @user_id
RETURNING exported_at::timestamptz AS exported_at;

-- name: ExportPosts :many
-- A batch of a user's posts before a (created_at, id), newest first: a walk down
-- posts_author_created_idx.
SELECT id, url, title, body, tags, created_at, is_direct
  FROM posts
 WHERE author_id = @author_id AND deleted_at IS NULL
   AND (created_at, id) < (@before_at::timestamptz, @before_id::bigint)
 ORDER BY created_at DESC, id DESC
 LIMIT @batch;

-- name: ExportComments :many
-- A batch of a user's comments before a (created_at, id), newest first, as JSON documents.
SELECT c.id, c.created_at, json_build_object('post_id', c.post_id, 'url', p.url, 'body', c.body,
                               'created_at', c.created_at, 'edited_at', c.edited_at)::text AS doc
  FROM comments c
  JOIN posts p ON p.id = c.post_id
 WHERE c.author_id = @author_id AND p.deleted_at IS NULL
   AND (c.created_at, c.id) < (@before_at::timestamptz, @before_id::bigint)
 ORDER BY c.created_at DESC, c.id DESC
 LIMIT @batch;

-- name: ExportLikes :many
-- A batch of a user's likes before a (created_at, post_id), newest first, as JSON documents.
SELECT l.post_id AS id, l.created_at, json_build_object('post_id', l.post_id, 'url', p.url, 'created_at', l.created_at)::text AS doc
  FROM likes l
  JOIN posts p ON p.id = l.post_id
 WHERE l.user_id = @user_id AND p.deleted_at IS NULL
   AND (l.created_at, l.post_id) < (@before_at::timestamptz, @before_id::bigint)
 ORDER BY l.created_at DESC, l.post_id DESC
 LIMIT @batch;

-- name: ExportSocial :one
-- The rest of what a user made, each part a JSON array: whom they follow, who follows them,
-- their lists, the groups they own, their muted words and hidden items.
SELECT
  (SELECT coalesce(json_agg(json_build_object('handle', u.handle, 'state', f.state, 'created_at', f.created_at) ORDER BY u.handle), '[]')
     FROM follows f JOIN users u ON u.id = f.followed_id
    WHERE f.follower_id = @user_id AND u.deleted_at IS NULL)::text AS follows,
  (SELECT coalesce(json_agg(json_build_object('handle', u.handle, 'state', f.state, 'created_at', f.created_at) ORDER BY u.handle), '[]')
     FROM follows f JOIN users u ON u.id = f.follower_id
    WHERE f.followed_id = @user_id AND u.deleted_at IS NULL)::text AS followers,
  (SELECT coalesce(json_agg(json_build_object('name', l.name, 'exclusive', l.exclusive, 'created_at', l.created_at,
            'members', (SELECT coalesce(json_agg(u.handle ORDER BY u.handle), '[]')
                          FROM list_members m JOIN users u ON u.id = m.member_id
                         WHERE m.list_id = l.id AND u.deleted_at IS NULL)) ORDER BY l.name), '[]')
     FROM lists l WHERE l.owner_id = @user_id)::text AS lists,
  (SELECT coalesce(json_agg(json_build_object('name', g.name, 'title', g.title, 'access', g.access,
            'moderated', g.moderated, 'created_at', g.created_at) ORDER BY g.name), '[]')
     FROM feeds g WHERE g.kind = 'group' AND g.owner_id = @user_id)::text AS groups,
  (SELECT coalesce(json_agg(json_build_object('word', m.word, 'collapse', m.collapse, 'created_at', m.created_at) ORDER BY m.word), '[]')
     FROM mutes m WHERE m.user_id = @user_id)::text AS mutes,
  (SELECT coalesce(json_agg(json_build_object('url', a.url, 'post_id', h.post_id, 'created_at', h.created_at) ORDER BY h.created_at), '[]')
     FROM hidden_items h JOIN anchors a ON a.id = h.anchor_id
    WHERE h.user_id = @user_id)::text AS hides;
