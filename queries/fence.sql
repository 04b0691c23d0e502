-- name: LatestFencepost :one
SELECT fp.* FROM fences f
  JOIN fenceposts fp ON fp.viewer_id = f.viewer_id AND fp.template = f.template AND fp.at = f.latest
 WHERE f.viewer_id = @viewer_id AND f.template = @template;

-- name: GetFencepost :one
SELECT * FROM fenceposts WHERE viewer_id = @viewer_id AND template = @template AND at = @at;

-- name: InsertFencepost :exec
INSERT INTO fenceposts (viewer_id, template, at, prev_at, head, created_at)
VALUES (@viewer_id, @template, @at, @prev_at, @head, @created_at)
ON CONFLICT (viewer_id, template, at) DO NOTHING;

-- name: AdvanceFence :exec
-- The fence only moves forward; an evicted older fencepost re-created as a plain tail does not move it back.
INSERT INTO fences (viewer_id, template, latest, used_at) VALUES (@viewer_id, @template, @latest, @used_at)
ON CONFLICT (viewer_id, template) DO UPDATE
   SET latest = greatest(fences.latest, EXCLUDED.latest), used_at = EXCLUDED.used_at;

-- name: EvictFenceposts :execrows
-- Fenceposts unused for a while go first (seed 001 - older ones before newer ones).
DELETE FROM fenceposts WHERE created_at < @before;

-- name: EvictFences :execrows
DELETE FROM fences WHERE used_at < @before;

-- name: ArrivedAnchors :many
-- Items that arrived in (from, to] - anchors with a share by the followed set in that interval,
-- with the newest such share as their arrival - ordered by arrival, newest first, after a position.
SELECT p.anchor_id, max(p.created_at)::timestamptz AS arrival
  FROM posts p
  JOIN anchors a ON a.id = p.anchor_id
 WHERE p.author_id = ANY(@followed::bigint[])
   AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[])
   AND p.created_at > @from_at AND p.created_at <= @to_at
   AND (@kind::text = '' OR a.kind = @kind::text)
   AND (@tag::text = '' OR p.tags @> ARRAY[@tag::text])
   AND NOT (p.anchor_id = ANY(@skip::bigint[]))
 GROUP BY p.anchor_id
HAVING (max(p.created_at), p.anchor_id) < (@pos_at::timestamptz, @pos_id::bigint)
 ORDER BY arrival DESC, p.anchor_id DESC
 LIMIT @lim;

-- name: SnapshotRowsByAnchors :many
SELECT * FROM feed_snapshot WHERE anchor_id = ANY(@anchor_ids::bigint[]);

-- name: ResetFences :exec
-- A changed followed set changes what the feed holds: the next first page starts afresh.
WITH gone AS (DELETE FROM fences f WHERE f.viewer_id = @viewer_id::bigint)
DELETE FROM fenceposts fp WHERE fp.viewer_id = @viewer_id::bigint;
