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

-- name: ChronoLate :many
-- The posts of a chronological feed (scoped as ChronoArrivals) that arrived late for the
-- viewer's fencepost at `at` of fence `template`: made or bumped by a transaction its
-- snapshot could not see, dated at or before it (after since), each at its latest such
-- arrival, newest first (issue 44.17). A post made late is left out when in the fencepost's
-- head, which its reads may have seen; a late bump brings a post up as any bump does.
-- Bounded by the xid indexes from the snapshot's xmin (all before it were visible).
WITH f AS (SELECT CAST(fp.snap AS pg_snapshot) AS snap, fp.head FROM fenceposts fp
            WHERE fp.viewer_id = @viewer_id AND fp.template = @template AND fp.at = @at AND fp.snap IS NOT NULL),
late AS (
    SELECT p.id, p.created_at AS arrival
      FROM f JOIN posts p ON p.xid >= pg_snapshot_xmin(f.snap)
     WHERE NOT pg_visible_in_snapshot(p.xid, f.snap) AND p.created_at <= @at AND p.created_at > @since
       AND NOT p.id = ANY(f.head)
    UNION ALL
    SELECT b.post_id, b.at
      FROM f JOIN post_bumps b ON b.xid >= pg_snapshot_xmin(f.snap)
     WHERE NOT pg_visible_in_snapshot(b.xid, f.snap) AND b.at <= @at AND b.at > @since)
SELECT l.id::bigint AS id, max(l.arrival)::timestamptz AS arrival
  FROM late l JOIN posts p ON p.id = l.id
 WHERE p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id, @blocked::bigint[], @private_feeds::bigint[])
   AND ((@author_id::bigint <> 0 AND p.author_id = @author_id::bigint AND p.in_own_feed)
     OR (@feed_id::bigint <> 0 AND EXISTS (SELECT 1 FROM feed_posts fp WHERE fp.feed_id = @feed_id::bigint AND fp.post_id = p.id))
     OR (@directs::boolean AND EXISTS (SELECT 1 FROM feed_posts fp
                                          JOIN feeds fe ON fe.id = fp.feed_id AND fe.kind = 'directs'
                                          JOIN feed_readers r ON r.feed_id = fe.id AND r.user_id = @viewer_id
                                         WHERE fp.post_id = p.id)))
 GROUP BY l.id
 ORDER BY 2 DESC, 1 DESC;

-- name: FilterLate :many
-- A filter feed's posts that arrived late for the viewer's fencepost at `at` of fence
-- `template` (as ChronoLate: entries written by a transaction its snapshot could not see,
-- dated at or before it, after since), but those in its head, as filter_arrivals lists them.
WITH f AS (SELECT CAST(fp.snap AS pg_snapshot) AS snap, fp.head FROM fenceposts fp
            WHERE fp.viewer_id = @viewer_id AND fp.template = @template AND fp.at = @at AND fp.snap IS NOT NULL)
SELECT e.post_id::bigint AS id, e.at::timestamptz AS arrival
  FROM f JOIN filter_posts e ON e.xid >= pg_snapshot_xmin(f.snap)
  JOIN posts p ON p.id = e.post_id
 WHERE e.feed = @feed AND NOT pg_visible_in_snapshot(e.xid, f.snap) AND e.at <= @at AND e.at > @since
   AND NOT e.post_id = ANY(f.head)
   AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id, @blocked::bigint[], @private_feeds::bigint[])
   AND (cardinality(@blocked::bigint[]) = 0 OR filter_shown(@feed, p.id, p.author_id, p.tags, @blocked::bigint[]))
 ORDER BY e.at DESC, e.post_id DESC;
