-- +goose Up
-- Cheaper writes: what a like, a comment and an import pay for beyond their own rows.

-- Filter feed keys ('l:42', 't:go') are compared byte by byte: they are identifiers, never
-- sorted for people, and the database's collation made every index comparison a strcoll.
ALTER TABLE filter_posts ALTER COLUMN feed TYPE text COLLATE "C";
ANALYZE filter_posts; -- the rewrite dropped the column's statistics

-- A filter feed entry is made only from a post in the same statement (the triggers below and
-- in 00012), so its reference needs no check per row: a like wrote two such checks, an import
-- of 100,000 posts 390,000 of them (1.5-2.7 s). Deleting a post still takes its entries.
ALTER TABLE filter_posts DROP CONSTRAINT filter_posts_post_id_fkey;

-- +goose StatementBegin
CREATE FUNCTION filter_deleted_posts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM filter_posts f USING old_posts o WHERE f.post_id = o.id;
    RETURN NULL;
END
$$;

-- A new post's entries cannot exist yet: a plain insert, without the upsert's speculative
-- insertion per row.
CREATE OR REPLACE FUNCTION filter_new_posts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO filter_posts (feed, post_id, at)
    SELECT x.feed, x.post_id, max(x.at)
      FROM (SELECT 'd:' || n.author_id, n.id, n.bumped_at FROM new_posts n
            UNION ALL
            SELECT 't:' || t.tag, n.id, n.created_at FROM new_posts n, unnest(n.tags) t(tag)
            UNION ALL
            SELECT 'm:' || u.id, n.id, n.created_at
              FROM new_posts n, unnest(n.mentions) m(handle), users u
             WHERE lower(u.handle) = m.handle AND NOT in_ban(u.id, n.author_id)) x(feed, post_id, at)
     GROUP BY x.feed, x.post_id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER filter_feeds_deleted_posts AFTER DELETE ON posts
    REFERENCING OLD TABLE AS old_posts FOR EACH STATEMENT EXECUTE FUNCTION filter_deleted_posts();

-- Room in each page of posts for a new version of a row, so that counting a like or a
-- comment (no indexed column changes) is a HOT update: without it every like wrote a new
-- entry into each of the eight indexes of posts.
ALTER TABLE posts SET (fillfactor = 90);

-- +goose Down
ALTER TABLE posts RESET (fillfactor);
DROP TRIGGER filter_feeds_deleted_posts ON posts;
DROP FUNCTION filter_deleted_posts;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION filter_new_posts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO filter_posts AS f (feed, post_id, at)
    SELECT x.feed, x.post_id, max(x.at)
      FROM (SELECT 'd:' || n.author_id, n.id, n.bumped_at FROM new_posts n
            UNION ALL
            SELECT 't:' || t.tag, n.id, n.created_at FROM new_posts n, unnest(n.tags) t(tag)
            UNION ALL
            SELECT 'm:' || u.id, n.id, n.created_at
              FROM new_posts n, unnest(n.mentions) m(handle), users u
             WHERE lower(u.handle) = m.handle AND NOT in_ban(u.id, n.author_id)) x(feed, post_id, at)
     GROUP BY x.feed, x.post_id
    ON CONFLICT (feed, post_id) DO UPDATE SET at = greatest(f.at, EXCLUDED.at);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
DELETE FROM filter_posts f WHERE NOT EXISTS (SELECT 1 FROM posts p WHERE p.id = f.post_id);
ALTER TABLE filter_posts ADD CONSTRAINT filter_posts_post_id_fkey FOREIGN KEY (post_id) REFERENCES posts (id) ON DELETE CASCADE;
ALTER TABLE filter_posts ALTER COLUMN feed TYPE text COLLATE "default";
