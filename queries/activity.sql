-- Activity in the home feed: items that arrive by the likes and comments of the people a
-- reader follows (seed 003: a friend feed subscribes to friends' likes and comments).

-- name: ActivityArrivals :many
-- Items that arrived in (from, to] by the activity of the viewer's followees: a readable post
-- one of them liked or commented on, arriving at the latest such like or comment (their
-- likes and comments feeds' places), newest first after a position, with who and how. The
-- interval's likes and comments are read newest first, at most 2,000 of them (the site's,
-- not only the followees': one index range, whatever the number of followees; probing 2,000
-- followees' feeds took 28 ms), and filtered on the way. The 2,000 is a constant: on its
-- generic plan a LIMIT given as a parameter is taken for a tenth of the index (2.4M rows at
-- 4M posts), and each run then cost 21-44 ms before reading a row (0.1 ms with the constant). With by_follows the followees are
-- read from follows; without, they are the followed set passed (a list's members, or the
-- followees less an exclusive list's members).
WITH acts AS MATERIALIZED (
    SELECT fp.feed, fp.post_id, fp.at FROM filter_posts fp
     WHERE (fp.feed LIKE 'l:%' OR fp.feed LIKE 'c:%')
       AND fp.at > @from_at::timestamptz AND fp.at <= @to_at::timestamptz
     ORDER BY fp.at DESC
     LIMIT 2000),
followed AS (
    SELECT substr(a.feed, 3)::bigint AS user_id, a.feed LIKE 'c:%' AS commented, a.post_id, a.at FROM acts a
     WHERE CASE WHEN @by_follows::boolean
                THEN EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = @viewer_id::bigint
                                AND f.followed_id = substr(a.feed, 3)::bigint AND f.state = 'active')
                ELSE substr(a.feed, 3)::bigint = ANY(@followed::bigint[]) END),
items AS (
    SELECT DISTINCT ON (p.anchor_id) p.anchor_id, a.at, a.user_id, a.commented
      FROM followed a
      JOIN posts p ON p.id = a.post_id
     WHERE p.deleted_at IS NULL
       AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[])
       AND NOT (p.anchor_id = ANY(@skip::bigint[]))
       AND (@kind::text = '' OR p.anchor_kind = @kind::text)
       AND (@tag::text = '' OR p.tags @> ARRAY[@tag::text])
       -- An item a followee (or the viewer) shared in the interval, or posted in one of the
       -- viewer's groups, arrives by that share (ArrivedAnchors): the two lists never hold
       -- the same item.
       AND NOT EXISTS (
            SELECT 1 FROM posts q
             WHERE q.anchor_id = p.anchor_id AND q.created_at > @from_at::timestamptz AND q.created_at <= @to_at::timestamptz
               AND q.deleted_at IS NULL
               AND (((q.in_own_feed OR q.is_direct)
                     AND CASE WHEN @by_follows::boolean
                              THEN q.author_id = @viewer_id::bigint OR EXISTS (
                                   SELECT 1 FROM follows f2 WHERE f2.follower_id = @viewer_id::bigint AND f2.followed_id = q.author_id
                                      AND f2.state = 'active')
                              ELSE q.author_id = ANY(@followed::bigint[]) END)
                    OR q.group_feed_ids && @groups::bigint[])
               AND can_read(q.is_public, q.protected_owner_ids, q.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[])
               AND (@tag::text = '' OR q.tags @> ARRAY[@tag::text]))
     ORDER BY p.anchor_id, a.at DESC, a.commented DESC)
SELECT i.anchor_id, i.at AS arrival, i.commented::boolean AS commented, u.id AS user_id, u.handle, u.display_name, u.vip
  FROM items i JOIN users u ON u.id = i.user_id
 WHERE (i.at, i.anchor_id) < (@pos_at::timestamptz, @pos_id::bigint)
 ORDER BY i.at DESC, i.anchor_id DESC
 LIMIT @lim::int;

-- name: ActivityReasons :many
-- For some items, the latest like or comment of one of the viewer's followees on a readable
-- post of theirs, up to `to`: why an item that arrived by activity is in the home feed
-- (followees read from follows with by_follows, else the followed set passed).
SELECT DISTINCT ON (p.anchor_id) p.anchor_id, fp.at, (fp.feed LIKE 'c:%')::boolean AS commented,
       u.id AS user_id, u.handle, u.display_name, u.vip
  FROM posts p
  JOIN filter_posts fp ON fp.post_id = p.id AND (fp.feed LIKE 'l:%' OR fp.feed LIKE 'c:%') AND fp.at <= @to_at::timestamptz
  JOIN (SELECT f.followed_id AS id FROM follows f
         WHERE @by_follows::boolean AND f.follower_id = @viewer_id::bigint AND f.state = 'active'
        UNION ALL
        SELECT unnest(@followed::bigint[]) WHERE NOT @by_follows::boolean) a ON a.id = substr(fp.feed, 3)::bigint
  JOIN users u ON u.id = a.id
 WHERE p.anchor_id = ANY(@anchor_ids::bigint[])
   AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[])
 ORDER BY p.anchor_id, fp.at DESC, fp.feed;

-- name: SetHomeActivity :exec
UPDATE users SET home_activity = @home_activity WHERE id = @id;

-- name: ActivityLate :many
-- ActivityArrivals' late ones (ArrivedQuery.Late): the followees' likes and comments on
-- readable posts written by a transaction the snapshot prev could not see, dated at or
-- before at (after since), each item at its latest such like or comment, with who and how
-- (issue 44.17). Bounded by the xid index from prev's xmin (all before it were visible).
WITH acts AS MATERIALIZED (
    SELECT fp.feed, fp.post_id, fp.at FROM filter_posts fp
     WHERE fp.xid >= pg_snapshot_xmin(CAST(@prev::text AS pg_snapshot))
       AND NOT pg_visible_in_snapshot(fp.xid, CAST(@prev::text AS pg_snapshot))
       AND (fp.feed LIKE 'l:%' OR fp.feed LIKE 'c:%')
       AND fp.at <= @at::timestamptz AND fp.at > @since::timestamptz),
followed AS (
    SELECT substr(a.feed, 3)::bigint AS user_id, a.feed LIKE 'c:%' AS commented, a.post_id, a.at FROM acts a
     WHERE CASE WHEN @by_follows::boolean
                THEN EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = @viewer_id::bigint
                                AND f.followed_id = substr(a.feed, 3)::bigint AND f.state = 'active')
                ELSE substr(a.feed, 3)::bigint = ANY(@followed::bigint[]) END)
SELECT DISTINCT ON (p.anchor_id) p.anchor_id, a.at AS arrival, a.commented::boolean AS commented,
       u.id AS user_id, u.handle, u.display_name, u.vip
  FROM followed a
  JOIN posts p ON p.id = a.post_id
  JOIN users u ON u.id = a.user_id
 WHERE p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[])
   AND (@kind::text = '' OR p.anchor_kind = @kind::text)
   AND (@tag::text = '' OR p.tags @> ARRAY[@tag::text])
 ORDER BY p.anchor_id, a.at DESC, a.commented DESC;
