-- name: InsertEvents :copyfrom
INSERT INTO events (viewer_id, type, anchor_id, dwell_ms, created_at) VALUES (@viewer_id, @type, @anchor_id, @dwell_ms, @created_at);

-- name: KnownAnchors :many
SELECT id FROM anchors WHERE id = ANY(@ids::bigint[]);
