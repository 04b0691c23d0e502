-- name: PutImage :exec
-- Stores an image unless one of its hash is stored already (the same bytes).
INSERT INTO images (hash, content_type, width, height, bytes)
VALUES (@hash, @content_type, @width, @height, @bytes)
ON CONFLICT (hash) DO NOTHING;

-- name: ImageByHash :one
SELECT content_type, width, height, bytes FROM images WHERE hash = @hash;
