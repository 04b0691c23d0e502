-- +goose Up
-- Who a post's card says can see it, beyond its author's own feed: the groups it went to and
-- the people a direct went to ([{id, kind, access, name, title, to: [handle, ...]}, ...]),
-- for every reader alike; each reader's card keeps the feeds they may know of
-- (tributary.AudienceOf). Two probes on the post's feeds, inlined into the query that reads
-- the post's row, so a page's cards come with it.
-- +goose StatementBegin
CREATE FUNCTION post_audience(aud_post bigint, aud_author bigint) RETURNS json LANGUAGE sql STABLE AS $$
SELECT coalesce(json_agg(json_build_object('id', f.id, 'kind', f.kind, 'access', f.access, 'name', f.name,
                                           'title', f.title, 'to', coalesce(d.handles, '[]'::json)) ORDER BY f.id), '[]'::json)
  FROM feed_posts fp
  JOIN feeds f ON f.id = fp.feed_id AND f.kind IN ('group', 'directs')
  LEFT JOIN LATERAL (SELECT json_agg(u.handle ORDER BY u.handle) AS handles
                       FROM feed_readers r JOIN users u ON u.id = r.user_id
                      WHERE f.kind = 'directs' AND r.feed_id = f.id AND r.user_id <> aud_author) d ON true
 WHERE fp.post_id = aud_post
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION post_audience;
