-- name: UpsertAnchor :one
INSERT INTO anchors (url, kind) VALUES (@url, @kind)
ON CONFLICT (url) DO UPDATE SET url = EXCLUDED.url
RETURNING id;

-- name: PostsFeedOf :one
SELECT id FROM feeds WHERE owner_id = @owner_id AND kind = 'posts' AND name = '';

-- name: InsertPost :one
INSERT INTO posts (author_id, anchor_id, url, title, body, canonical_url, anchor_url, kind, host,
                   link_hosts, linked_urls, image_count, url_count, sci_score, tags, created_at)
VALUES (@author_id, @anchor_id, @url, @title, @body, @canonical_url, @anchor_url, @kind, @host,
        @link_hosts, @linked_urls, @image_count, @url_count, @sci_score, @tags, @created_at)
ON CONFLICT (author_id, canonical_url, created_at) DO NOTHING
RETURNING id;

-- name: InsertFeedPost :exec
INSERT INTO feed_posts (feed_id, post_id, time_ord) VALUES (@feed_id, @post_id, @time_ord)
ON CONFLICT DO NOTHING;

-- name: UserPosts :many
-- A user's page, newest first; keyset pagination on (created_at, id).
SELECT * FROM post_cards p
 WHERE p.author_id = @author_id
   AND p.deleted_at IS NULL
   AND (p.created_at, p.id) < (@before_at::timestamptz, @before_id::bigint)
 ORDER BY p.created_at DESC, p.id DESC
 LIMIT @lim;

-- name: HomePosts :many
-- Posts of the viewer and the people they follow, newest first (fanout on read).
SELECT * FROM post_cards p
 WHERE p.author_id IN (SELECT f.followed_id FROM follows f WHERE f.follower_id = @viewer_id AND f.state = 'active'
                       UNION ALL SELECT @viewer_id::bigint)
   AND p.deleted_at IS NULL
   AND (p.created_at, p.id) < (@before_at::timestamptz, @before_id::bigint)
 ORDER BY p.created_at DESC, p.id DESC
 LIMIT @lim;

-- name: RecentPublicPosts :many
-- The front page until the ranked feed exists: newest public posts.
SELECT * FROM post_cards p
 WHERE p.is_public AND p.deleted_at IS NULL
   AND (p.created_at, p.id) < (@before_at::timestamptz, @before_id::bigint)
 ORDER BY p.created_at DESC, p.id DESC
 LIMIT @lim;

-- name: CountPosts :one
SELECT count(*) FROM posts;
