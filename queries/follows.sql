-- name: Follow :exec
INSERT INTO follows (follower_id, followed_id, state)
VALUES (@follower_id, @followed_id, @state)
ON CONFLICT (follower_id, followed_id) DO NOTHING;

-- name: Unfollow :exec
DELETE FROM follows WHERE follower_id = @follower_id AND followed_id = @followed_id;

-- name: FollowState :one
SELECT state FROM follows WHERE follower_id = @follower_id AND followed_id = @followed_id;
