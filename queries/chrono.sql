-- name: ChronoArrivals :many
-- A chronological feed's posts that arrived in (from, to], as the viewer may read them,
-- newest arrival first after a position: a user's posts (author_id), a group's (feed_id) or
-- the viewer's directs (directs). A post arrives when it is made and again when a comment
-- bumps it; it is listed at its last arrival up to `to`, so a bump after `to` leaves the
-- interval as it was. The scope not asked for is folded away when planned (each run is
-- planned with its arguments).
WITH v AS (SELECT @author_id::bigint AS author_id, @feed_id::bigint AS feed_id, @directs::boolean AS directs,
                  @viewer_id::bigint AS viewer_id, @blocked::bigint[] AS blocked,
                  @private_feeds::bigint[] AS private_feeds, @skip::bigint[] AS skip,
                  @from_at::timestamptz AS from_at, @to_at::timestamptz AS to_at,
                  @pos_at::timestamptz AS pos_at, @pos_id::bigint AS pos_id),
scope AS NOT MATERIALIZED (
    SELECT p.id, p.bumped_at, p.created_at
      FROM posts p, v
     WHERE (v.author_id = 0 OR p.author_id = v.author_id)
       AND (v.feed_id = 0 OR p.id IN (SELECT fp.post_id FROM feed_posts fp WHERE fp.feed_id = v.feed_id))
       AND (NOT v.directs OR p.id IN (SELECT fp.post_id FROM feed_posts fp
                                        JOIN feeds f ON f.id = fp.feed_id AND f.kind = 'directs'
                                        JOIN feed_readers r ON r.feed_id = f.id
                                       WHERE r.user_id = v.viewer_id))
       AND p.deleted_at IS NULL
       AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, v.viewer_id, v.blocked, v.private_feeds)
       AND NOT p.id = ANY(v.skip)
       AND p.created_at <= v.to_at),
stayed AS (
    SELECT s.id, s.bumped_at AS arrival FROM scope s, v
     WHERE s.bumped_at > v.from_at AND s.bumped_at <= v.to_at
       AND (s.bumped_at, s.id) < (v.pos_at, v.pos_id)
     ORDER BY s.bumped_at DESC, s.id DESC
     LIMIT @lim::int),
moved AS (
    SELECT s.id, b.at AS arrival
      FROM scope s, v,
           LATERAL (SELECT b.at FROM post_bumps b WHERE b.post_id = s.id AND b.at <= v.to_at
                     ORDER BY b.at DESC LIMIT 1) b
     WHERE s.bumped_at > v.to_at
       AND b.at > v.from_at AND (b.at, s.id) < (v.pos_at, v.pos_id))
SELECT x.id, x.arrival::timestamptz AS arrival
  FROM (SELECT stayed.id, stayed.arrival FROM stayed UNION ALL SELECT moved.id, moved.arrival FROM moved) x
 ORDER BY x.arrival DESC, x.id DESC
 LIMIT @lim::int;

-- name: FilterArrivals :many
-- A filter feed's posts (filter_posts.feed) that arrived in (from, to], as the viewer may
-- read them, newest arrival first after a position: one index, the access rule on each post.
-- A post that arrived again after `to` (liked again, bumped in a discussion) has left the
-- interval and is listed in a newer one.
SELECT f.post_id AS id, f.at AS arrival
  FROM filter_posts f
  JOIN posts p ON p.id = f.post_id
 WHERE f.feed = @feed::text
   AND f.at > @from_at::timestamptz AND f.at <= @to_at::timestamptz
   AND (f.at, f.post_id) < (@pos_at::timestamptz, @pos_id::bigint)
   AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[])
   AND NOT p.id = ANY (@skip::bigint[])
 ORDER BY f.at DESC, f.post_id DESC
 LIMIT @lim::int;

-- name: ApplyFilterBumps :one
-- Moves queued bumps into the discussions holding their posts (apply_filter_bumps).
SELECT apply_filter_bumps()::bigint AS posts;
