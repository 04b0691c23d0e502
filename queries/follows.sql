-- name: Follow :exec
INSERT INTO follows (follower_id, followed_id, state)
VALUES (@follower_id, @followed_id, @state)
ON CONFLICT (follower_id, followed_id) DO NOTHING;

-- name: Unfollow :exec
DELETE FROM follows WHERE follower_id = @follower_id AND followed_id = @followed_id;

-- name: FollowState :one
SELECT state FROM follows WHERE follower_id = @follower_id AND followed_id = @followed_id;

-- name: FollowersPage :many
-- A page of a user's followers, by handle after @after, as a viewer may see them: none when
-- the viewer may not read the user's own feed (its access) or is in a ban with the user;
-- people in a ban with the viewer are left out.
SELECT u.* FROM follows f JOIN users u ON u.id = f.follower_id
 WHERE f.followed_id = @owner_id AND f.state = 'active' AND u.handle > @after::text
   AND NOT u.id = ANY (@blocked::bigint[])
   AND EXISTS (SELECT 1 FROM feeds fd WHERE fd.owner_id = @owner_id AND fd.kind = 'posts' AND fd.name = ''
       AND NOT @owner_id = ANY (@blocked::bigint[])
       AND (fd.access = 'public' OR fd.access = 'protected' AND @viewer_id::bigint > 0 OR fd.id = ANY (@private_feeds::bigint[])))
 ORDER BY u.handle LIMIT @lim;

-- name: FollowingPage :many
-- A page of the people a user follows, as FollowersPage.
SELECT u.* FROM follows f JOIN users u ON u.id = f.followed_id
 WHERE f.follower_id = @owner_id AND f.state = 'active' AND u.handle > @after::text
   AND NOT u.id = ANY (@blocked::bigint[])
   AND EXISTS (SELECT 1 FROM feeds fd WHERE fd.owner_id = @owner_id AND fd.kind = 'posts' AND fd.name = ''
       AND NOT @owner_id = ANY (@blocked::bigint[])
       AND (fd.access = 'public' OR fd.access = 'protected' AND @viewer_id::bigint > 0 OR fd.id = ANY (@private_feeds::bigint[])))
 ORDER BY u.handle LIMIT @lim;
