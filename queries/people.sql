-- name: SuggestPeople :many
-- Whom to suggest the viewer follows, best first: the people most followed by the people
-- they follow (the latest 200 of them), then active sharers of the tags they picked (the
-- latest 1,000 public posts on them since since), then trusted (VIP) members. Never the viewer, anyone they follow or
-- asked to follow, anyone in a ban with them either way, or a private account. Of the VIPs
-- only the most notable lim can be shown for being VIPs: the rest are not looked up.
WITH v AS (SELECT @viewer_id::bigint AS id, @since::timestamptz AS since),
     mine AS (SELECT f.followed_id AS id FROM follows f, v WHERE f.follower_id = v.id),
     blocked AS (SELECT b.banned_id AS id FROM bans b, v WHERE b.user_id = v.id
                 UNION ALL SELECT b.user_id FROM bans b, v WHERE b.banned_id = v.id),
     followees AS (SELECT f.followed_id AS id FROM follows f, v
                    WHERE f.follower_id = v.id AND f.state = 'active'
                    ORDER BY f.created_at DESC LIMIT 200),
     graph AS (SELECT f.followed_id AS id, count(*) AS n FROM follows f
                WHERE f.follower_id IN (SELECT id FROM followees) AND f.state = 'active'
                GROUP BY f.followed_id),
     tagged AS (SELECT r.author_id AS id, count(*) AS n
                  FROM (SELECT p.author_id FROM posts p, v
                         WHERE p.tags && ARRAY(SELECT t.tag FROM user_tags t WHERE t.user_id = v.id)
                           AND p.created_at >= v.since AND p.deleted_at IS NULL AND p.is_public
                         ORDER BY p.created_at DESC LIMIT 1000) r
                 GROUP BY r.author_id),
     trusted AS (SELECT u.id FROM users u, v
                  WHERE u.vip AND NOT u.is_private AND u.id <> v.id
                    AND u.id NOT IN (SELECT id FROM mine) AND u.id NOT IN (SELECT id FROM blocked)
                  ORDER BY u.notability DESC, u.id LIMIT @lim),
     cand AS (SELECT id, n AS by_follows, 0::bigint AS by_tags FROM graph
              UNION ALL SELECT id, 0, n FROM tagged
              UNION ALL SELECT id, 0, 0 FROM trusted),
     scored AS (SELECT c.id, sum(c.by_follows)::bigint AS by_follows, sum(c.by_tags)::bigint AS by_tags
                  FROM cand c GROUP BY c.id)
-- Each candidate looked up by id (OFFSET 0 keeps the lookup a lookup, not a join over all users).
SELECT u.id, u.handle, u.display_name, u.vip, s.by_follows, s.by_tags
  FROM scored s, v, LATERAL (SELECT x.id, x.handle, x.display_name, x.vip, x.notability, x.is_private
                               FROM users x WHERE x.id = s.id OFFSET 0) u
 WHERE u.id <> v.id AND NOT u.is_private
   AND u.id NOT IN (SELECT id FROM mine) AND u.id NOT IN (SELECT id FROM blocked)
 ORDER BY s.by_follows DESC, s.by_tags DESC, u.vip DESC, u.notability DESC, u.id
 LIMIT @lim;

-- name: SearchPeople :many
-- People whose handle or display name contains pattern (a lower-cased ILIKE pattern, which the
-- trigram indexes serve), or whose handle is exact; the exact handle first, then handles
-- starting with it. Never anyone in a ban with the viewer either way.
WITH v AS (SELECT @viewer_id::bigint AS id)
SELECT u.id, u.handle, u.display_name, u.vip,
       coalesce((SELECT f.state FROM follows f WHERE f.follower_id = v.id AND f.followed_id = u.id), '')::text AS follow_state
  FROM users u, v
 WHERE (lower(u.handle) LIKE @pattern::text OR lower(u.display_name) LIKE @pattern::text OR lower(u.handle) = @exact::text)
   AND NOT EXISTS (SELECT 1 FROM bans b WHERE (b.user_id = v.id AND b.banned_id = u.id)
                                           OR (b.user_id = u.id AND b.banned_id = v.id))
 ORDER BY lower(u.handle) = @exact::text DESC, starts_with(lower(u.handle), @exact::text) DESC,
          u.vip DESC, u.notability DESC, u.id
 LIMIT @lim;

-- name: PopularTags :many
-- The tags most used in public posts since since, offered on the first-run page.
SELECT t.tag::text AS tag, count(*)::bigint AS n
  FROM posts p, unnest(p.tags) AS t(tag)
 WHERE p.created_at >= @since AND p.deleted_at IS NULL AND p.is_public
 GROUP BY t.tag
 ORDER BY count(*) DESC, t.tag
 LIMIT @lim;

-- name: ClearUserTags :exec
DELETE FROM user_tags WHERE user_id = @user_id;

-- name: AddUserTags :exec
INSERT INTO user_tags (user_id, tag)
SELECT @user_id::bigint, t FROM unnest(@tags::text[]) AS t
ON CONFLICT DO NOTHING;

-- name: UserTags :many
SELECT tag FROM user_tags WHERE user_id = @user_id ORDER BY tag;
