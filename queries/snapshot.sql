-- name: SnapshotMeta :one
SELECT refreshed_at, rows FROM snapshot_meta;

-- name: SetSnapshotMeta :exec
INSERT INTO snapshot_meta (id, refreshed_at, rows, duration_ms) VALUES (true, @refreshed_at, @rows, @duration_ms)
ON CONFLICT (id) DO UPDATE SET refreshed_at = EXCLUDED.refreshed_at, rows = EXCLUDED.rows, duration_ms = EXCLUDED.duration_ms;

-- name: DeleteSnapshotRows :exec
DELETE FROM feed_snapshot WHERE anchor_id = ANY(@anchor_ids::bigint[]);

-- name: MarkDirty :exec
INSERT INTO snapshot_dirty (anchor_id) SELECT unnest(@anchor_ids::bigint[]);

-- name: DirtySince :many
SELECT DISTINCT anchor_id FROM snapshot_dirty WHERE at >= @since ORDER BY anchor_id;

-- name: ForgetDirty :exec
DELETE FROM snapshot_dirty WHERE at < @before;

-- name: ClockNow :one
SELECT clock_timestamp()::timestamptz;

-- name: AnchorsInWindow :many
-- Anchors with a live share in the window, in id order: what a refresh rolls up.
SELECT DISTINCT anchor_id FROM posts WHERE created_at > @since AND deleted_at IS NULL ORDER BY anchor_id;

-- name: PostFactsByAnchors :many
-- Every live post of some anchors, with what RollupOf needs.
SELECT p.id, p.anchor_id, a.url AS anchor_url, a.kind AS anchor_kind, p.url, p.canonical_url, p.title, p.body,
       p.host, p.linked_urls, p.image_count, p.url_count, p.sci_score, p.tags, p.created_at,
       u.id AS author_id, u.handle, u.display_name, u.vip, u.notability,
       p.is_public, p.protected_owner_ids, p.private_feed_ids
  FROM posts p
  JOIN users u ON u.id = p.author_id
  JOIN anchors a ON a.id = p.anchor_id
 WHERE p.anchor_id = ANY(@anchor_ids::bigint[]) AND p.deleted_at IS NULL
 ORDER BY p.anchor_id, p.id;

-- name: LockAnchors :exec
-- Serializes the redoing of the same anchors' rows until the transaction ends (in id order,
-- so two writers never deadlock): the later one reads the posts the earlier one wrote.
SELECT pg_advisory_xact_lock(7, (a % 2147483647)::int) FROM unnest(@anchor_ids::bigint[]) AS a ORDER BY a;
