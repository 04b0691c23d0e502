-- +goose Up
-- filter_shown says whether a filter feed's entry may be shown to a viewer in a ban (either
-- way) with the users of blocked, as comments are hidden between them: a user's likes and
-- comments (l:, c:) not at all; a post in a tag or mentions feed (t:, m:) only when the
-- post itself tags or mentions (a mention by its author only when the author is not in a
-- ban with the viewer) or a comment by someone not in a ban with the viewer does. The feed
-- alone decides for l: and c: (a one-time check for a whole feed's read); a single SQL
-- expression, inlined where it is called.
-- +goose StatementBegin
CREATE FUNCTION filter_shown(f_feed text, f_post bigint, f_author bigint, f_tags text[], f_blocked bigint[])
RETURNS boolean LANGUAGE sql STABLE AS $$
SELECT cardinality(f_blocked) = 0 OR CASE left(f_feed, 2)
    WHEN 'l:' THEN NOT substr(f_feed, 3)::bigint = ANY (f_blocked)
    WHEN 'c:' THEN NOT substr(f_feed, 3)::bigint = ANY (f_blocked)
    WHEN 't:' THEN substr(f_feed, 3) = ANY (f_tags) OR EXISTS (
        SELECT 1 FROM comments c
         WHERE c.post_id = f_post AND substr(f_feed, 3) = ANY (c.tags) AND NOT c.author_id = ANY (f_blocked))
    WHEN 'm:' THEN EXISTS (
        SELECT 1 FROM users u
         WHERE u.id = substr(f_feed, 3)::bigint
           AND ((NOT f_author = ANY (f_blocked) AND EXISTS (
                    SELECT 1 FROM posts q WHERE q.id = f_post AND lower(u.handle) = ANY (q.mentions)))
                OR EXISTS (SELECT 1 FROM comments c
                            WHERE c.post_id = f_post AND lower(u.handle) = ANY (c.mentions) AND NOT c.author_id = ANY (f_blocked))))
    ELSE true END
$$;

-- filter_arrivals (00026) with filter_shown: a filter feed's arrivals as a viewer may read
-- them, and as their bans let them see the activity that brought them.
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
   AND NOT p.id = ANY (skip)
 ORDER BY f.at DESC, f.post_id DESC
 LIMIT lim
$$;
-- +goose StatementEnd
DROP FUNCTION filter_shown;
