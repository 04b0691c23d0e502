-- name: SnapshotRanking :many
-- The ranking columns of the snapshot's rows (all of them, or only_ids), with what the
-- logged-in path filters on, in score order: the feed service keeps them in memory
-- (feed/rankindex.go) and reads again the rows redone since.
SELECT s.anchor_id, s.score, s.sharer_user_ids, s.date, s.url, s.primary_user_id, s.all_public,
       s.any_public, s.protected_owner_ids, s.private_feed_ids, s.kind, s.tags, s.group_ids
  FROM feed_snapshot s
 WHERE cardinality(@only_ids::bigint[]) = 0 OR s.anchor_id = ANY(@only_ids::bigint[])
 ORDER BY s.score DESC, s.date DESC, s.anchor_id;
