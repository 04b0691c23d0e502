-- name: SnapshotMeta :one
SELECT refreshed_at, rows FROM snapshot_meta;

-- name: SnapshotBuild :one
-- When the snapshot was last refreshed and rebuilt in full, with which weights, and whether
-- a rebuild was cut short (its next table is still there).
-- changes_xid: where the next refresh reads the users' changes from.
SELECT refreshed_at, rebuilt_at, weights, changes_xid, (to_regclass('feed_snapshot_next') IS NOT NULL)::bool AS interrupted FROM snapshot_meta;

-- name: SetSnapshotMeta :exec
-- A full rebuild's.
INSERT INTO snapshot_meta (id, refreshed_at, rows, duration_ms, rebuilt_at, weights, changes_xid)
VALUES (true, @refreshed_at, @rows, @duration_ms, @refreshed_at, @weights, @changes_xid)
ON CONFLICT (id) DO UPDATE SET refreshed_at = EXCLUDED.refreshed_at, rows = EXCLUDED.rows, duration_ms = EXCLUDED.duration_ms,
    rebuilt_at = EXCLUDED.rebuilt_at, weights = EXCLUDED.weights, changes_xid = EXCLUDED.changes_xid;

-- name: SetSnapshotRefreshed :one
-- An incremental refresh's: the rows are counted again, and returned.
UPDATE snapshot_meta SET refreshed_at = @refreshed_at, duration_ms = @duration_ms, changes_xid = @changes_xid,
       rows = (SELECT count(*) FROM feed_snapshot)
RETURNING rows;

-- name: AnchorsPostedBetween :many
-- The items whose newest live share was made in (after, until], on the posts' time index: an
-- item's row depends on the time only through its newest share (its recency bucket, and
-- whether it is in the window). The refresh asks this for each age at which a bucket turns
-- or an item leaves the window (one query each: planned with its bounds, the range is seen
-- to be short). An item shared again since is left out: its bucket did not turn (a popular
-- item, whose many shares are the costliest to roll up again, mostly is).
SELECT DISTINCT p.anchor_id FROM posts p
 WHERE p.created_at > @after::timestamptz AND p.created_at <= @until::timestamptz AND p.deleted_at IS NULL
   AND NOT EXISTS (SELECT 1 FROM posts n
                    WHERE n.anchor_id = p.anchor_id AND n.created_at > @until::timestamptz AND n.deleted_at IS NULL);

-- name: AnchorsOfChangedUsers :many
-- The items in the snapshot shared by users whose VIP flag or notability changed in
-- transactions from from_xid on (the site's change log, kept back to the last refresh:
-- PruneSite), whenever they shared them:
-- an item's row names all its sharers, and an item shared again lately is in the window
-- with its share of half a year ago.
SELECT DISTINCT p.anchor_id
  FROM posts p
 WHERE p.author_id IN (SELECT unnest(c.ids) FROM site_changes c WHERE c.kind = 'users' AND c.xid >= @from_xid::bigint)
   AND EXISTS (SELECT 1 FROM feed_snapshot f WHERE f.anchor_id = p.anchor_id);

-- name: ClearSnapshotRows :exec
-- Some items' rows go, to be written again in the same transaction, which is marked as
-- having redone them (readers' copies catch up on snapshot_dirty).
WITH gone AS (DELETE FROM feed_snapshot WHERE anchor_id = ANY(@anchor_ids::bigint[]))
INSERT INTO snapshot_dirty (anchor_id) SELECT unnest(@anchor_ids::bigint[]);

-- name: DirtySince :many
-- The items redone by transactions from from_xid on.
SELECT DISTINCT anchor_id FROM snapshot_dirty WHERE xid >= @from_xid::bigint ORDER BY anchor_id;

-- name: ForgetDirty :exec
DELETE FROM snapshot_dirty WHERE at < @before;

-- name: RefreshStart :one
-- Where a refresh starts: the time, and the oldest transaction still running (what it and
-- later ones write may be missing from what the refresh reads).
SELECT clock_timestamp()::timestamptz AS at, pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin;

-- name: PostFactsInWindow :many
-- Every live post of the items with a live share in the window, by item: what a full
-- rebuild rolls up, read row by row (dbq.EachPostFactsInWindow) in one pass over the posts
-- rather than by the index a few thousand items at a time (at 4M posts: 32 s, where the
-- items' list took 6 s and their posts 68 s).
SELECT f.* FROM post_facts f
 WHERE f.deleted_at IS NULL
   AND f.anchor_id IN (SELECT w.anchor_id FROM posts w WHERE w.created_at > @since::timestamptz AND w.deleted_at IS NULL)
 ORDER BY f.anchor_id, f.id;

-- name: PostFactsByAnchors :many
-- Every live post of some items, by item, with the audience of those not public or in groups
-- (whose cards say who can see them).
SELECT sqlc.embed(f), card_audience(f.id, f.author_id, f.is_public, f.group_feed_ids)::json AS audience
  FROM post_facts f
 WHERE f.anchor_id = ANY(@anchor_ids::bigint[]) AND f.deleted_at IS NULL
 ORDER BY f.anchor_id, f.id;

-- name: LockAnchors :exec
-- Serializes the redoing of the same anchors' rows until the transaction ends (in id order,
-- so two writers never deadlock): the later one reads the posts the earlier one wrote.
SELECT pg_advisory_xact_lock(7, (a % 2147483647)::int) FROM unnest(@anchor_ids::bigint[]) AS a ORDER BY a;
