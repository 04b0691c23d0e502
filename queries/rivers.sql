-- name: RiverArrivals :many
-- RecentArrivals served from the viewer's river (migration 00022): the interval's posts are
-- the river's inbox in (from, to] and the posts of the new_posts changes not fanned out yet,
-- read with the access rule, the viewer's follows and the filters checked again, so it
-- answers exactly what RecentArrivals or ArrivedAnchors would. When the river cannot answer
-- (none, made for an older followed set, younger than from, or a change listing no ids is
-- not fanned out yet) a row with anchor_id 0 comes last (-1: the viewer has no river) and
-- the caller reads the posts instead. Serving the river keeps it: its used_at moves at most once a minute.
-- The posts of the viewer's groups are not fanned out: they are read from the posts (by the
-- groups' index) beside the river's.
WITH g AS (SELECT @groups::bigint[] AS ids),
river AS MATERIALIZED (
    SELECT r.reader_id
      FROM home_rivers r
      JOIN users u ON u.id = r.reader_id AND u.follows_version = r.followed_version
     WHERE r.reader_id = @viewer_id::bigint AND r.since <= @from_at::timestamptz
       AND EXISTS (SELECT 1 FROM home_river_fanout)),
unfanned AS MATERIALIZED (
    SELECT c.ids
      FROM site_changes c
     WHERE c.kind = 'new_posts' AND c.xid >= (SELECT f.xid FROM home_river_fanout f)
       AND EXISTS (SELECT 1 FROM river)),
touched AS (
    UPDATE home_rivers r SET used_at = now()
     WHERE r.reader_id = (SELECT river.reader_id FROM river) AND r.used_at < now() - interval '1 minute'
    RETURNING 1),
candidates AS (
    SELECT i.post_id AS id
      FROM home_river_items i
     WHERE i.reader_id = (SELECT river.reader_id FROM river)
       AND i.arrival > @from_at::timestamptz AND i.arrival <= @to_at::timestamptz
    UNION
    SELECT p.id
      FROM unfanned u, unnest(u.ids) x(id)
      JOIN posts p ON p.id = x.id
     WHERE p.created_at > @from_at::timestamptz AND p.created_at <= @to_at::timestamptz
    UNION
    SELECT p.id
      FROM posts p, g
     WHERE p.group_feed_ids && g.ids AND EXISTS (SELECT 1 FROM river)
       AND p.created_at > @from_at::timestamptz AND p.created_at <= @to_at::timestamptz),
-- Posts are looked up by id (the candidates are in the interval already): with the interval
-- on posts.created_at here too, the planner read the whole interval by time (60 ms for a
-- heavy follower's two hours at 400k posts) to hash-join a few hundred ids.
arrived AS (
    SELECT DISTINCT ON (p.anchor_id) p.anchor_id, p.created_at AS arrival, p.anchor_kind
      FROM candidates c
      JOIN posts p ON p.id = c.id
     WHERE p.deleted_at IS NULL
       AND (((p.in_own_feed OR p.is_direct)
             AND (p.author_id = @viewer_id::bigint OR EXISTS (
                  SELECT 1 FROM follows f WHERE f.follower_id = @viewer_id::bigint AND f.followed_id = p.author_id
                     AND f.state = 'active')))
            OR p.group_feed_ids && (SELECT g.ids FROM g))
       AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint,
                    @blocked::bigint[], @private_feeds::bigint[])
       AND (@tag::text = '' OR p.tags @> ARRAY[@tag::text])
     ORDER BY p.anchor_id, p.created_at DESC, p.id DESC),
page AS (
    SELECT a.anchor_id, a.arrival FROM arrived a
     WHERE NOT (a.anchor_id = ANY(@skip::bigint[]))
       AND (@kind::text = '' OR a.anchor_kind = @kind::text)
       AND (a.arrival, a.anchor_id) < (@pos_at::timestamptz, @pos_id::bigint)
     ORDER BY a.arrival DESC, a.anchor_id DESC
     LIMIT @lim::int)
SELECT x.anchor_id, x.arrival
  FROM (SELECT page.anchor_id, page.arrival FROM page
        UNION ALL
        SELECT CASE WHEN EXISTS (SELECT 1 FROM home_rivers r WHERE r.reader_id = @viewer_id::bigint) THEN 0 ELSE -1 END,
               @from_at::timestamptz
         WHERE NOT EXISTS (SELECT 1 FROM river) OR EXISTS (SELECT 1 FROM unfanned u WHERE u.ids = '{}')) x
 ORDER BY x.arrival DESC, x.anchor_id DESC;

-- name: LockRiversShared :exec
-- Opening a river and fanning out exclude each other (the fanout takes the lock alone): a
-- share committed while a river is being filled is either in the fill or fanned out to it.
SELECT pg_advisory_xact_lock_shared(7322);

-- name: TryLockRiversFanout :one
SELECT pg_try_advisory_xact_lock(7322);

