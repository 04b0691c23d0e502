-- name: LatestFencepost :one
SELECT fp.* FROM fences f
  JOIN fenceposts fp ON fp.viewer_id = f.viewer_id AND fp.template = f.template AND fp.at = f.latest
 WHERE f.viewer_id = @viewer_id AND f.template = @template;

-- name: FencepostsFrom :many
-- The fencepost at at and the older ones of its fence, newest first, until their heads hold
-- items for a page (the last one may hold more; at most 32 fenceposts): a page crossing a
-- chain of short fenceposts, left by a reader who came back for each new share, reads them
-- in one round trip rather than one each. Rows of another chain (two tabs that committed
-- from the same fencepost) may come too: the caller follows prev_at, never the order.
SELECT x.at, x.prev_at, x.head, x.snap FROM (
    SELECT f.at, f.prev_at, f.head, f.snap, sum(cardinality(f.head)) OVER (ORDER BY f.at DESC) - cardinality(f.head) AS before
      FROM fenceposts f
     WHERE f.viewer_id = @viewer_id AND f.template = @template AND f.at <= @at
     ORDER BY f.at DESC
     LIMIT 32) x
 WHERE x.before < sqlc.arg(items)::bigint
 ORDER BY x.at DESC;

-- name: CommitFencepost :exec
-- A fencepost, and its fence moved forward to it, in one statement (atomic, one round trip).
-- The fence only moves forward; an evicted older fencepost re-created as a plain tail does
-- not move it back.
WITH fp AS (
    INSERT INTO fenceposts (viewer_id, template, at, prev_at, head, created_at, snap)
    VALUES (@viewer_id, @template, @at, @prev_at, @head, @created_at, NULLIF(@snap::text, ''))
    ON CONFLICT (viewer_id, template, at) DO NOTHING)
INSERT INTO fences (viewer_id, template, latest, used_at) VALUES (@viewer_id, @template, @at, @created_at)
ON CONFLICT (viewer_id, template) DO UPDATE
   SET latest = greatest(fences.latest, EXCLUDED.latest), used_at = EXCLUDED.used_at;

-- name: EvictFenceposts :execrows
-- Fenceposts unused for a while go first (seed 001 - older ones before newer ones).
DELETE FROM fenceposts WHERE created_at < @before;

-- name: EvictFences :execrows
DELETE FROM fences WHERE used_at < @before;

-- name: SnapshotRowsByAnchors :many
-- Full rows but for public_sharer_ids, which no read needs, and for the sharer_user_ids that
-- the caller knows (from the ranking copy) or that no read uses (a row not all public is
-- rolled up again from the posts the viewer may read): for the most shared items the two
-- id arrays are most of a row, and they grow with the site (at 4M posts, a heavy follower's
-- first 20 items have 12,000 sharers; reading them was two thirds of this query).
SELECT anchor_id, anchor_url, kind, date, public_date, score, sci_score, total_share,
       CASE WHEN all_public AND anchor_id <> ALL(@known_sharers::bigint[]) THEN sharer_user_ids ELSE '{}'::bigint[] END::bigint[] AS sharer_user_ids,
       '{}'::bigint[] AS public_sharer_ids, any_vip_sharer, all_public, any_public, protected_owner_ids,
       private_feed_ids, rep_post_id, url, canonical_url, title, excerpt, host, links, image_count, url_count,
       primary_user_id, primary_vip, primary_notability, tags, sharers, refreshed_at, group_ids
  FROM feed_snapshot WHERE anchor_id = ANY(@anchor_ids::bigint[]);

-- name: ResetFences :exec
-- A changed followed set changes what the feed holds: the next first page starts afresh.
WITH gone AS (DELETE FROM fences f WHERE f.viewer_id = @viewer_id::bigint)
DELETE FROM fenceposts fp WHERE fp.viewer_id = @viewer_id::bigint;

-- name: SnapshotScoreInputs :many
-- What scoring needs of some snapshot rows, without the columns that only a card shows: the
-- live path ranks its candidates on these and reads the best in full.
SELECT anchor_id, all_public, date, sci_score, total_share, primary_vip, primary_notability,
       image_count, sharer_user_ids
  FROM feed_snapshot
 WHERE anchor_id = ANY(@anchor_ids::bigint[]);

-- name: CurrentSnapshot :one
-- The snapshot a fencepost's reads see, kept with it (fenceposts.snap) for LateCommitted.
SELECT pg_current_snapshot()::text AS snap;

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
