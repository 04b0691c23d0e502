-- name: LateCommitted :many
-- The shares, readable by the viewer, in posts dated at or before at that the snapshot prev
-- could not see, dated after since: they committed after a fencepost read in prev was made,
-- so an interval ending at that fencepost missed them. Bounded by the index on xid from
-- prev's xmin (all before it were visible), or by the dates (since, at] when fewer; a
-- filtered feed's kind and tag apply. The caller keeps those its feed gets (lateOf: the
-- followed set's, the viewer's groups'): with the set as a constant array, planning the
-- query for its arguments took 6 ms at 1,500 followees, and its generic plan reads every
-- post of the set's by author instead.
SELECT p.anchor_id, p.author_id, p.created_at, (p.in_own_feed OR p.is_direct)::boolean AS to_followers, p.group_feed_ids
  FROM posts p
 WHERE p.xid >= pg_snapshot_xmin(CAST(sqlc.arg(prev)::text AS pg_snapshot))
   AND NOT pg_visible_in_snapshot(p.xid, CAST(sqlc.arg(prev)::text AS pg_snapshot))
   AND p.created_at <= @at AND p.created_at > @since AND p.deleted_at IS NULL
   AND (@kind::text = '' OR p.anchor_kind = @kind::text) AND (@tag::text = '' OR p.tags @> ARRAY[@tag::text])
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id, @blocked::bigint[], @private_feeds::bigint[]);

-- name: LatePosts :many
-- The posts made by a transaction the snapshot of the viewer's fencepost at `at` of fence
-- `template` could not see, dated at or before it (after since), but those in its head,
-- newest first: what a search checks (SearchAmong) for its late results (issue 44.17).
WITH f AS (SELECT CAST(fp.snap AS pg_snapshot) AS snap, fp.head FROM fenceposts fp
            WHERE fp.viewer_id = @viewer_id AND fp.template = @template AND fp.at = @at AND fp.snap IS NOT NULL)
SELECT p.id, p.created_at
  FROM f JOIN posts p ON p.xid >= pg_snapshot_xmin(f.snap)
 WHERE NOT pg_visible_in_snapshot(p.xid, f.snap) AND p.created_at <= @at AND p.created_at > @since
   AND p.deleted_at IS NULL AND NOT p.id = ANY(f.head)
 ORDER BY p.created_at DESC, p.id DESC;
