-- Posts as a reader may read them: an item's shares, a page's posts, a post's page and
-- thread, the posts a live stream names.

-- name: ReadablePostsOfAnchor :many
-- A page of the shares of an item that a viewer may read, oldest first from the skip-th, with
-- what their cards show of their conversations (post_talk) and audiences (card_audience), and
-- how many shares and sharers the viewer may read in all: the item page.
WITH readable AS (
    SELECT x.id, x.author_id, x.created_at FROM posts x
     WHERE x.anchor_id = @anchor_id AND x.deleted_at IS NULL
       AND can_read(x.is_public, x.protected_owner_ids, x.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[])),
counted AS (SELECT count(*)::integer AS shares, count(DISTINCT r.author_id)::integer AS sharers FROM readable r),
page AS (SELECT r.id FROM readable r ORDER BY r.created_at, r.id OFFSET @skip::int LIMIT @lim::int)
SELECT sqlc.embed(p), t.likes::integer AS likes, t.comments::integer AS comments, t.liked::boolean AS liked, t.likers::json AS likers,
       card_audience(p.id, p.author_id, p.is_public, p.group_feed_ids)::json AS audience, c.shares, c.sharers
  FROM page JOIN post_cards p ON p.id = page.id CROSS JOIN counted c,
       post_talk(p.id, p.like_count, p.comment_count, @viewer_id::bigint, @blocked::bigint[]) AS t (likes, comments, liked, likers)
 ORDER BY p.created_at, p.id;

-- name: ReadablePostsByID :many
-- Some posts as a viewer may read them (the rest left out), in no order, with what their
-- cards show of their conversations (post_talk): a page's posts in one round trip. Given a
-- filter feed, only those still in it (an unliked post leaves a likes feed that a fencepost
-- listed) and shown to the viewer (filter_shown: bans); each post's entry is probed (OFFSET 0 keeps the subquery a per-row probe: as a
-- semi-join its generic plan merged the whole feed in, 40,000 entries of a popular tag,
-- 6.5 ms).
SELECT sqlc.embed(p), t.likes::integer AS likes, t.comments::integer AS comments, t.liked::boolean AS liked, t.likers::json AS likers,
       card_audience(p.id, p.author_id, p.is_public, p.group_feed_ids)::json AS audience
  FROM post_cards p, post_talk(p.id, p.like_count, p.comment_count, @viewer_id::bigint, @blocked::bigint[]) AS t (likes, comments, liked, likers)
 WHERE p.id = ANY(@ids::bigint[]) AND p.deleted_at IS NULL
   AND (@feed::text = '' OR EXISTS (SELECT 1 FROM filter_posts f WHERE f.feed = @feed::text AND f.post_id = p.id
                                       AND filter_shown(f.feed, p.id, p.author_id, p.tags, @blocked::bigint[]) OFFSET 0))
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[]);

-- name: PostPage :one
-- A post as a viewer may read it (ReadablePost: no row when it does not exist, is deleted or
-- is not theirs to read) with what its page shows of its conversation but the thread, in one
-- round trip: the card's talk (post_talk) and the newest likers the viewer sees as Likers
-- lists them (page_likers: [[id, handle, name, vip], ...]).
SELECT sqlc.embed(p), t.likes::integer AS likes, t.comments::integer AS comments, t.liked::boolean AS liked, t.likers::json AS likers,
       coalesce((SELECT json_agg(json_build_array(u.id, u.handle, u.display_name, u.vip) ORDER BY k.created_at DESC, u.id)
                   FROM (SELECT l.user_id, l.created_at FROM likes l
                          WHERE l.post_id = p.id AND NOT l.user_id = ANY(@blocked::bigint[])
                          ORDER BY l.created_at DESC, l.user_id LIMIT @likers::int) k
                   JOIN users u ON u.id = k.user_id), '[]')::json AS page_likers
  FROM post_cards p, post_talk(p.id, p.like_count, p.comment_count, @viewer_id::bigint, @blocked::bigint[]) AS t (likes, comments, liked, likers)
 WHERE p.id = @id AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[]);

-- name: PostThread :many
-- A page of a post's thread, from a comment on ((from_at, from_id); the start: the zero
-- time and 0), oldest first, at most lim comments, with the post's access checked in the same
-- statement: none when the post does not exist, is deleted or is not the viewer's to read.
-- The post page reads it beside PostPage, at once. The check is a one-time filter (it names
-- no comment column): a post the viewer may not read costs no read of its comments, however
-- long its thread, so its answer takes as long as that for no post.
SELECT c.id, c.body, c.created_at, c.edited_at,
       u.id AS author_id, u.handle AS author_handle, u.display_name AS author_name, u.vip AS author_vip
  FROM comments c JOIN users u ON u.id = c.author_id
 WHERE c.post_id = @post_id AND NOT c.author_id = ANY(@blocked::bigint[])
   AND (c.created_at, c.id) >= (@from_at::timestamptz, @from_id::bigint)
   AND EXISTS (SELECT 1 FROM posts p
                WHERE p.id = @post_id AND p.deleted_at IS NULL
                  AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[]))
 ORDER BY c.created_at, c.id
 LIMIT @lim::int;

-- name: LivePosts :many
-- Some posts' items, authors and access (deleted ones left out): what live streams check
-- each reader against before telling them that the posts' talk changed, or asking whether
-- new posts are new to them; and whether each is in a group (its members' home feeds).
SELECT p.id, p.anchor_id, p.author_id, p.is_public, p.protected_owner_ids, p.private_feed_ids,
       EXISTS (SELECT 1 FROM feed_posts fp JOIN feeds f ON f.id = fp.feed_id
                WHERE fp.post_id = p.id AND f.kind = 'group') AS in_group
  FROM posts p
 WHERE p.id = ANY(@ids::bigint[]) AND p.deleted_at IS NULL;
