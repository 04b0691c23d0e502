-- name: ReadablePost :one
-- A post as a viewer may read it: none when it does not exist, is deleted or is not theirs
-- to read (one answer for all three).
SELECT * FROM post_cards p
 WHERE p.id = @id AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[]);

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

-- name: Like :one
-- A like by a viewer of a post they may read; a second like is a no-op. readable is 0 when
-- the post is not theirs to read (nothing is stored then).
WITH p AS (
    SELECT po.id, po.anchor_id, po.is_public FROM posts po
     WHERE po.id = @post_id AND po.deleted_at IS NULL
       AND can_read(po.is_public, po.protected_owner_ids, po.private_feed_ids, @user_id::bigint, @blocked::bigint[], @private_feeds::bigint[])),
ins AS (
    INSERT INTO likes (post_id, user_id, anchor_id, public, created_at) SELECT p.id, @user_id::bigint, p.anchor_id, p.is_public, @at FROM p
    ON CONFLICT DO NOTHING
    RETURNING post_id),
upd AS (
    UPDATE posts SET like_count = like_count + 1 WHERE posts.id IN (SELECT ins.post_id FROM ins) RETURNING posts.id)
SELECT (SELECT count(*) FROM p)::int AS readable, (SELECT count(*) FROM upd)::int AS added;

-- name: Unlike :one
-- Takes a like back; unliking what was not liked is a no-op.
WITH p AS (
    SELECT po.id FROM posts po
     WHERE po.id = @post_id AND po.deleted_at IS NULL
       AND can_read(po.is_public, po.protected_owner_ids, po.private_feed_ids, @user_id::bigint, @blocked::bigint[], @private_feeds::bigint[])),
del AS (
    DELETE FROM likes l USING p WHERE l.post_id = p.id AND l.user_id = @user_id::bigint
    RETURNING l.post_id),
upd AS (
    UPDATE posts SET like_count = like_count - 1 WHERE posts.id IN (SELECT del.post_id FROM del) RETURNING posts.id)
SELECT (SELECT count(*) FROM p)::int AS readable, (SELECT count(*) FROM upd)::int AS removed;

-- name: AddComment :one
-- A comment on a post the author may read, in one statement (one round trip, atomic): stored,
-- counted on the post, and bumping the post when the rule says so (tributary.BumpRule, seed
-- 003): the post is younger than the rule's age, or got at least busy comments since the
-- window began before this one (so more than busy with it). A bump gives the post a new ord
-- from the one global sequence in every feed holding it and a new arrival; the arrival it
-- had is logged first (once), so fenceposts committed before the bump still list the post
-- where it was. No row when the post is not the author's to read: nothing is stored.
WITH p AS (
    SELECT po.id, po.anchor_id, po.created_at, po.bumped_at FROM posts po
     WHERE po.id = @post_id AND po.deleted_at IS NULL
       AND can_read(po.is_public, po.protected_owner_ids, po.private_feed_ids, @author_id::bigint, @blocked::bigint[], @private_feeds::bigint[])),
due AS (
    SELECT p.id, p.bumped_at FROM p
     WHERE p.created_at > @young_since::timestamptz
        OR (SELECT count(*) FROM (SELECT 1 FROM comments x WHERE x.post_id = p.id AND x.created_at > @since::timestamptz
                                   LIMIT @busy::int) recent) >= @busy::int),
c AS (
    INSERT INTO comments (post_id, author_id, anchor_id, body, created_at)
    SELECT p.id, @author_id::bigint, p.anchor_id, @body, @at FROM p
    RETURNING comments.id, comments.created_at),
o AS MATERIALIZED (SELECT nextval('feed_posts_ord_seq') AS ord FROM due),
prev AS (
    INSERT INTO post_bumps (post_id, at, ord)
    SELECT due.id, due.bumped_at, coalesce((SELECT max(fp.ord) FROM feed_posts fp WHERE fp.post_id = due.id), 0) FROM due
    ON CONFLICT DO NOTHING),
moved AS (
    UPDATE feed_posts fp SET ord = o.ord FROM o WHERE fp.post_id = @post_id),
logged AS (
    INSERT INTO post_bumps (post_id, at, ord) SELECT @post_id, @at, o.ord FROM o),
counted AS (
    UPDATE posts SET comment_count = comment_count + 1,
                     bumped_at = CASE WHEN EXISTS (SELECT 1 FROM due) THEN @at ELSE posts.bumped_at END
     WHERE posts.id IN (SELECT p.id FROM p)
    RETURNING posts.id)
SELECT c.id, c.created_at, EXISTS (SELECT 1 FROM due) AS bumped FROM c;

-- name: CommentForAction :one
-- A comment, its post's author, and whether the viewer may read the post: what deciding an
-- edit or a deletion needs.
SELECT c.id, c.post_id, c.author_id, c.body, p.author_id AS post_author_id,
       (p.deleted_at IS NULL AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids,
                                          @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[]))::boolean AS readable
  FROM comments c JOIN posts p ON p.id = c.post_id
 WHERE c.id = @id;

