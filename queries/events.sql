-- name: InsertEvents :copyfrom
INSERT INTO events (viewer_id, type, anchor_id, dwell_ms, created_at) VALUES (@viewer_id, @type, @anchor_id, @dwell_ms, @created_at);

-- name: ReadableAnchors :many
-- Items among ids with a live post the viewer may read.
SELECT DISTINCT p.anchor_id FROM posts p
 WHERE p.anchor_id = ANY(@ids::bigint[]) AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[]);
