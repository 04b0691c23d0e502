-- +goose Up
-- Images Tributary serves from its own origin (link card thumbnails, avatars), re-encoded by
-- the images package and named by the SHA-256 of their bytes: a row never changes, and the
-- same image stored twice is one row.
CREATE TABLE images (
    hash         bytea PRIMARY KEY CHECK (length(hash) = 32),
    content_type text NOT NULL CHECK (content_type IN ('image/jpeg', 'image/png')),
    width        integer NOT NULL CHECK (width > 0),
    height       integer NOT NULL CHECK (height > 0),
    bytes        bytea NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);
-- JPEG and PNG are compressed already: keep TOAST from trying again.
ALTER TABLE images ALTER COLUMN bytes SET STORAGE EXTERNAL;

-- +goose Down
DROP TABLE images;