-- name: EditComment :exec
UPDATE comments SET body = @body, edited_at = @at WHERE id = @id;

-- name: DeleteComment :exec
WITH del AS (DELETE FROM comments c WHERE c.id = @id RETURNING c.post_id)
UPDATE posts SET comment_count = comment_count - 1 WHERE posts.id IN (SELECT del.post_id FROM del);

-- name: Thread :many
-- The comments of some posts that a viewer sees (none by someone in a ban with them), in
-- order.
SELECT c.id, c.post_id, c.body, c.created_at, c.edited_at,
       u.id AS author_id, u.handle AS author_handle, u.display_name AS author_name, u.vip AS author_vip
  FROM comments c JOIN users u ON u.id = c.author_id
 WHERE c.post_id = ANY(@post_ids::bigint[])
   AND NOT c.author_id = ANY(@blocked::bigint[])
 ORDER BY c.post_id, c.created_at, c.id;

-- name: Likers :many
-- Who liked a post, as a viewer sees them, newest first.
SELECT u.id, u.handle, u.display_name, u.vip
  FROM likes l JOIN users u ON u.id = l.user_id
 WHERE l.post_id = @post_id AND NOT l.user_id = ANY(@blocked::bigint[])
 ORDER BY l.created_at DESC, u.id
 LIMIT @lim;

-- name: PostTalk :many
-- What cards show of the conversation of some posts, as a viewer sees it: likes and comments
-- (leaving out those by people in a ban with the viewer), whether the viewer liked it, and
-- the newest few likers. The posts are ones the viewer may read.
WITH v AS (SELECT @viewer_id::bigint AS viewer_id, @blocked::bigint[] AS blocked)
SELECT p.id,
       (p.like_count - (SELECT count(*) FROM likes l WHERE l.post_id = p.id AND l.user_id = ANY(v.blocked)))::int AS likes,
       (p.comment_count - (SELECT count(*) FROM comments c WHERE c.post_id = p.id AND c.author_id = ANY(v.blocked)))::int AS comments,
       (p.like_count > 0 AND EXISTS (SELECT 1 FROM likes l WHERE l.post_id = p.id AND l.user_id = v.viewer_id))::boolean AS liked,
       coalesce((SELECT json_agg(json_build_array(u.id, u.handle, u.display_name) ORDER BY k.created_at DESC)
                   FROM (SELECT l.user_id, l.created_at FROM likes l
                          WHERE l.post_id = p.id AND NOT l.user_id = ANY(v.blocked) AND l.user_id <> v.viewer_id
                          ORDER BY l.created_at DESC LIMIT 3) k
                   JOIN users u ON u.id = k.user_id), '[]')::json AS likers
  FROM posts p, v
 WHERE p.id = ANY(@ids::bigint[]);

-- name: AnchorTalk :many
-- PostTalk summed over each item's shares that the viewer may read: the counts of an item
-- card. Each item costs a few index probes whatever its number of shares: the counts of its
-- public shares are kept in anchor_talk; the viewer's readable shares that are not public
-- (few) are added, the likes and comments of people in a ban with the viewer on readable
-- shares taken away, and the viewer's like found by the item's id on likes. The likers named
-- are those among the item's 12 newest likes on public shares (likes.public), by their
-- newest like: no post is read. liked_post is the share the viewer liked (0: none).
WITH v AS (SELECT @viewer_id::bigint AS viewer_id, @blocked::bigint[] AS blocked,
                  @private_feeds::bigint[] AS private_feeds, @anchor_ids::bigint[] AS anchors),
