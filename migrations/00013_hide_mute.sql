-- +goose Up
-- Hide and mute: a reader's own choices of what leaves their feeds. Read with the viewer's
-- access in the one query every request makes (ViewerState, UserWithAccess, ViewerAccessOf),
-- and applied on every read path of that viewer.

-- An item (every share of one link) the user hid, from the post they hid it by.
CREATE TABLE hidden_items (
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    anchor_id  bigint      NOT NULL REFERENCES anchors (id) ON DELETE CASCADE,
    post_id    bigint      NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, anchor_id)
);
CREATE INDEX hidden_items_recent_idx ON hidden_items (user_id, created_at DESC);

-- A word or phrase (lower-cased) the user muted: cards with it leave their feeds, or show
-- collapsed behind "show anyway" (collapse).
CREATE TABLE mutes (
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    word       text        NOT NULL,
    collapse   boolean     NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, word)
);

-- +goose Down
DROP TABLE mutes;
DROP TABLE hidden_items;
