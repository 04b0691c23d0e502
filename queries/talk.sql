-- name: PostTalk :many
-- What the cards of some posts show of their conversations, as a viewer sees them
-- (post_talk); posts deleted or not theirs to read are left out.
SELECT p.id, t.likes::integer AS likes, t.comments::integer AS comments, t.liked::boolean AS liked, t.likers::json AS likers
  FROM posts p, post_talk(p.id, p.like_count, p.comment_count, @viewer_id::bigint, @blocked::bigint[]) AS t (likes, comments, liked, likers)
 WHERE p.id = ANY(@ids::bigint[]) AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[]);

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

-- name: PublicTalk :many
-- What an item's card shows of its conversation that is the same for every reader, which
-- each instance keeps (feed/cards.go) and makes each reader's as AnchorTalk would: the
-- counts of its public shares, whether it has shares that are not public (restricted: their
-- counts differ by reader, and are read per reader), and its newest public likes with their
-- likers, newest first, as many as kept (AnchorTalk names likers among the 12 newest that
-- are neither the reader's nor of someone in a ban with them).
SELECT a.anchor_id::bigint AS anchor_id, coalesce(t.likes, 0)::int AS likes, coalesce(t.comments, 0)::int AS comments,
       EXISTS (SELECT 1 FROM posts p WHERE p.anchor_id = a.anchor_id AND NOT p.is_public AND p.deleted_at IS NULL)::boolean AS restricted,
       coalesce((SELECT json_agg(json_build_array(u.id, u.handle, u.display_name) ORDER BY k.created_at DESC)
                   FROM (SELECT l.user_id, l.created_at FROM likes l
                          WHERE l.anchor_id = a.anchor_id AND l.public
                          ORDER BY l.created_at DESC
                          LIMIT @kept::int) k
                   JOIN users u ON u.id = k.user_id), '[]')::json AS newest_likes
  FROM unnest(@anchor_ids::bigint[]) a (anchor_id)
  LEFT JOIN anchor_talk t ON t.anchor_id = a.anchor_id;

-- name: LikedOf :many
-- A viewer's likes of some items: for each item they liked a share of that they may still
-- read, that share (the least id), as AnchorTalk gives liked_post to a viewer in no ban.
-- A like of a public share that is not deleted says so itself (likes.public, kept by the
-- trigger on posts in the writer's transaction): only the others read their post.
-- The statement is liked_of's (migration 00059), on its one generic plan, which the server
-- keeps even through a pooler.
SELECT l.* FROM liked_of(@viewer_id::bigint, @anchor_ids::bigint[], @private_feeds::bigint[]) l;

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
