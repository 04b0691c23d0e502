-- name: UpsertAnchor :one
INSERT INTO anchors (url, kind) VALUES (@url, @kind)
ON CONFLICT (url) DO UPDATE SET url = EXCLUDED.url
RETURNING id;

-- name: PostsFeedOf :one
SELECT id FROM feeds WHERE owner_id = @owner_id AND kind = 'posts' AND name = '';

-- name: InsertPost :one
-- Readable by nobody until its access is folded from its feeds, in the same transaction (so
-- the fold is not recorded as a change of access: see record_post_change).
INSERT INTO posts (author_id, anchor_id, url, title, body, canonical_url, anchor_url, kind, anchor_kind, host,
                   link_hosts, linked_urls, image_count, url_count, sci_score, tags, mentions, created_at, bumped_at, is_public)
VALUES (@author_id, @anchor_id, @url, @title, @body, @canonical_url, @anchor_url, @kind, @anchor_kind, @host,
        @link_hosts, @linked_urls, @image_count, @url_count, @sci_score, @tags, @mentions, @created_at, @created_at, false)
ON CONFLICT (author_id, canonical_url, created_at) DO NOTHING
RETURNING id;

-- name: InsertFeedPost :exec
INSERT INTO feed_posts (feed_id, post_id, time_ord) VALUES (@feed_id, @post_id, @time_ord)
ON CONFLICT DO NOTHING;

-- name: ReadablePostsOfAnchor :many
-- Every share of an item that a viewer may read, oldest first: the item page.
SELECT * FROM post_cards p
 WHERE p.anchor_id = @anchor_id AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[])
 ORDER BY p.created_at, p.id
 LIMIT 200;

-- name: ReadablePostsByID :many
-- Some posts as a viewer may read them (the rest left out), in no order.
SELECT * FROM post_cards p
 WHERE p.id = ANY(@ids::bigint[]) AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[]);
