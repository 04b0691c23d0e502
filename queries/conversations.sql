-- name: Like :one
-- A like by a viewer of a post they may read; a second like is a no-op. readable is 0 when
-- the post is not theirs to read (nothing is stored then). With it, what the post's card
-- shows of its conversation now, as post_talk reads it (likes and comments less
-- those of people in a ban with the viewer, liked, the newest few likers but the viewer),
-- so that an answer needs no second round trip: the counts are the post's after this
-- statement (the update's when it liked, else the snapshot's); the likes and comments read
-- here are the statement's snapshot, which lacks only the viewer's own like, never counted
-- as banned nor named. The post is locked first (its count is updated anyway): a change of
-- its access committed meanwhile is read, where the snapshot's would store a like marked
-- public on a post that went private (the change's trigger cannot see the like).
WITH p AS (
    SELECT po.id, po.anchor_id, po.is_public, po.like_count, po.comment_count FROM posts po
     WHERE po.id = @post_id AND po.deleted_at IS NULL
       AND can_read(po.is_public, po.protected_owner_ids, po.private_feed_ids, @user_id::bigint, @blocked::bigint[], @private_feeds::bigint[])
       FOR NO KEY UPDATE),
ins AS (
    INSERT INTO likes (post_id, user_id, anchor_id, public, created_at) SELECT p.id, @user_id::bigint, p.anchor_id, p.is_public, @at FROM p
    ON CONFLICT DO NOTHING
    RETURNING post_id),
upd AS (
    UPDATE posts SET like_count = like_count + 1 WHERE posts.id IN (SELECT ins.post_id FROM ins)
    RETURNING posts.id, posts.like_count, posts.comment_count)
SELECT (p.id IS NOT NULL)::int AS readable, (u.id IS NOT NULL)::int AS added,
       coalesce(t.likes, 0)::int AS likes, coalesce(t.comments, 0)::int AS comments,
       (p.id IS NOT NULL)::boolean AS liked, t.likers::json AS likers
  FROM (VALUES (1)) one (x) LEFT JOIN p ON true LEFT JOIN upd u ON true,
       post_talk(p.id, coalesce(u.like_count, p.like_count), coalesce(u.comment_count, p.comment_count),
                 @user_id::bigint, @blocked::bigint[]) AS t (likes, comments, liked, likers);

-- name: Unlike :one
-- Takes a like back; unliking what was not liked is a no-op. With it, the card's talk as
-- Like returns it (liked is false now).
WITH p AS (
    SELECT po.id, po.like_count, po.comment_count FROM posts po
     WHERE po.id = @post_id AND po.deleted_at IS NULL
       AND can_read(po.is_public, po.protected_owner_ids, po.private_feed_ids, @user_id::bigint, @blocked::bigint[], @private_feeds::bigint[])),
del AS (
    DELETE FROM likes l USING p WHERE l.post_id = p.id AND l.user_id = @user_id::bigint
    RETURNING l.post_id),
upd AS (
    UPDATE posts SET like_count = like_count - 1 WHERE posts.id IN (SELECT del.post_id FROM del)
    RETURNING posts.id, posts.like_count, posts.comment_count)
SELECT (p.id IS NOT NULL)::int AS readable, (u.id IS NOT NULL)::int AS removed,
       coalesce(t.likes, 0)::int AS likes, coalesce(t.comments, 0)::int AS comments,
       false AS liked, t.likers::json AS likers
  FROM (VALUES (1)) one (x) LEFT JOIN p ON true LEFT JOIN upd u ON true,
       post_talk(p.id, coalesce(u.like_count, p.like_count), coalesce(u.comment_count, p.comment_count),
                 @user_id::bigint, @blocked::bigint[]) AS t (likes, comments, liked, likers);

-- name: AddComment :one
-- A comment on a post the author may read, in one statement (one round trip, atomic): stored,
-- counted on the post, and bumping the post when the rule says so (tributary.BumpRule, seed
-- 003): the post is younger than the rule's age, or got at least busy comments since the
-- window began before this one (so more than busy with it). A bump gives the post a new ord
-- from the one global sequence in every feed holding it and a new arrival; the arrival it
-- had is logged first (once), so fenceposts committed before the bump still list the post
-- where it was. No row when the post is not the author's to read: nothing is stored. With
-- the comment, the card's talk as Like returns it (the comment counted; the author's own
-- comment is never one of a ban). The post is locked first, as Like locks it: a change of
-- its access committed meanwhile decides whether the author may still comment.
WITH p AS (
    SELECT po.id, po.anchor_id, po.created_at, po.bumped_at, po.like_count, po.comment_count FROM posts po
     WHERE po.id = @post_id AND po.deleted_at IS NULL
       AND can_read(po.is_public, po.protected_owner_ids, po.private_feed_ids, @author_id::bigint, @blocked::bigint[], @private_feeds::bigint[])
       FOR NO KEY UPDATE),
