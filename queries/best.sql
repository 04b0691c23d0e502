-- name: BestOf :many
-- Best of (seed 002's "everything / best of" river): the items most shared and discussed
-- since a time, for everyone, from the snapshot: people who shared it publicly, then its
-- public shares' comments and likes. The same list for every reader (each sees the shares
-- they may read of it; anonymous visitors only the public ones).
SELECT s.anchor_id
  FROM feed_snapshot s
  LEFT JOIN anchor_talk t ON t.anchor_id = s.anchor_id
 WHERE s.any_public AND s.public_date > @since::timestamptz
 ORDER BY cardinality(s.public_sharer_ids) * 4 + coalesce(t.comments, 0) * 2 + coalesce(t.likes, 0) DESC, s.anchor_id DESC
 LIMIT @lim::int;
