-- +goose Up
-- Filter feeds (seed 003): posts a user liked, posts a user commented on, posts with a tag,
-- posts mentioning a user, and a user's discussions (their posts and the posts they liked
-- or commented on). Each is one run of filter_posts, read newest first on one index with
-- the access rule applied to the post beside it, as seed 003 reads a filter feed.

-- What a text mentions and tags is decided by tributary.Mentions and tributary.Tags when the
-- text is written, and stored with it (lower-cased handles; normalized tags).
ALTER TABLE posts ADD COLUMN mentions text[] NOT NULL DEFAULT '{}';
ALTER TABLE comments ADD COLUMN mentions text[] NOT NULL DEFAULT '{}',
                     ADD COLUMN tags     text[] NOT NULL DEFAULT '{}';
ALTER TABLE import_rows ADD COLUMN mentions text[] NOT NULL DEFAULT '{}';

-- A post in a filter feed, at when it arrived there: for 'l:<user>' (liked by) and
-- 'c:<user>' (commented on by) the user's latest like or comment on it; for 'm:<user>'
-- (mentioning) and 't:<tag>' (tagged) the latest post or comment text that mentions or tags;
-- for 'd:<user>' (discussions) the latest of the user's likes and comments on it and its
-- last bump (seed 003: a post bumps in every feed it is in; "My discussions" go by bump).
-- Derived from posts, likes and comments by the triggers below: post_filters computes which
-- entries are due and their places; a place never moves down (see refilter_posts).
CREATE TABLE filter_posts (
    feed    text        NOT NULL,
    post_id bigint      NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    at      timestamptz NOT NULL,
    PRIMARY KEY (feed, post_id)
);
CREATE INDEX filter_posts_feed_idx ON filter_posts (feed, at DESC, post_id DESC);
CREATE INDEX filter_posts_post_idx ON filter_posts (post_id);

-- Bumps not yet applied to the discussions holding their posts (see filter_bumped_posts).
CREATE TABLE filter_bumps (
    post_id bigint      PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
    at      timestamptz NOT NULL
);

-- +goose StatementBegin
-- in_ban says two users are in a ban, either way: a mention by one does not reach the other's
-- mentions feed (their comments are hidden from each other).
CREATE FUNCTION in_ban(a bigint, b bigint) RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM bans WHERE (user_id = a AND banned_id = b) OR (user_id = b AND banned_id = a))
$$;

-- post_filters is every filter feed entry of the posts ids (all posts when ids is NULL),
-- computed from posts, likes and comments.
CREATE FUNCTION post_filters(ids bigint[]) RETURNS TABLE (feed text, post_id bigint, at timestamptz)
LANGUAGE sql STABLE AS $$
    SELECT x.feed, x.post_id, max(x.at)
      FROM (SELECT 'd:' || p.author_id, p.id, p.bumped_at
              FROM posts p WHERE ids IS NULL OR p.id = ANY (ids)
            UNION ALL
            SELECT 't:' || t.tag, p.id, p.created_at
              FROM posts p, unnest(p.tags) t(tag) WHERE ids IS NULL OR p.id = ANY (ids)
            UNION ALL
            SELECT 'm:' || u.id, p.id, p.created_at
              FROM posts p, unnest(p.mentions) m(handle), users u
             WHERE (ids IS NULL OR p.id = ANY (ids)) AND lower(u.handle) = m.handle
               AND NOT in_ban(u.id, p.author_id)
            UNION ALL
            SELECT k.kind || l.user_id, l.post_id, greatest(l.created_at, CASE WHEN k.kind = 'd:' THEN p.bumped_at END)
              FROM likes l JOIN posts p ON p.id = l.post_id, (VALUES ('l:'), ('d:')) k(kind)
             WHERE ids IS NULL OR l.post_id = ANY (ids)
            UNION ALL
            SELECT k.kind || c.author_id, c.post_id, greatest(c.created_at, CASE WHEN k.kind = 'd:' THEN p.bumped_at END)
              FROM comments c JOIN posts p ON p.id = c.post_id, (VALUES ('c:'), ('d:')) k(kind)
             WHERE ids IS NULL OR c.post_id = ANY (ids)
            UNION ALL
            SELECT 't:' || t.tag, c.post_id, c.created_at
              FROM comments c JOIN posts p ON p.id = c.post_id, unnest(c.tags) t(tag)
             WHERE ids IS NULL OR c.post_id = ANY (ids)
            UNION ALL
            SELECT 'm:' || u.id, c.post_id, c.created_at
              FROM comments c JOIN posts p ON p.id = c.post_id, unnest(c.mentions) m(handle), users u
             WHERE (ids IS NULL OR c.post_id = ANY (ids)) AND lower(u.handle) = m.handle
               AND NOT in_ban(u.id, c.author_id)) x(feed, post_id, at)
     GROUP BY x.feed, x.post_id
