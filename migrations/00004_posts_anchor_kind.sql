-- +goose Up
-- The kind of a post's anchor, kept on the post (anchors never change kind): the live path
-- and the arrival query filter a category without joining every candidate to its anchor
-- (measured: a hash join over all arxiv anchors was 14 of the median live page's 23 ms).
ALTER TABLE posts ADD COLUMN anchor_kind text;
UPDATE posts p SET anchor_kind = a.kind FROM anchors a WHERE a.id = p.anchor_id;
ALTER TABLE posts ALTER COLUMN anchor_kind SET NOT NULL;

-- +goose Down
ALTER TABLE posts DROP COLUMN anchor_kind;
