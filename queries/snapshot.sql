-- name: RollupByAnchors :many
SELECT * FROM anchor_rollup WHERE anchor_id = ANY(@anchor_ids::bigint[]);

-- name: RollupSince :many
SELECT * FROM anchor_rollup WHERE date > @since;

-- name: SnapshotMeta :one
SELECT refreshed_at, rows FROM snapshot_meta;

-- name: SetSnapshotMeta :exec
INSERT INTO snapshot_meta (id, refreshed_at, rows, duration_ms) VALUES (true, @refreshed_at, @rows, @duration_ms)
ON CONFLICT (id) DO UPDATE SET refreshed_at = EXCLUDED.refreshed_at, rows = EXCLUDED.rows, duration_ms = EXCLUDED.duration_ms;

-- name: DeleteSnapshotRows :exec
DELETE FROM feed_snapshot WHERE anchor_id = ANY(@anchor_ids::bigint[]);

-- name: AnchorsPostedSince :many
SELECT DISTINCT anchor_id FROM posts WHERE created_at >= @since;

-- name: AnchorsOfAuthor :many
SELECT DISTINCT anchor_id FROM posts WHERE author_id = @author_id;
