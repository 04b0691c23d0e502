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
