-- name: PostsFeedOf :one
SELECT id FROM feeds WHERE owner_id = @owner_id AND kind = 'posts' AND name = '';

-- name: InsertPost :one
-- A share, in one statement: its item (made if new), the post with its access folded from its
-- feeds (as RecomputePostAccess folds it), and its place in each of its feeds: feed_ids, and
-- the posts feed of own_feed_of (0: none). The feeds are locked for share: a change of their
-- access (SetVisibility, a group's) waits for the share to commit, and its refold then finds
-- the post; or it committed first, and the share reads it. id is 0 when the same share exists
-- (nothing is written but the item); feeds counts the feeds found.
WITH a AS (
    INSERT INTO anchors (url, kind) VALUES (@anchor_url, @anchor_kind)
    ON CONFLICT (url) DO UPDATE SET url = EXCLUDED.url
    RETURNING id),
fs AS (
    SELECT f.id, f.owner_id, f.access, f.kind FROM feeds f
     WHERE f.id = ANY(@feed_ids::bigint[]) OR (f.owner_id = @own_feed_of::bigint AND f.kind = 'posts' AND f.name = '')
       FOR SHARE),
acc AS (
    SELECT coalesce(bool_or(fs.access = 'public'), false) AS pub,
           coalesce(array_agg(DISTINCT fs.owner_id) FILTER (WHERE fs.access = 'protected'), '{}')::bigint[] AS prot,
           coalesce(array_agg(DISTINCT fs.id) FILTER (WHERE fs.access = 'private'), '{}')::bigint[] AS priv,
           coalesce(bool_or(fs.kind = 'directs'), false) AS direct
      FROM fs),
p AS (
    INSERT INTO posts (author_id, anchor_id, url, title, body, canonical_url, anchor_url, kind, anchor_kind, host,
                       link_hosts, linked_urls, image_count, url_count, sci_score, tags, mentions, created_at, bumped_at,
                       is_public, protected_owner_ids, private_feed_ids, in_own_feed, is_direct)
    SELECT @author_id, a.id, @url, @title, @body, @canonical_url, @anchor_url, @kind, @anchor_kind, @host,
           @link_hosts, @linked_urls, @image_count, @url_count, @sci_score, @tags, @mentions, @created_at, @created_at,
           acc.pub, acc.prot, acc.priv, @own_feed_of::bigint <> 0, acc.direct
      FROM a, acc
    ON CONFLICT (author_id, canonical_url, created_at) DO NOTHING
    RETURNING id),
f AS (
    INSERT INTO feed_posts (feed_id, post_id, time_ord)
    SELECT fs.id, p.id, @created_at FROM fs, p
    ON CONFLICT DO NOTHING)
SELECT (SELECT a.id FROM a)::bigint AS anchor_id, coalesce((SELECT p.id FROM p), 0)::bigint AS id,
       (SELECT count(*) FROM fs)::integer AS feeds;

-- name: PostOfAuthor :one
-- A live post as its author edits it: none for anyone else.
SELECT id, url, title, body, tags, anchor_id FROM posts
 WHERE id = @id AND author_id = @author_id AND deleted_at IS NULL;

-- name: EditPost :one
-- An author's edit of a post's title, text and tags (its link stays); an empty title falls
-- back to the link, as a share's does. Its search vector follows (a generated column).
UPDATE posts
   SET title = CASE WHEN @title::text = '' THEN canonical_url ELSE @title::text END,
       body = @body, tags = @tags, mentions = @mentions, edited_at = @at
 WHERE id = @id AND author_id = @author_id AND deleted_at IS NULL
RETURNING anchor_id;

-- name: RefilterPost :exec
-- The filter feeds (tags, mentions) follow an edited post.
SELECT refilter_posts(ARRAY[@id::bigint]);

-- name: RecordPostEdit :exec
-- Open pages and every instance's caches hear of an edit as of a change of the post's talk:
-- each asks again for the cards that show it.
INSERT INTO site_changes (kind, ids, anchors) VALUES ('talk', ARRAY[@id::bigint], ARRAY[@anchor_id::bigint]);