a AS (SELECT DISTINCT unnest(v.anchors) AS anchor_id FROM v)
SELECT a.anchor_id::bigint AS anchor_id,
       (coalesce(t.likes, 0) + coalesce(x.likes, 0) - bl.n)::int AS likes,
       (coalesce(t.comments, 0) + coalesce(x.comments, 0) - bc.n)::int AS comments,
       coalesce(lk.post_id, 0)::bigint AS liked_post,
       coalesce(lr.likers, '[]')::json AS likers
  FROM a CROSS JOIN v
  LEFT JOIN anchor_talk t ON t.anchor_id = a.anchor_id
  LEFT JOIN LATERAL (
        SELECT sum(p.like_count) AS likes, sum(p.comment_count) AS comments
          FROM posts p
         WHERE v.viewer_id > 0 AND p.anchor_id = a.anchor_id AND NOT p.is_public AND p.deleted_at IS NULL
           AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, v.viewer_id, v.blocked, v.private_feeds)) x ON true
  CROSS JOIN LATERAL (
        SELECT count(*) AS n
          FROM likes l JOIN posts p ON p.id = l.post_id
         WHERE l.user_id = ANY(v.blocked) AND l.anchor_id = a.anchor_id AND p.deleted_at IS NULL
           AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, v.viewer_id, v.blocked, v.private_feeds)) bl
  CROSS JOIN LATERAL (
        SELECT count(*) AS n
          FROM comments c JOIN posts p ON p.id = c.post_id
         WHERE c.author_id = ANY(v.blocked) AND c.anchor_id = a.anchor_id AND p.deleted_at IS NULL
           AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, v.viewer_id, v.blocked, v.private_feeds)) bc
  LEFT JOIN LATERAL (
        SELECT min(l.post_id) AS post_id
          FROM likes l JOIN posts p ON p.id = l.post_id
         WHERE v.viewer_id > 0 AND l.user_id = v.viewer_id AND l.anchor_id = a.anchor_id AND p.deleted_at IS NULL
           AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, v.viewer_id, v.blocked, v.private_feeds)) lk ON true
  LEFT JOIN LATERAL (
        SELECT json_agg(json_build_array(u.id, u.handle, u.display_name) ORDER BY k.at DESC) AS likers
          FROM (SELECT r.user_id, max(r.created_at) AS at
                  FROM (SELECT l.user_id, l.created_at
                          FROM likes l
                         WHERE l.anchor_id = a.anchor_id AND l.public
                           AND l.user_id <> v.viewer_id AND NOT l.user_id = ANY(v.blocked)
                         ORDER BY l.created_at DESC
                         LIMIT 12) r
                 GROUP BY r.user_id
                 ORDER BY 2 DESC
                 LIMIT 3) k
          JOIN users u ON u.id = k.user_id) lr ON true;

-- name: ClearAnchorTalk :exec
-- The counts of every item's public shares, made again from the posts (the seeder, the
-- bench's restore): first emptied ...
TRUNCATE anchor_talk;

-- name: CountAnchorTalk :exec
-- ... then counted.
INSERT INTO anchor_talk (anchor_id, likes, comments)
SELECT p.anchor_id, sum(p.like_count), sum(p.comment_count)
  FROM posts p
 WHERE p.is_public AND p.deleted_at IS NULL AND (p.like_count > 0 OR p.comment_count > 0)
 GROUP BY p.anchor_id;

-- name: ChronoArrivals :many
-- A chronological feed's posts that arrived in (from, to], as the viewer may read them,
-- newest arrival first after a position: a user's posts (author_id), a group's (feed_id) or
-- the viewer's directs (directs). A post arrives when it is made and again when a comment
-- bumps it; it is listed at its last arrival up to `to`, so a bump after `to` leaves the
-- interval as it was. The scope not asked for is folded away when planned (each run is
-- planned with its arguments).
WITH v AS (SELECT @author_id::bigint AS author_id, @feed_id::bigint AS feed_id, @directs::boolean AS directs,
                  @viewer_id::bigint AS viewer_id, @blocked::bigint[] AS blocked,
                  @private_feeds::bigint[] AS private_feeds, @skip::bigint[] AS skip,
                  @from_at::timestamptz AS from_at, @to_at::timestamptz AS to_at,
                  @pos_at::timestamptz AS pos_at, @pos_id::bigint AS pos_id),
scope AS NOT MATERIALIZED (
    SELECT p.id, p.bumped_at, p.created_at
      FROM posts p, v
     WHERE (v.author_id = 0 OR p.author_id = v.author_id)
       AND (v.feed_id = 0 OR p.id IN (SELECT fp.post_id FROM feed_posts fp WHERE fp.feed_id = v.feed_id))
       AND (NOT v.directs OR p.id IN (SELECT fp.post_id FROM feed_posts fp
                                        JOIN feeds f ON f.id = fp.feed_id AND f.kind = 'directs'
                                        JOIN feed_readers r ON r.feed_id = f.id
                                       WHERE r.user_id = v.viewer_id))
       AND p.deleted_at IS NULL
       AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, v.viewer_id, v.blocked, v.private_feeds)
       AND NOT p.id = ANY(v.skip)
       AND p.created_at <= v.to_at),
stayed AS (
    SELECT s.id, s.bumped_at AS arrival FROM scope s, v
     WHERE s.bumped_at > v.from_at AND s.bumped_at <= v.to_at
       AND (s.bumped_at, s.id) < (v.pos_at, v.pos_id)
     ORDER BY s.bumped_at DESC, s.id DESC
     LIMIT @lim::int),
moved AS (
    SELECT s.id, b.at AS arrival
      FROM scope s, v,
           LATERAL (SELECT b.at FROM post_bumps b WHERE b.post_id = s.id AND b.at <= v.to_at
                     ORDER BY b.at DESC LIMIT 1) b
     WHERE s.bumped_at > v.to_at
       AND b.at > v.from_at AND (b.at, s.id) < (v.pos_at, v.pos_id))
SELECT x.id, x.arrival::timestamptz AS arrival
  FROM (SELECT stayed.id, stayed.arrival FROM stayed UNION ALL SELECT moved.id, moved.arrival FROM moved) x
 ORDER BY x.arrival DESC, x.id DESC
 LIMIT @lim::int;