due AS (
    SELECT p.id, p.bumped_at FROM p
     WHERE p.created_at > @young_since::timestamptz
        OR (SELECT count(*) FROM (SELECT 1 FROM comments x WHERE x.post_id = p.id AND x.created_at > @since::timestamptz
                                   LIMIT @busy::int) recent) >= @busy::int),
c AS (
    INSERT INTO comments (post_id, author_id, anchor_id, body, mentions, tags, created_at)
    SELECT p.id, @author_id::bigint, p.anchor_id, @body, @mentions::text[], @tags::text[], @at FROM p
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
    RETURNING posts.id, posts.like_count, posts.comment_count)
SELECT c.id, c.created_at, EXISTS (SELECT 1 FROM due) AS bumped,
       (coalesce(k.like_count, p.like_count)
        - CASE WHEN cardinality(@blocked::bigint[]) = 0 THEN 0 ELSE
              (SELECT count(*) FROM likes l WHERE l.post_id = p.id AND l.user_id = ANY(@blocked::bigint[])) END)::int AS likes,
       (coalesce(k.comment_count, p.comment_count + 1)
        - CASE WHEN cardinality(@blocked::bigint[]) = 0 THEN 0 ELSE
              (SELECT count(*) FROM comments x WHERE x.post_id = p.id AND x.author_id = ANY(@blocked::bigint[])) END)::int AS comments,
       (coalesce(k.like_count, p.like_count) > 0
        AND EXISTS (SELECT 1 FROM likes l WHERE l.post_id = p.id AND l.user_id = @author_id::bigint OFFSET 0))::boolean AS liked,
       coalesce((SELECT json_agg(json_build_array(us.id, us.handle, us.display_name) ORDER BY r.created_at DESC)
                   FROM (SELECT l.user_id, l.created_at FROM likes l
                          WHERE l.post_id = p.id AND NOT l.user_id = ANY(@blocked::bigint[]) AND l.user_id <> @author_id::bigint
                          ORDER BY l.created_at DESC LIMIT 3) r
                   JOIN users us ON us.id = r.user_id), '[]')::json AS likers
  FROM c CROSS JOIN p LEFT JOIN counted k ON true;

-- name: CommentForAction :one
-- A comment, its post's author, and whether the viewer may read the post: what deciding an
-- edit or a deletion needs.
SELECT c.id, c.post_id, c.author_id, c.body, p.author_id AS post_author_id,
       (p.deleted_at IS NULL AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids,
                                          @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[]))::boolean AS readable
  FROM comments c JOIN posts p ON p.id = c.post_id
 WHERE c.id = @id;

-- name: EditComment :exec
UPDATE comments SET body = @body, mentions = @mentions::text[], tags = @tags::text[], edited_at = @at WHERE id = @id;

-- name: DeleteComment :exec
WITH del AS (DELETE FROM comments c WHERE c.id = @id RETURNING c.post_id)
UPDATE posts SET comment_count = comment_count - 1 WHERE posts.id IN (SELECT del.post_id FROM del);

-- name: Thread :many
-- The first per_post comments of each of some posts that a viewer sees (none by someone in
-- a ban with them), in order; none of posts deleted or not theirs to read.
SELECT t.id, t.post_id, t.body, t.created_at, t.edited_at, t.author_id, t.author_handle, t.author_name, t.author_vip
  FROM posts p
  CROSS JOIN LATERAL (
        SELECT c.id, c.post_id, c.body, c.created_at, c.edited_at,
               u.id AS author_id, u.handle AS author_handle, u.display_name AS author_name, u.vip AS author_vip
          FROM comments c JOIN users u ON u.id = c.author_id
         WHERE c.post_id = p.id AND NOT c.author_id = ANY(@blocked::bigint[])
         ORDER BY c.created_at, c.id
         LIMIT @per_post::int) t
 WHERE p.id = ANY(@post_ids::bigint[]) AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[])
 ORDER BY t.post_id, t.created_at, t.id;

-- name: Likers :many
-- Who liked a post, as a viewer sees them, newest first; no one when the post is deleted or
-- not theirs to read.
SELECT u.id, u.handle, u.display_name, u.vip
  FROM posts p
  JOIN likes l ON l.post_id = p.id
  JOIN users u ON u.id = l.user_id
 WHERE p.id = @post_id AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[])
   AND NOT l.user_id = ANY(@blocked::bigint[])
 ORDER BY l.created_at DESC, u.id
 LIMIT @lim;
