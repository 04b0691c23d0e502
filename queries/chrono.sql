-- name: ChronoArrivals :many
-- A chronological feed's posts that arrived in (from, to], as the viewer may read them,
-- newest arrival first after a position: a user's own feed (author_id), a group's (feed_id) or
-- the viewer's directs (directs). A post arrives when it is made and again when a comment
-- bumps it; it is listed at its last arrival up to `to`, so a bump after `to` leaves the
-- interval as it was. Each scope is a branch of its own that runs only when asked for (a
-- one-time filter), so one generic plan serves them all: planning it for its arguments took
-- 6-8 ms a call, and an OR of the scopes hid the author's index (a scan of every post).
WITH v AS NOT MATERIALIZED (SELECT @author_id::bigint AS author_id, @feed_id::bigint AS feed_id, @directs::boolean AS directs,
                  @viewer_id::bigint AS viewer_id, @blocked::bigint[] AS blocked,
                  @private_feeds::bigint[] AS private_feeds, @skip::bigint[] AS skip,
                  @from_at::timestamptz AS from_at, @to_at::timestamptz AS to_at,
                  @pos_at::timestamptz AS pos_at, @pos_id::bigint AS pos_id),
scope AS NOT MATERIALIZED (
    SELECT p.id, p.bumped_at, p.created_at
      FROM v JOIN posts p ON p.author_id = v.author_id
     WHERE v.author_id <> 0 AND p.in_own_feed
       AND p.deleted_at IS NULL
       AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, v.viewer_id, v.blocked, v.private_feeds)
       AND NOT p.id = ANY(v.skip)
       AND p.created_at <= v.to_at
    UNION ALL
    SELECT p.id, p.bumped_at, p.created_at
      FROM v JOIN feed_posts fp ON fp.feed_id = v.feed_id JOIN posts p ON p.id = fp.post_id
     WHERE v.feed_id <> 0
       AND p.deleted_at IS NULL
       AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, v.viewer_id, v.blocked, v.private_feeds)
       AND NOT p.id = ANY(v.skip)
       AND p.created_at <= v.to_at
    UNION ALL
    -- The directs are read from the viewer's directs feeds (each direct is a feed of its own),
    -- never by testing every post: a reader with none reads nothing.
    SELECT p.id, p.bumped_at, p.created_at
      FROM v
      JOIN feed_readers r ON r.user_id = v.viewer_id
      JOIN feeds f ON f.id = r.feed_id AND f.kind = 'directs'
      JOIN feed_posts fp ON fp.feed_id = f.id
      JOIN posts p ON p.id = fp.post_id
     WHERE v.directs
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
-- A filter feed's arrivals in an interval after a position (filter_arrivals).
SELECT a.post_id::bigint AS id, a.arrival::timestamptz AS arrival
  FROM filter_arrivals(@feed::text, @from_at::timestamptz, @to_at::timestamptz, @pos_at::timestamptz, @pos_id::bigint,
                       @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[], @skip::bigint[], @lim::int) AS a (post_id, arrival);

-- name: FilterArrivalPosts :many
-- FilterArrivals with each post as the viewer may read it and what its card shows of its
-- conversation (post_talk): a filter feed's page listed and read in one statement. Listed
-- now, the posts are in the feed and readable now, so they need no second read.
SELECT a.arrival::timestamptz AS arrival, sqlc.embed(p), t.likes::integer AS likes, t.comments::integer AS comments,
       t.liked::boolean AS liked, t.likers::json AS likers, card_audience(p.id, p.author_id, p.is_public, p.group_feed_ids)::json AS audience
  FROM filter_arrivals(@feed::text, @from_at::timestamptz, @to_at::timestamptz, @pos_at::timestamptz, @pos_id::bigint,
                       @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[], @skip::bigint[], @lim::int) AS a (post_id, arrival)
  JOIN post_cards p ON p.id = a.post_id,
       post_talk(p.id, p.like_count, p.comment_count, @viewer_id::bigint, @blocked::bigint[]) AS t (likes, comments, liked, likers)
 ORDER BY a.arrival DESC, a.post_id DESC;

-- name: ApplyFilterBumps :one
-- Moves queued bumps into the discussions holding their posts (apply_filter_bumps).
SELECT apply_filter_bumps()::bigint AS posts;
