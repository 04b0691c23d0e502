-- +goose Up
-- Conversations (seed 003): likes and comments attach to a post, so they follow its access.

-- A like and a comment carry their post's anchor (a post never changes anchor), so an item
-- card finds its likers and the viewer's like among all its shares without reading them.
CREATE TABLE likes (
    post_id    bigint      NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    anchor_id  bigint      NOT NULL,
    -- The post is public (and not deleted), kept by the trigger on posts below: an item card
    -- names likers of its public shares without reading the posts.
    public     boolean     NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (post_id, user_id)
);
-- A post's likers newest first (the few a card names), an item's, a user's likes (the
-- liked-by feed), and whether a user liked a share of some items.
CREATE INDEX likes_post_recent_idx ON likes (post_id, created_at DESC);
CREATE INDEX likes_anchor_public_idx ON likes (anchor_id, created_at DESC) WHERE public;
CREATE INDEX likes_user_idx ON likes (user_id, created_at DESC, post_id);
CREATE INDEX likes_user_anchor_idx ON likes (user_id, anchor_id);

CREATE TABLE comments (
    id         bigserial   PRIMARY KEY,
    post_id    bigint      NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    author_id  bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    anchor_id  bigint      NOT NULL,
    body       text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    edited_at  timestamptz
);
-- A post's thread in order, and how many comments it got in the last day (bumping); a
-- user's comments (the commented-by feed), and on some items (a ban hides them).
CREATE INDEX comments_post_idx ON comments (post_id, created_at, id);
CREATE INDEX comments_author_idx ON comments (author_id, created_at DESC, post_id);
CREATE INDEX comments_author_anchor_idx ON comments (author_id, anchor_id);

-- What every card shows, kept with the post: its likes and comments, by anyone (a viewer's
-- count leaves out those in a ban with them, read per page), and its place in chronological
-- feeds. bumped_at is when the post last arrived: its creation, or the comment that bumped it.
ALTER TABLE posts ADD COLUMN like_count    integer NOT NULL DEFAULT 0,
                  ADD COLUMN comment_count integer NOT NULL DEFAULT 0,
                  ADD COLUMN bumped_at     timestamptz;
UPDATE posts SET bumped_at = created_at;
ALTER TABLE posts ALTER COLUMN bumped_at SET NOT NULL;
CREATE INDEX posts_author_bumped_idx ON posts (author_id, bumped_at DESC, id DESC);
-- An item's shares that are not public (anchor_talk counts the public ones).
CREATE INDEX posts_anchor_nonpublic_idx ON posts (anchor_id) WHERE NOT is_public AND deleted_at IS NULL;

-- The likes and comments of each item's public shares, kept by a trigger on posts in the
-- writer's transaction (a like, a comment, a deletion or a change of access; the same
-- trigger keeps likes.public): an item card
-- adds the viewer's readable non-public shares to it, never reading every share of a
-- popular item. The seeder and the bench fill it in bulk.
CREATE TABLE anchor_talk (
    anchor_id bigint  PRIMARY KEY REFERENCES anchors (id) ON DELETE CASCADE,
    likes     integer NOT NULL,
    comments  integer NOT NULL
);
-- +goose StatementBegin
CREATE FUNCTION count_anchor_talk() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO anchor_talk AS t (anchor_id, likes, comments)
    SELECT d.anchor_id, sum(d.likes), sum(d.comments)
      FROM (SELECT n.anchor_id, n.like_count AS likes, n.comment_count AS comments
              FROM new_posts n WHERE n.is_public AND n.deleted_at IS NULL
            UNION ALL
            SELECT o.anchor_id, -o.like_count, -o.comment_count
              FROM old_posts o WHERE o.is_public AND o.deleted_at IS NULL) d
     GROUP BY d.anchor_id
    HAVING sum(d.likes) <> 0 OR sum(d.comments) <> 0
    ON CONFLICT (anchor_id) DO UPDATE SET likes = t.likes + EXCLUDED.likes, comments = t.comments + EXCLUDED.comments;
    UPDATE likes l SET public = n.is_public AND n.deleted_at IS NULL
      FROM new_posts n JOIN old_posts o ON o.id = n.id
     WHERE l.post_id = n.id
       AND (n.is_public AND n.deleted_at IS NULL) IS DISTINCT FROM (o.is_public AND o.deleted_at IS NULL);
    RETURN NULL;
END
$$;
CREATE FUNCTION uncount_anchor_talk() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE anchor_talk t SET likes = t.likes - d.likes, comments = t.comments - d.comments
      FROM (SELECT o.anchor_id, sum(o.like_count) AS likes, sum(o.comment_count) AS comments
              FROM old_posts o WHERE o.is_public AND o.deleted_at IS NULL
             GROUP BY o.anchor_id) d
     WHERE t.anchor_id = d.anchor_id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER posts_anchor_talk AFTER UPDATE ON posts
    REFERENCING OLD TABLE AS old_posts NEW TABLE AS new_posts FOR EACH STATEMENT EXECUTE FUNCTION count_anchor_talk();
CREATE TRIGGER posts_anchor_untalk AFTER DELETE ON posts
    REFERENCING OLD TABLE AS old_posts FOR EACH STATEMENT EXECUTE FUNCTION uncount_anchor_talk();

-- Every arrival of a bumped post: its creation and each bump, with the ord the one global
-- sequence gave it. A fencepost lists an interval (from, to] by each post's last arrival up to
-- `to`, so a bump after the fencepost neither moves the post out of the pages being scrolled
-- nor shows it twice in one fencepost. Posts never bumped have no rows here: their one
-- arrival is their creation.
CREATE TABLE post_bumps (
    post_id bigint      NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    at      timestamptz NOT NULL,
    ord     bigint      NOT NULL,
    PRIMARY KEY (post_id, at, ord)
);

-- The views every post list reads through carry the new columns.
DROP VIEW post_cards;
CREATE VIEW post_cards AS
SELECT p.*, u.handle AS author_handle, u.display_name AS author_name, u.vip AS author_vip
  FROM posts p
  JOIN users u ON u.id = p.author_id;

-- +goose Down
DROP VIEW post_cards;
CREATE VIEW post_cards AS
SELECT p.id, p.author_id, p.anchor_id, p.url, p.title, p.body, p.canonical_url, p.anchor_url, p.kind,
       p.host, p.link_hosts, p.linked_urls, p.image_count, p.url_count, p.sci_score, p.tags, p.is_public,
       p.protected_owner_ids, p.private_feed_ids, p.created_at, p.deleted_at, p.anchor_kind,
       u.handle AS author_handle, u.display_name AS author_name, u.vip AS author_vip
  FROM posts p
  JOIN users u ON u.id = p.author_id;
DROP TABLE post_bumps;
DROP TRIGGER posts_anchor_untalk ON posts;
DROP TRIGGER posts_anchor_talk ON posts;
DROP FUNCTION uncount_anchor_talk;
DROP FUNCTION count_anchor_talk;
DROP TABLE anchor_talk;
DROP INDEX posts_anchor_nonpublic_idx;
DROP INDEX posts_author_bumped_idx;
ALTER TABLE posts DROP COLUMN bumped_at, DROP COLUMN comment_count, DROP COLUMN like_count;
DROP TABLE comments;
DROP TABLE likes;
