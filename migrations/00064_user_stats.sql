-- +goose Up
-- A user page's follow counts kept on write, as Mastodon's account_stats: counting a popular
-- author's followers read every follow row of theirs (10,000 rows, 27 ms in the bench), and
-- the owner's waiting requests as many again. A follow's statement waits for another's on the
-- same user's row, for as long as that one's transaction: follows are one statement each.
-- Posts are not counted here: a long transaction of shares (an import) would hold up its
-- author's every other share. Their count reads partial indexes alone instead (posts anyone
-- may read, and those restricted ones a viewer may read). Added only: the binary before it
-- counts as it did.
CREATE TABLE user_stats (
    user_id   bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    following bigint NOT NULL DEFAULT 0, -- active follows of others
    followers bigint NOT NULL DEFAULT 0, -- active follows of them
    requests  bigint NOT NULL DEFAULT 0  -- follows of them waiting for approval
);

CREATE INDEX posts_author_public_idx ON posts (author_id) WHERE is_public AND deleted_at IS NULL;
CREATE INDEX posts_author_restricted_idx ON posts (author_id) WHERE NOT is_public AND deleted_at IS NULL;

-- +goose StatementBegin
-- follows_stats keeps the follow counts of a statement's follows' users: each row counts for
-- its follower (following) and its followed (followers, or requests while pending); an update
-- takes its old rows away and adds its new ones. Users' rows are written in id order (so that
-- concurrent statements lock them in one order); a user deleted meanwhile is passed over.
CREATE FUNCTION follows_stats() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    src text := CASE TG_OP
        WHEN 'INSERT' THEN 'SELECT follower_id, followed_id, state, 1 AS sign FROM new_rows'
        WHEN 'DELETE' THEN 'SELECT follower_id, followed_id, state, -1 AS sign FROM old_rows'
        ELSE 'SELECT follower_id, followed_id, state, 1 AS sign FROM new_rows
              UNION ALL SELECT follower_id, followed_id, state, -1 FROM old_rows' END;
BEGIN
    EXECUTE format($q$
        INSERT INTO user_stats AS s (user_id, following, followers, requests)
        SELECT d.id, sum(d.following), sum(d.followers), sum(d.requests) FROM (
            SELECT r.follower_id AS id, r.sign * (r.state = 'active')::int AS following, 0 AS followers, 0 AS requests FROM (%1$s) r
            UNION ALL
            SELECT r.followed_id, 0, r.sign * (r.state = 'active')::int, r.sign * (r.state = 'pending')::int FROM (%1$s) r) d
         WHERE EXISTS (SELECT 1 FROM users u WHERE u.id = d.id)
         GROUP BY d.id HAVING sum(d.following) <> 0 OR sum(d.followers) <> 0 OR sum(d.requests) <> 0
         ORDER BY d.id
        ON CONFLICT (user_id) DO UPDATE SET following = s.following + EXCLUDED.following,
            followers = s.followers + EXCLUDED.followers, requests = s.requests + EXCLUDED.requests$q$, src);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER follows_stats_added AFTER INSERT ON follows
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION follows_stats();
CREATE TRIGGER follows_stats_removed AFTER DELETE ON follows
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION follows_stats();
CREATE TRIGGER follows_stats_updated AFTER UPDATE ON follows
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION follows_stats();

INSERT INTO user_stats (user_id, following, followers, requests)
SELECT u.id,
       (SELECT count(*) FROM follows f WHERE f.follower_id = u.id AND f.state = 'active'),
       (SELECT count(*) FROM follows f WHERE f.followed_id = u.id AND f.state = 'active'),
       (SELECT count(*) FROM follows f WHERE f.followed_id = u.id AND f.state = 'pending')
  FROM users u;

-- +goose Down
DROP TRIGGER follows_stats_updated ON follows;
DROP TRIGGER follows_stats_removed ON follows;
DROP TRIGGER follows_stats_added ON follows;
DROP FUNCTION follows_stats;
DROP INDEX posts_author_restricted_idx;
DROP INDEX posts_author_public_idx;
DROP TABLE user_stats;
