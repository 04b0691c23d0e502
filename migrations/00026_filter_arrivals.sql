-- +goose Up
-- A filter feed's posts (filter_posts.feed) that arrived in (from_at, to_at], as a viewer may
-- read them, newest arrival first after a position (pos_at, pos_id), but those in skip: one
-- index, the access rule on each post. A post that arrived again after to_at (liked again,
-- bumped in a discussion) has left the interval and is listed in a newer one. Defined once
-- for FilterArrivals (the ids, as notices count them) and FilterArrivalPosts (the posts a
-- page shows, read with them); a single-SELECT SQL function that is neither strict nor
-- volatile, so PostgreSQL inlines it into each.
-- +goose StatementBegin
CREATE FUNCTION filter_arrivals(feed text, from_at timestamptz, to_at timestamptz, pos_at timestamptz, pos_id bigint,
                                viewer_id bigint, blocked bigint[], readable_private bigint[], skip bigint[], lim integer)
RETURNS TABLE (post_id bigint, arrival timestamptz) LANGUAGE sql STABLE AS $$
SELECT f.post_id, f.at
  FROM filter_posts f
  JOIN posts p ON p.id = f.post_id
 WHERE f.feed = filter_arrivals.feed
   AND f.at > from_at AND f.at <= to_at
   AND (f.at, f.post_id) < (pos_at, pos_id)
   AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, viewer_id, blocked, readable_private)
   AND NOT p.id = ANY (skip)
 ORDER BY f.at DESC, f.post_id DESC
 LIMIT lim
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION filter_arrivals;
