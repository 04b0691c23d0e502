-- name: VIPIDs :many
SELECT id FROM users WHERE vip ORDER BY id;

-- name: SnapshotAmong :many
-- The ranking columns (as SnapshotScan) of some anchors that pass the filters and the
-- viewer's access: the viewer's fresh shares, which the fresh-self boost can lift to the top
-- wherever their stored score is. Each parameter appears once (v) because sqlc mis-rewrites
-- a repeated array parameter.
WITH v AS (SELECT @kind::text AS kind, @tag::text AS tag,
                  @viewer_id::bigint AS viewer_id, @blocked::bigint[] AS blocked,
                  @private_feeds::bigint[] AS private_feeds, @hidden_ids::bigint[] AS hidden,
                  @only_ids::bigint[] AS only)
SELECT s.anchor_id, s.score, s.sharer_user_ids, s.date, s.url, s.primary_user_id, s.all_public, s.group_ids
  FROM feed_snapshot s, v
 WHERE s.anchor_id = ANY(v.only)
   AND can_read(s.any_public, s.protected_owner_ids, s.private_feed_ids, v.viewer_id, v.blocked, v.private_feeds)
   AND (v.kind = '' OR s.kind = v.kind)
   AND (v.tag = '' OR s.tags @> ARRAY[v.tag])
   AND s.date >= @since AND s.date < @until
   AND NOT (s.anchor_id = ANY(v.hidden));

-- name: SnapshotFeedAnon :many
-- Snapshot path, anonymous: anchors a VIP shared publicly, straight off the partial index.
SELECT s.*
  FROM feed_snapshot s
 WHERE s.any_vip_sharer
   AND (sqlc.arg(kind)::text = '' OR s.kind = sqlc.arg(kind)::text)
   AND (sqlc.arg(tag)::text = '' OR s.tags @> ARRAY[sqlc.arg(tag)::text])
   AND s.public_date >= @since::timestamptz AND s.public_date < @until::timestamptz
 ORDER BY s.score DESC, s.public_date DESC, s.url
 LIMIT @lim;

-- name: LiveCandidates :many
-- Live path, first layers: the most recent shares of the followed set, and the most recent
-- posts in the viewer's groups, that the viewer may read (candidates), grouped per anchor
-- with how many followees shared it (url_share).
WITH v AS (SELECT @followed::bigint[] AS followed, @groups::bigint[] AS groups, @viewer_id::bigint AS viewer_id,
                  @blocked::bigint[] AS blocked, @private_feeds::bigint[] AS private_feeds,
                  @kind::text AS kind, @tag::text AS tag, @since::timestamptz AS since,
                  @until::timestamptz AS until, @cand_limit::int AS cand_limit),
candidates AS (
    (SELECT p.anchor_id, p.author_id
      FROM posts p, v
     WHERE p.author_id = ANY(v.followed)
       AND p.deleted_at IS NULL AND (p.in_own_feed OR p.is_direct)
       AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, v.viewer_id, v.blocked, v.private_feeds)
       AND p.created_at >= v.since AND p.created_at < v.until
       AND (v.kind = '' OR p.anchor_kind = v.kind)
       AND (v.tag = '' OR p.tags @> ARRAY[v.tag])
     ORDER BY p.created_at DESC, p.id DESC
     LIMIT (SELECT cand_limit FROM v))
    UNION ALL
    -- A post reaches a group's members' home feeds (seed 003), whoever wrote it.
    (SELECT p.anchor_id, 0::bigint
      FROM v, feed_posts fp JOIN posts p ON p.id = fp.post_id
     WHERE fp.feed_id = ANY(v.groups)
       AND p.deleted_at IS NULL
       AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, v.viewer_id, v.blocked, v.private_feeds)
       AND p.created_at >= v.since AND p.created_at < v.until
       AND (v.kind = '' OR p.anchor_kind = v.kind)
       AND (v.tag = '' OR p.tags @> ARRAY[v.tag])
     ORDER BY p.created_at DESC, p.id DESC
     LIMIT (SELECT cand_limit FROM v)))
SELECT anchor_id, count(DISTINCT author_id) FILTER (WHERE author_id <> 0)::integer AS followee_share
  FROM candidates
 GROUP BY anchor_id;

-- name: SnapshotScan :many
-- The snapshot in score order, the ranking columns only (not what only a card shows), for
-- large followed sets: many rows have a followee among their sharers, so Go filters them by
-- the followed set (or the viewer's groups), where the array overlap operator would compare
-- every pair.
WITH v AS (SELECT @kind::text AS kind, @tag::text AS tag, @viewer_id::bigint AS viewer_id,
                  @blocked::bigint[] AS blocked, @private_feeds::bigint[] AS private_feeds,
                  @hidden_ids::bigint[] AS hidden)
SELECT s.anchor_id, s.score, s.sharer_user_ids, s.date, s.url, s.primary_user_id, s.all_public, s.group_ids
  FROM feed_snapshot s, v
 WHERE can_read(s.any_public, s.protected_owner_ids, s.private_feed_ids, v.viewer_id, v.blocked, v.private_feeds)
   AND (v.kind = '' OR s.kind = v.kind)
   AND (v.tag = '' OR s.tags @> ARRAY[v.tag])
   AND s.date >= @since AND s.date < @until
   AND NOT (s.anchor_id = ANY(v.hidden))
 ORDER BY s.score DESC, s.date DESC, s.anchor_id
 LIMIT @lim OFFSET @off;

-- name: SnapshotMatches :many
-- The ranking columns of every anchor shared by a small followed set or in the viewer's
-- groups (GIN overlaps), for Go to rank exactly; only the items a page shows are then read
-- in full.
WITH v AS (SELECT @followed::bigint[] AS followed, @groups::bigint[] AS groups, @kind::text AS kind, @tag::text AS tag,
                  @viewer_id::bigint AS viewer_id, @blocked::bigint[] AS blocked,
                  @private_feeds::bigint[] AS private_feeds, @hidden_ids::bigint[] AS hidden)
SELECT s.anchor_id, s.score, s.sharer_user_ids, s.date, s.url, s.primary_user_id, s.all_public, s.group_ids
  FROM feed_snapshot s, v
 WHERE (s.sharer_user_ids && v.followed OR s.group_ids && v.groups)
   AND can_read(s.any_public, s.protected_owner_ids, s.private_feed_ids, v.viewer_id, v.blocked, v.private_feeds)
   AND (v.kind = '' OR s.kind = v.kind)
   AND (v.tag = '' OR s.tags @> ARRAY[v.tag])
   AND s.date >= @since AND s.date < @until
   AND NOT (s.anchor_id = ANY(v.hidden))
 ORDER BY s.score DESC, s.date DESC, s.anchor_id
 LIMIT @lim;
