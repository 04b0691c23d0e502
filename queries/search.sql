-- name: SearchArrivals :many
-- Search results that arrived (were posted) in (from, to], as the viewer may read them,
-- newest first after a position, with their relevance: posts whose title, text or URL match
-- the text (a to_tsquery of the english configuration), and posts with a comment that
-- matches by someone not in a ban with the viewer; both narrowed by the operators (authors:
-- any of; feeds: in any of those groups; liked, commented: liked or commented on by any of
-- those filter feeds' users; tags: every one, in the post or its comments; each as the
-- viewer's bans let them see it: filter_shown). Without text,
-- the operators alone choose (the comments' branch is folded away: each run is planned with
-- its arguments, and a constant condition goes before planning). Each branch reads in time
-- order up to lim (scope is inlined into both), so a common word stops early and a rare one
-- comes from the GIN index. Relevance is ts_rank of the rows kept only (it is the dearest
-- part of a row); a post matching by its comments alone ranks below the posts matching in
-- their own text. With any_reader, the access rule and the viewer's bans are left out: a
-- search's candidates, kept to be checked again as each reader asks (SearchAmong;
-- feed/searchcache.go), never shown as they are. (A result's rank is the same whoever reads.)
WITH scope AS NOT MATERIALIZED (
    SELECT p.id, p.created_at, p.search FROM posts p
     WHERE p.deleted_at IS NULL
       AND (@any_reader::bool OR can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[]))
       AND p.created_at > @from_at::timestamptz AND p.created_at <= @to_at::timestamptz
       AND (p.created_at, p.id) < (@pos_at::timestamptz, @pos_id::bigint)
       AND NOT p.id = ANY(@skip::bigint[])
       AND (cardinality(@authors::bigint[]) = 0 OR p.author_id = ANY(@authors::bigint[]))
       AND (cardinality(@sites::text[]) = 0 OR p.host = ANY(@sites::text[])
            OR substr(p.host, strpos(p.host, '.') + 1) = ANY(@sites::text[]))
       AND (cardinality(@feeds::bigint[]) = 0 OR EXISTS (
            SELECT 1 FROM feed_posts fp WHERE fp.post_id = p.id AND fp.feed_id = ANY(@feeds::bigint[])))
       AND (cardinality(@liked::text[]) = 0 OR EXISTS (
            SELECT 1 FROM filter_posts f WHERE f.post_id = p.id AND f.feed = ANY(@liked::text[])
               AND (@any_reader::bool OR filter_shown(f.feed, p.id, p.author_id, p.tags, @blocked::bigint[]))))
       AND (cardinality(@commented::text[]) = 0 OR EXISTS (
            SELECT 1 FROM filter_posts f WHERE f.post_id = p.id AND f.feed = ANY(@commented::text[])
               AND (@any_reader::bool OR filter_shown(f.feed, p.id, p.author_id, p.tags, @blocked::bigint[]))))
       AND (cardinality(@tags::text[]) = 0 OR NOT EXISTS (
            SELECT 1 FROM unnest(@tags::text[]) t
             WHERE NOT EXISTS (SELECT 1 FROM filter_posts f WHERE f.post_id = p.id AND f.feed = t
                                  AND (@any_reader::bool OR filter_shown(f.feed, p.id, p.author_id, p.tags, @blocked::bigint[]))))))
SELECT h.id, h.arrival,
       (CASE WHEN @text::text = '' THEN 0
             WHEN bool_or(h.in_text) THEN ts_rank((SELECT p.search FROM posts p WHERE p.id = h.id), to_tsquery('english', @text::text))
             ELSE 0.05 END)::float8 AS rank
  FROM ((SELECT s.id, s.created_at AS arrival, true AS in_text
           FROM scope s
          WHERE @text::text = '' OR s.search @@ to_tsquery('english', @text::text)
          ORDER BY s.created_at DESC, s.id DESC
          LIMIT @lim::int)
        UNION ALL
        (SELECT s.id, s.created_at AS arrival, false AS in_text
           FROM scope s
          WHERE @text::text <> ''
            AND s.id IN (SELECT c.post_id FROM comments c
                          WHERE c.search @@ to_tsquery('english', @text::text)
                            AND (@any_reader::bool OR NOT c.author_id = ANY(@blocked::bigint[])))
          ORDER BY s.created_at DESC, s.id DESC
          LIMIT @lim::int)) h
 GROUP BY h.id, h.arrival
 ORDER BY h.arrival DESC, h.id DESC
 LIMIT @lim::int;