-- name: EnsureRiverFanout :exec
-- After a crash the unlogged tables come back empty, the watermark too: every river is gone
-- with it, so fanning out may start from the changes still running.
INSERT INTO home_river_fanout (xid) VALUES (pg_snapshot_xmin(pg_current_snapshot())::text::bigint)
ON CONFLICT (one) DO NOTHING;

-- name: OpenRiver :one
-- A river for reader over (since, now], for their followed set as it is now, filled with its
-- posts: one statement, so that the version stamped and the follows read are the same. It
-- runs under LockRiversShared, after ClearRiver.
WITH r AS (
    INSERT INTO home_rivers (reader_id, since, followed_version)
    SELECT u.id, @since::timestamptz, u.follows_version FROM users u WHERE u.id = @reader_id::bigint
    ON CONFLICT (reader_id) DO UPDATE
       SET since = excluded.since, followed_version = excluded.followed_version, used_at = now(),
           created_at = now(), rebuild_to = NULL, rebuild_version = NULL
    RETURNING reader_id),
ins AS (
    INSERT INTO home_river_items (reader_id, arrival, post_id)
    SELECT @reader_id::bigint, p.created_at, p.id
      FROM posts p
     WHERE p.created_at > @since::timestamptz
       AND p.deleted_at IS NULL
       AND (p.author_id = @reader_id::bigint OR p.author_id IN (
            SELECT f.followed_id FROM follows f WHERE f.follower_id = @reader_id::bigint AND f.state = 'active'))
       AND EXISTS (SELECT 1 FROM r)
    ON CONFLICT DO NOTHING
    RETURNING 1)
SELECT count(*)::int FROM ins;

-- name: LockReaderFollows :exec
-- Waits for a change of the reader's follows in progress (its trigger moved their version),
-- and makes the next one wait for this transaction: see enqueueRebuild.
SELECT 1 FROM users WHERE id = $1 FOR SHARE;

-- name: ClearRiver :exec
DELETE FROM home_river_items WHERE reader_id = $1;

-- name: RiverFanoutMark :one
SELECT f.xid FROM home_river_fanout f FOR UPDATE;

-- name: SetRiverFanoutMark :exec
UPDATE home_river_fanout SET xid = @xid::bigint;

-- name: UnfannedPosts :many
-- The ids of the new_posts changes from xid on (an empty array: a change too large to list).
SELECT c.ids FROM site_changes c WHERE c.kind = 'new_posts' AND c.xid >= @xid::bigint;

-- name: FanOutPosts :execrows
-- Fanout on write: each post goes into the rivers of its author and of their active
-- followers, those that exist (the active readers), when it is younger than the river.
INSERT INTO home_river_items (reader_id, arrival, post_id)
SELECT r.reader_id, p.created_at, p.id
  FROM posts p
 CROSS JOIN LATERAL (SELECT p.author_id AS reader_id
                     UNION ALL
                     SELECT f.follower_id FROM follows f WHERE f.followed_id = p.author_id AND f.state = 'active') fr
  JOIN home_rivers r ON r.reader_id = fr.reader_id
 WHERE p.id = ANY(@ids::bigint[]) AND p.deleted_at IS NULL AND p.created_at > r.since
ON CONFLICT DO NOTHING;

-- name: DropAllRivers :execrows
-- A change too large to list new posts (an import): the rivers cannot know what it brought.
WITH d AS (DELETE FROM home_river_items RETURNING 1)
DELETE FROM home_rivers;

-- name: SweepRivers :execrows
-- Rivers not read since before: their readers are no longer active.
WITH gone AS (DELETE FROM home_rivers r WHERE r.used_at < @before::timestamptz RETURNING r.reader_id)
DELETE FROM home_river_items i USING gone g WHERE i.reader_id = g.reader_id;

-- name: TrimRivers :execrows
-- The depth cap: a river holding more than depth items keeps its newest ones and starts
-- after the next (its since moves up; older intervals are read by fanout on read).
WITH deep AS (
    SELECT r.reader_id,
           (SELECT i.arrival FROM home_river_items i WHERE i.reader_id = r.reader_id
             ORDER BY i.arrival DESC, i.post_id DESC OFFSET @depth::int LIMIT 1) AS cut
      FROM home_rivers r),
moved AS (
    UPDATE home_rivers r SET since = d.cut
      FROM deep d
     WHERE r.reader_id = d.reader_id AND d.cut > r.since
    RETURNING r.reader_id, r.since)
DELETE FROM home_river_items i USING moved m WHERE i.reader_id = m.reader_id AND i.arrival <= m.since;

-- name: RiverStats :one
SELECT (SELECT count(*) FROM home_rivers)::bigint AS rivers,
       (SELECT count(*) FROM home_river_items)::bigint AS items,
       (pg_total_relation_size('home_river_items') + pg_total_relation_size('home_rivers'))::bigint AS bytes;