$$;

-- refilter_posts brings the filter feed entries of the posts ids in line with post_filters
-- after a comment was edited or deleted (rare; a like's removal has its own trigger): entries
-- no longer due go, new ones come, and the rest keep their place or move up, never down. A
-- post moved down while someone scrolls the feed would come into the pages below them again
-- (there is no log of past places, as post_bumps is for bumps), so `at` never decreases: it is
-- when the post last arrived in the feed, at or after what post_filters computes.
CREATE FUNCTION refilter_posts(ids bigint[]) RETURNS void LANGUAGE sql AS $$
    WITH due AS MATERIALIZED (SELECT * FROM post_filters(ids))
    DELETE FROM filter_posts f
     WHERE f.post_id = ANY (ids)
       AND NOT EXISTS (SELECT 1 FROM due WHERE due.feed = f.feed AND due.post_id = f.post_id);
    INSERT INTO filter_posts AS f (feed, post_id, at) SELECT * FROM post_filters(ids)
    ON CONFLICT (feed, post_id) DO UPDATE SET at = greatest(f.at, EXCLUDED.at);
$$;

CREATE FUNCTION filter_new_posts() RETURNS trigger LANGUAGE plpgsql AS $$
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

-- A bump moves the post up in the discussions it is in: every discussant's entry, so not in
-- the bumping comment's statement (a post discussed by 2,000 took 74 ms), but queued here
-- and applied by apply_filter_bumps a moment later (seed 003: aggregators may be brought up
-- to date asynchronously).
CREATE FUNCTION filter_bumped_posts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO filter_bumps AS b (post_id, at)
    SELECT n.id, n.bumped_at FROM new_posts n JOIN old_posts o ON o.id = n.id WHERE n.bumped_at > o.bumped_at
    ON CONFLICT (post_id) DO UPDATE SET at = greatest(b.at, EXCLUDED.at);
    RETURN NULL;
END
$$;

-- apply_filter_bumps moves the queued bumps into the discussions (any instance may run it;
-- concurrent runs take disjoint rows) and returns how many posts it moved.
CREATE FUNCTION apply_filter_bumps() RETURNS bigint LANGUAGE sql AS $$
    WITH b AS (DELETE FROM filter_bumps RETURNING post_id, at),
    moved AS (
        UPDATE filter_posts f SET at = b.at FROM b
         WHERE f.post_id = b.post_id AND f.feed LIKE 'd:%' AND f.at < b.at
        RETURNING f.post_id)
    SELECT count(*) FROM b;
$$;

CREATE FUNCTION filter_new_likes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO filter_posts AS f (feed, post_id, at)
    SELECT k.kind || n.user_id, n.post_id, max(n.created_at)
      FROM new_likes n, (VALUES ('l:'), ('d:')) k(kind)
     GROUP BY k.kind, n.user_id, n.post_id
    ON CONFLICT (feed, post_id) DO UPDATE SET at = greatest(f.at, EXCLUDED.at);
    RETURN NULL;
END
$$;

-- An unlike leaves the liker's likes feed, and their discussions unless they wrote the post
-- or commented on it (then it keeps its place there: see refilter_posts).
CREATE FUNCTION filter_old_likes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM filter_posts f USING old_likes o
     WHERE f.feed = 'l:' || o.user_id AND f.post_id = o.post_id;
    DELETE FROM filter_posts f USING old_likes o
     WHERE f.feed = 'd:' || o.user_id AND f.post_id = o.post_id
       AND NOT EXISTS (SELECT 1 FROM posts p WHERE p.id = o.post_id AND p.author_id = o.user_id)
       AND NOT EXISTS (SELECT 1 FROM comments c WHERE c.post_id = o.post_id AND c.author_id = o.user_id);
    RETURN NULL;
END
$$;

CREATE FUNCTION filter_new_comments() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO filter_posts AS f (feed, post_id, at)
    SELECT x.feed, x.post_id, max(x.at)
      FROM (SELECT k.kind || n.author_id, n.post_id, n.created_at FROM new_comments n, (VALUES ('c:'), ('d:')) k(kind)
            UNION ALL
            SELECT 't:' || t.tag, n.post_id, n.created_at FROM new_comments n, unnest(n.tags) t(tag)
            UNION ALL
            SELECT 'm:' || u.id, n.post_id, n.created_at
              FROM new_comments n, unnest(n.mentions) m(handle), users u
             WHERE lower(u.handle) = m.handle AND NOT in_ban(u.id, n.author_id)) x(feed, post_id, at)
     GROUP BY x.feed, x.post_id
    ON CONFLICT (feed, post_id) DO UPDATE SET at = greatest(f.at, EXCLUDED.at);
    RETURN NULL;
END
$$;

CREATE FUNCTION filter_changed_comments() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM refilter_posts(ARRAY(SELECT DISTINCT o.post_id FROM old_comments o));
    RETURN NULL;
END
$$;

-- A ban (or its end) changes which mentions between the two reach a mentions feed: the posts
-- and comments of either with mentions in them are refiltered (bans are rare).
CREATE FUNCTION filter_changed_bans() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM refilter_posts(ARRAY(
        SELECT p.id FROM posts p, changed_bans b
         WHERE p.author_id IN (b.user_id, b.banned_id) AND p.mentions <> '{}'
        UNION
        SELECT c.post_id FROM comments c, changed_bans b
         WHERE c.author_id IN (b.user_id, b.banned_id) AND c.mentions <> '{}'));
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- The seeder writes these tables with their triggers off and fills filter_posts from
-- post_filters itself (the names start with filter_feeds_).
CREATE TRIGGER filter_feeds_new_posts AFTER INSERT ON posts
    REFERENCING NEW TABLE AS new_posts FOR EACH STATEMENT EXECUTE FUNCTION filter_new_posts();
CREATE TRIGGER filter_feeds_bumped_posts AFTER UPDATE ON posts
    REFERENCING OLD TABLE AS old_posts NEW TABLE AS new_posts FOR EACH STATEMENT EXECUTE FUNCTION filter_bumped_posts();
CREATE TRIGGER filter_feeds_new_likes AFTER INSERT ON likes
    REFERENCING NEW TABLE AS new_likes FOR EACH STATEMENT EXECUTE FUNCTION filter_new_likes();
CREATE TRIGGER filter_feeds_old_likes AFTER DELETE ON likes
    REFERENCING OLD TABLE AS old_likes FOR EACH STATEMENT EXECUTE FUNCTION filter_old_likes();
CREATE TRIGGER filter_feeds_new_comments AFTER INSERT ON comments
    REFERENCING NEW TABLE AS new_comments FOR EACH STATEMENT EXECUTE FUNCTION filter_new_comments();
CREATE TRIGGER filter_feeds_edited_comments AFTER UPDATE ON comments
    REFERENCING OLD TABLE AS old_comments FOR EACH STATEMENT EXECUTE FUNCTION filter_changed_comments();
CREATE TRIGGER filter_feeds_old_comments AFTER DELETE ON comments
    REFERENCING OLD TABLE AS old_comments FOR EACH STATEMENT EXECUTE FUNCTION filter_changed_comments();
CREATE TRIGGER filter_feeds_new_bans AFTER INSERT ON bans
    REFERENCING NEW TABLE AS changed_bans FOR EACH STATEMENT EXECUTE FUNCTION filter_changed_bans();
CREATE TRIGGER filter_feeds_old_bans AFTER DELETE ON bans
    REFERENCING OLD TABLE AS changed_bans FOR EACH STATEMENT EXECUTE FUNCTION filter_changed_bans();

-- Existing data.
INSERT INTO filter_posts (feed, post_id, at) SELECT * FROM post_filters(NULL);

-- +goose Down
DROP TRIGGER filter_feeds_old_bans ON bans;
DROP TRIGGER filter_feeds_new_bans ON bans;
DROP TRIGGER filter_feeds_old_comments ON comments;
DROP TRIGGER filter_feeds_edited_comments ON comments;
DROP TRIGGER filter_feeds_new_comments ON comments;
DROP TRIGGER filter_feeds_old_likes ON likes;
DROP TRIGGER filter_feeds_new_likes ON likes;
DROP TRIGGER filter_feeds_bumped_posts ON posts;
DROP TRIGGER filter_feeds_new_posts ON posts;
DROP FUNCTION filter_changed_bans;
DROP FUNCTION filter_changed_comments;
DROP FUNCTION filter_new_comments;
DROP FUNCTION filter_old_likes;
DROP FUNCTION filter_new_likes;
DROP FUNCTION apply_filter_bumps;
DROP FUNCTION filter_bumped_posts;
DROP FUNCTION filter_new_posts;
DROP FUNCTION refilter_posts;
DROP FUNCTION post_filters;
DROP FUNCTION in_ban;
DROP TABLE filter_bumps;
DROP TABLE filter_posts;
ALTER TABLE import_rows DROP COLUMN mentions;
ALTER TABLE comments DROP COLUMN tags, DROP COLUMN mentions;
ALTER TABLE posts DROP COLUMN mentions;
