-- name: HideItem :one
-- Hides the item of a post the user may read, by that post; no row when the post is not
-- theirs to read.
INSERT INTO hidden_items (user_id, anchor_id, post_id, created_at)
SELECT @user_id::bigint, p.anchor_id, p.id, @at FROM posts p
 WHERE p.id = @post_id AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @user_id::bigint, @blocked::bigint[], @private_feeds::bigint[])
ON CONFLICT (user_id, anchor_id) DO UPDATE SET post_id = EXCLUDED.post_id, created_at = EXCLUDED.created_at
RETURNING anchor_id;

-- name: UnhideItem :exec
-- Brings back the item of a post (whichever of its shares hid it).
DELETE FROM hidden_items h USING posts p WHERE p.id = @post_id AND h.user_id = @user_id AND h.anchor_id = p.anchor_id;

-- name: HiddenPosts :many
-- The posts a user hid items by, newest first, as the user may read them now.
SELECT sqlc.embed(p), h.created_at AS hidden_at FROM hidden_items h
  JOIN post_cards p ON p.id = h.post_id
 WHERE h.user_id = @user_id AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, @user_id::bigint, @blocked::bigint[], @private_feeds::bigint[])
 ORDER BY h.created_at DESC, h.anchor_id DESC
 LIMIT @lim::int;

-- name: Mute :exec
INSERT INTO mutes (user_id, word, collapse, created_at) VALUES (@user_id, @word, @collapse, @at)
ON CONFLICT (user_id, word) DO UPDATE SET collapse = EXCLUDED.collapse;

-- name: Unmute :exec
DELETE FROM mutes WHERE user_id = @user_id AND word = @word;

-- name: CountMutes :one
SELECT count(*) FROM mutes WHERE user_id = @user_id;