-- name: SearchNarrowArrivals :many
-- SearchArrivals for a search that an author, group, liker or commenter narrows: the posts
-- they name are read in time order (their own indexes) and the text is checked on each,
-- in the post or in a comment on it by someone not in a ban with the viewer, with
-- ts_match_vq: the @@ operator's function, which no index serves. Planned from the text's
-- GIN index as SearchArrivals is, a common word cost more than the posts it was narrowed
-- to (from: an author's 443 posts with "model": 28 ms for the posts' bitmap, 125 ms for
-- the comments'). With any_reader, as SearchArrivals'.
WITH scope AS NOT MATERIALIZED (
    SELECT p.id, p.created_at, p.search FROM posts p
     WHERE p.deleted_at IS NULL
       AND (@any_reader::bool OR can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[]))
       AND p.created_at > @from_at::timestamptz AND p.created_at <= @to_at::timestamptz
       AND (p.created_at, p.id) < (@pos_at::timestamptz, @pos_id::bigint)
       AND NOT p.id = ANY(@skip::bigint[])
       AND (cardinality(@authors::bigint[]) = 0 OR p.author_id = ANY(@authors::bigint[]))
       AND (cardinality(@sites::text[]) = 0 OR p.host = ANY(@sites::text[])
            OR substr(p.host, strpos(p.host, '.') + 1) = ANY(@sites::text[]))
       AND (cardinality(@feeds::bigint[]) = 0 OR EXISTS (
            SELECT 1 FROM feed_posts fp WHERE fp.post_id = p.id AND fp.feed_id = ANY(@feeds::bigint[])))
       AND (cardinality(@liked::text[]) = 0 OR EXISTS (
            SELECT 1 FROM filter_posts f WHERE f.post_id = p.id AND f.feed = ANY(@liked::text[])
               AND (@any_reader::bool OR filter_shown(f.feed, p.id, p.author_id, p.tags, @blocked::bigint[]))))
       AND (cardinality(@commented::text[]) = 0 OR EXISTS (
            SELECT 1 FROM filter_posts f WHERE f.post_id = p.id AND f.feed = ANY(@commented::text[])
               AND (@any_reader::bool OR filter_shown(f.feed, p.id, p.author_id, p.tags, @blocked::bigint[]))))
       AND (cardinality(@tags::text[]) = 0 OR NOT EXISTS (
            SELECT 1 FROM unnest(@tags::text[]) t
             WHERE NOT EXISTS (SELECT 1 FROM filter_posts f WHERE f.post_id = p.id AND f.feed = t
                                  AND (@any_reader::bool OR filter_shown(f.feed, p.id, p.author_id, p.tags, @blocked::bigint[]))))))
SELECT s.id, s.created_at AS arrival,
       (CASE WHEN @text::text = '' THEN 0
             WHEN ts_match_vq(s.search, to_tsquery('english', @text::text)) THEN ts_rank(s.search, to_tsquery('english', @text::text))
             ELSE 0.05 END)::float8 AS rank
  FROM scope s
 WHERE @text::text = ''
    OR ts_match_vq(s.search, to_tsquery('english', @text::text))
    OR EXISTS (SELECT 1 FROM comments c
                WHERE c.post_id = s.id AND ts_match_vq(c.search, to_tsquery('english', @text::text))
                  AND (@any_reader::bool OR NOT c.author_id = ANY(@blocked::bigint[])))
 ORDER BY s.created_at DESC, s.id DESC
 LIMIT @lim::int;

-- name: SearchAmong :many
-- Which of some posts (a search's candidates, or the posts a committed fencepost of a search
-- lists) the viewer finds by the search now: those not deleted, that the viewer may read,
-- that still match in their text or by a comment whose author is not in a ban with the
-- viewer (no text: any), and that the liked, commented and tags operators still find as the
-- viewer's bans let them see it (filter_shown) (feed/searchcache.go: 300 in 1 ms, where the
-- search took 7). It runs on its generic plan: the text is parsed once (an InitPlan), not
-- for every row.
WITH t AS MATERIALIZED (SELECT CASE WHEN @text::text = '' THEN NULL ELSE to_tsquery('english', @text::text) END AS q)
SELECT p.id FROM posts p
 WHERE p.id = ANY(@ids::bigint[]) AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[])
   AND (@text::text = ''
        OR ts_match_vq(p.search, (SELECT t.q FROM t))
        OR EXISTS (SELECT 1 FROM comments c
                    WHERE c.post_id = p.id AND ts_match_vq(c.search, (SELECT t.q FROM t))
                      AND NOT c.author_id = ANY(@blocked::bigint[])))
   AND (cardinality(@liked::text[]) = 0 OR EXISTS (
        SELECT 1 FROM filter_posts f WHERE f.post_id = p.id AND f.feed = ANY(@liked::text[])
           AND filter_shown(f.feed, p.id, p.author_id, p.tags, @blocked::bigint[])))
   AND (cardinality(@commented::text[]) = 0 OR EXISTS (
        SELECT 1 FROM filter_posts f WHERE f.post_id = p.id AND f.feed = ANY(@commented::text[])
           AND filter_shown(f.feed, p.id, p.author_id, p.tags, @blocked::bigint[])))
   AND (cardinality(@tags::text[]) = 0 OR NOT EXISTS (
        SELECT 1 FROM unnest(@tags::text[]) tg
         WHERE NOT EXISTS (SELECT 1 FROM filter_posts f WHERE f.post_id = p.id AND f.feed = tg
                              AND filter_shown(f.feed, p.id, p.author_id, p.tags, @blocked::bigint[]))));

-- name: SearchTalkSince :one
-- Whether a comment made or edited at or after since matches the text: it may have made a
-- post older than since a result (feed/searchcache.go). Read on the comments' time indexes.
SELECT EXISTS (SELECT 1 FROM comments c
                WHERE (c.created_at >= @since::timestamptz OR c.edited_at >= @since::timestamptz)
                  AND c.search @@ to_tsquery('english', @text::text))::bool;
