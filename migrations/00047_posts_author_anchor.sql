-- +goose Up
-- A reader's followees among an item's sharers (SharersOf) are found by (author, anchor)
-- without reading every post of each followee.
CREATE INDEX posts_author_anchor_idx ON posts (author_id, anchor_id);

-- +goose Down
DROP INDEX posts_author_anchor_idx;
