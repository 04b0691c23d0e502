-- name: CursorKeys :many
-- The keys that sign and check cursors, newest (the signing one) first.
SELECT id, secret, created_at FROM cursor_keys ORDER BY id DESC;

-- name: AddCursorKey :one
INSERT INTO cursor_keys (secret) VALUES (@secret) RETURNING id, secret, created_at;

-- name: LockCursorKeys :exec
-- Serializes the first start of several instances: one of them makes the first key.
SELECT pg_advisory_xact_lock(hashtext('tributary.cursor_keys'));

-- name: DropCursorKeysBefore :execrows
-- Keys superseded before before no longer check cursors (the newest key is always kept).
DELETE FROM cursor_keys k
 WHERE EXISTS (SELECT 1 FROM cursor_keys n WHERE n.id > k.id AND n.created_at < @before::timestamptz);

-- name: SiteChangesFrom :many
-- The changes recorded by transactions from from_xid on (to_xid: the largest), in the order
-- they were made; the caller remembers which it applied, as a transaction still running may
-- commit more later. The listener runs it on its generic plan (db.PrepareListener): a range
-- between two parameters keeps the xid index there, where an open-ended one read the table
-- whole (110 ms at 113,000 changes).
SELECT id, xid, kind, ids, anchors, readers FROM site_changes WHERE xid BETWEEN @from_xid::bigint AND @to_xid::bigint ORDER BY id;

-- name: SiteXmin :one
-- The oldest transaction still running: every change of an older one is visible now.
SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin;

-- name: WakeSite :one
-- Wakes every instance's listener with a new token (outside any write transaction).
SELECT n::bigint AS token, pg_notify('tributary_site', n::text) FROM nextval('site_wake_seq') AS n;

-- name: WakeToken :one
SELECT coalesce(pg_sequence_last_value('site_wake_seq'::regclass), 0)::bigint AS token;

-- name: SiteInstanceSeen :exec
-- An instance is alive and has caught up after wake-up acked (never moves back).
INSERT INTO site_instances AS i (id, acked) VALUES (@id, @acked)
ON CONFLICT (id) DO UPDATE SET acked = greatest(i.acked, excluded.acked), seen_at = now();

-- name: SiteInstanceGone :exec
DELETE FROM site_instances WHERE id = @id;

-- name: SiteLagging :one
-- How many instances heard of in the last alive_secs seconds (the database's clock) have
-- not caught up after wake-up token.
SELECT count(*) FROM site_instances
 WHERE seen_at >= now() - make_interval(0, 0, 0, 0, 0, 0, @alive_secs::float8) AND acked < @token::bigint;

-- name: PruneSite :execrows
-- Changes are kept back to the last snapshot refresh too: the next one reads the users'.
-- New posts not fanned out to the rivers yet are kept as well.
-- (LEAST leaves out a NULL: before alone when there is none.)
WITH c AS (DELETE FROM site_changes
            WHERE at < LEAST(@before::timestamptz, (SELECT m.refreshed_at - interval '1 minute' FROM snapshot_meta m))
              -- and the new posts the rivers still read beside their inboxes (00022)
              AND NOT (kind = 'new_posts' AND xid >= coalesce((SELECT f.xid FROM home_river_fanout f), 0))
              -- and the users' changes the next snapshot refresh reads
              AND NOT (kind = 'users' AND xid >= coalesce((SELECT m.changes_xid FROM snapshot_meta m), 0))
           RETURNING 1),
     i AS (DELETE FROM site_instances WHERE seen_at < @before::timestamptz RETURNING 1)
SELECT (SELECT count(*) FROM c) + (SELECT count(*) FROM i);

-- name: SiteLSN :one
-- Where the primary's WAL is now: every change read before is replayed by a replica that
-- has passed it.
SELECT pg_current_wal_lsn()::text AS lsn;
