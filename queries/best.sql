-- name: ChooseBestOf :exec
-- Best of (seed 002's "everything / best of" river), chosen after a snapshot refresh: the
-- items most shared and discussed since a time, from the snapshot: people who shared it
-- publicly, then its public shares' comments and likes. The same list for every reader
-- (each sees the shares of it they may read; anonymous visitors only the public ones).
UPDATE snapshot_meta SET best_ids = ARRAY(
    SELECT s.anchor_id
      FROM feed_snapshot s
      LEFT JOIN anchor_talk t ON t.anchor_id = s.anchor_id
     WHERE s.any_public AND s.public_date > @since::timestamptz
     ORDER BY cardinality(s.public_sharer_ids) * 4 + coalesce(t.comments, 0) * 2 + coalesce(t.likes, 0) DESC, s.anchor_id DESC
     LIMIT @lim::int);

-- name: BestOf :one
SELECT coalesce((SELECT best_ids FROM snapshot_meta), '{}')::bigint[] AS best_ids;
