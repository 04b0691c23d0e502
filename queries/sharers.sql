-- name: SharersOf :many
-- Some sharers of some items (anchor_ids[i] shared by author_ids[i]), each by their newest
-- share the viewer may read: the people a reader follows whom an item's sharer stack (its
-- newest dozen) lacks.
SELECT p.anchor_id, u.id, u.handle, u.display_name, u.vip, coalesce(u.avatar, '')::text AS avatar,
       max(p.created_at)::timestamptz AS at, bool_or(p.is_public)::boolean AS public
  FROM (SELECT unnest(@anchor_ids::bigint[]) AS anchor_id, unnest(@author_ids::bigint[]) AS author_id) x
  JOIN posts p ON p.author_id = x.author_id AND p.anchor_id = x.anchor_id
  JOIN users u ON u.id = x.author_id
 WHERE p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[])
 GROUP BY p.anchor_id, u.id;
