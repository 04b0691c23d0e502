-- A river's reconstruction after its reader's follows change (db.RebuildRiver, a durable job).

-- name: FillRiver :one
-- One block of a river's fill, newest first: the reader's and their followees' posts in
-- (since, to], at most lim. It returns how many it read and the oldest arrival among them
-- (the next block's to).
WITH r AS (SELECT h.since FROM home_rivers h WHERE h.reader_id = @reader_id::bigint),
block AS (
    SELECT p.id, p.created_at
      FROM posts p
     WHERE p.created_at > (SELECT r.since FROM r) AND p.created_at <= @to_at::timestamptz
       AND p.deleted_at IS NULL
       AND (p.author_id = @reader_id::bigint OR p.author_id IN (
            SELECT f.followed_id FROM follows f WHERE f.follower_id = @reader_id::bigint AND f.state = 'active'))
     ORDER BY p.created_at DESC, p.id DESC
     LIMIT @lim::int),
ins AS (
    INSERT INTO home_river_items (reader_id, arrival, post_id)
    SELECT @reader_id::bigint, b.created_at, b.id FROM block b
    ON CONFLICT DO NOTHING
    RETURNING 1)
SELECT count(*)::int AS n, coalesce(min(b.created_at), '-infinity')::timestamptz AS oldest,
       (SELECT count(*) FROM ins)::int AS added
  FROM block b;

-- name: RiverState :one
-- A river's state for its reconstruction: the followed set it was made for and the one now.
SELECT r.followed_version, u.follows_version, r.rebuild_to, r.rebuild_version, r.since
  FROM home_rivers r JOIN users u ON u.id = r.reader_id
 WHERE r.reader_id = $1;

-- name: SetRiverRebuild :exec
UPDATE home_rivers SET rebuild_to = sqlc.narg(rebuild_to)::timestamptz, rebuild_version = sqlc.narg(version)::bigint
 WHERE reader_id = @reader_id::bigint;

-- name: FinishRiverRebuild :execrows
-- The reconstruction is done for version: unfollowed authors' posts leave the inbox and the
-- river serves again, unless the followed set moved on meanwhile (then it goes on).
WITH stale AS (
    DELETE FROM home_river_items i
     USING posts p
     WHERE i.reader_id = @reader_id::bigint AND p.id = i.post_id AND p.author_id <> @reader_id::bigint
       AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = @reader_id::bigint
                          AND f.followed_id = p.author_id AND f.state = 'active'))
UPDATE home_rivers r SET followed_version = @version::bigint, rebuild_to = NULL, rebuild_version = NULL
  FROM users u
 WHERE r.reader_id = @reader_id::bigint AND u.id = r.reader_id AND u.follows_version = @version::bigint;

-- name: HasRiver :one
SELECT EXISTS (SELECT 1 FROM home_rivers WHERE reader_id = $1);
