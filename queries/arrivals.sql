-- name: ArrivedAnchors :many
-- Items that arrived in (from, to]: anchors with a share by the followed set, or a post in
-- one of the viewer's groups (seed 003), that the viewer may read, arriving at their newest such share, newest arrival first, after a position.
-- Posts are read newest first and a post counts only when no newer share of its anchor in
-- the interval does, so no grouping over the whole interval is needed. With by_follows the
-- followed set is the viewer and their active followees, read from follows (a hash built
-- once) rather than passed: planning a large constant array costs more than running the
-- query. PostgreSQL plans each execution with its arguments, so the branch not taken is
-- folded away before planning.
WITH v AS (SELECT @followed::bigint[] AS followed, @groups::bigint[] AS groups, @by_follows::boolean AS by_follows, @viewer_id::bigint AS viewer_id,
                  @blocked::bigint[] AS blocked, @private_feeds::bigint[] AS private_feeds,
                  @skip::bigint[] AS skip, @kind::text AS kind, @tag::text AS tag,
                  @from_at::timestamptz AS from_at, @to_at::timestamptz AS to_at)
SELECT p.anchor_id, p.created_at AS arrival
  FROM posts p, v
 WHERE ((((NOT v.by_follows AND p.author_id = ANY(v.followed))
         OR (v.by_follows AND (p.author_id = v.viewer_id OR p.author_id IN (
             SELECT f.followed_id FROM follows f WHERE f.follower_id = v.viewer_id AND f.state = 'active'))))
        AND (p.in_own_feed OR p.is_direct))
       OR p.group_feed_ids && v.groups)
   AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, v.viewer_id, v.blocked, v.private_feeds)
   AND p.created_at > v.from_at AND p.created_at <= v.to_at
   AND (p.created_at, p.anchor_id) < (@pos_at::timestamptz, @pos_id::bigint)
   AND NOT (p.anchor_id = ANY(v.skip))
   AND (v.kind = '' OR p.anchor_kind = v.kind)
   AND (v.tag = '' OR p.tags @> ARRAY[v.tag])
   AND NOT EXISTS (
        SELECT 1 FROM posts q
         WHERE q.anchor_id = p.anchor_id
           AND q.created_at >= p.created_at AND q.created_at <= v.to_at
           AND (q.created_at, q.id) > (p.created_at, p.id)
           AND q.deleted_at IS NULL
           AND ((((NOT v.by_follows AND q.author_id = ANY(v.followed))
                  OR (v.by_follows AND (q.author_id = v.viewer_id OR EXISTS (
                      SELECT 1 FROM follows f WHERE f.follower_id = v.viewer_id AND f.followed_id = q.author_id
                         AND f.state = 'active'))))
                 AND (q.in_own_feed OR q.is_direct))
                OR q.group_feed_ids && v.groups)
           AND can_read(q.is_public, q.protected_owner_ids, q.private_feed_ids, v.viewer_id, v.blocked, v.private_feeds)
           AND (v.tag = '' OR q.tags @> ARRAY[v.tag]))
 ORDER BY p.created_at DESC, p.anchor_id DESC
 LIMIT @lim;

-- name: RecentArrivals :many
-- ArrivedAnchors for an interval that holds few posts, as a return after a while finds: the
-- interval's posts are read in time order, at most scan of them, and filtered on the way.
-- Its plan is the same whatever the arguments, so it runs on its generic plan (db/plans.go,
-- forcedGeneric), planned once per connection: ArrivedAnchors spent 0.85 ms planning
-- (estimating the set against the statistics of posts.author_id) to run in 0.05 ms. When the
-- interval holds more than scan posts, a row with anchor_id 0 (at from_at, before every
-- arrival) comes last and the caller asks ArrivedAnchors instead. With by_follows each post's
-- author is looked up in follows: a generic plan tests = ANY of an array parameter element by
-- element (500 posts against 2,000 followees: 4.5 ms, where the lookups take 1.5 ms, and
-- 0.1 ms for the few posts of a short return).
WITH recent AS MATERIALIZED (
    SELECT p.id, p.anchor_id, p.author_id, p.created_at, p.anchor_kind, p.tags,
           p.is_public, p.protected_owner_ids, p.private_feed_ids, p.in_own_feed OR p.is_direct AS to_followers,
           p.group_feed_ids
      FROM posts p
     WHERE p.created_at > @from_at::timestamptz AND p.created_at <= @to_at::timestamptz
       AND p.deleted_at IS NULL
     ORDER BY p.created_at DESC, p.id DESC
     LIMIT sqlc.arg(scan)::int + 1),
arrived AS (
    SELECT DISTINCT ON (r.anchor_id) r.anchor_id, r.created_at AS arrival, r.anchor_kind
      FROM recent r
     WHERE ((r.to_followers AND CASE WHEN @by_follows::boolean
                 THEN r.author_id = @viewer_id::bigint OR EXISTS (
                      SELECT 1 FROM follows f WHERE f.follower_id = @viewer_id::bigint AND f.followed_id = r.author_id
                         AND f.state = 'active')
                 ELSE r.author_id = ANY(@followed::bigint[]) END)
            OR r.group_feed_ids && @groups::bigint[])
       AND can_read(r.is_public, r.protected_owner_ids, r.private_feed_ids, @viewer_id::bigint,
                    @blocked::bigint[], @private_feeds::bigint[])
       AND (@tag::text = '' OR r.tags @> ARRAY[@tag::text])
     ORDER BY r.anchor_id, r.created_at DESC, r.id DESC),
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
        SELECT 0::bigint, @from_at::timestamptz WHERE (SELECT count(*) FROM recent) > @scan::int) x
 ORDER BY x.arrival DESC, x.anchor_id DESC;
