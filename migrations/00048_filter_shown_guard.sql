-- +goose Up
-- filter_arrivals (00032) asks filter_shown only of a viewer in a ban: called for every row,
-- the function's own query read some four buffers a post even when it had nothing to decide.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION filter_arrivals(feed text, from_at timestamptz, to_at timestamptz, pos_at timestamptz, pos_id bigint,
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
   AND (cardinality(blocked) = 0 OR filter_shown(filter_arrivals.feed, p.id, p.author_id, p.tags, blocked))
   AND NOT p.id = ANY (skip)
 ORDER BY f.at DESC, f.post_id DESC
 LIMIT lim
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION filter_arrivals(feed text, from_at timestamptz, to_at timestamptz, pos_at timestamptz, pos_id bigint,
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
   AND filter_shown(filter_arrivals.feed, p.id, p.author_id, p.tags, blocked)
   AND NOT p.id = ANY (skip)
 ORDER BY f.at DESC, f.post_id DESC
 LIMIT lim
$$;
-- +goose StatementEnd
