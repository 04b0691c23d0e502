-- +goose Up
-- A change of who may read what between users (a follow, a ban, a reader of a private feed,
-- a group's member) names the users whose reading it concerns: readers. Open pages of other
-- readers need not read their access again, and nothing anonymous visitors see changed.
-- NULL: it may concern anyone (every other change, or too many readers to list).
ALTER TABLE site_changes ADD COLUMN readers bigint[];

-- +goose StatementBegin
-- record_readers_change logs one statement's change like record_site_change (its first
-- argument names the subjects' column), and the readers: the values of the columns named by
-- its other two arguments (none above 1,000).
CREATE FUNCTION record_readers_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    subjects bigint[];
    readers  bigint[];
    n        bigint;
    m        bigint;
BEGIN
    EXECUTE format('SELECT count(DISTINCT %1$I), array_agg(DISTINCT %1$I) FROM changed_rows', TG_ARGV[0])
       INTO n, subjects;
    IF n = 0 THEN
        RETURN NULL;
    END IF;
    EXECUTE format('SELECT count(DISTINCT u), array_agg(DISTINCT u) FROM changed_rows c, LATERAL (VALUES (c.%1$I), (c.%2$I)) v(u)',
                   TG_ARGV[1], TG_ARGV[2])
       INTO m, readers;
    INSERT INTO site_changes (kind, ids, readers)
    VALUES (TG_TABLE_NAME, CASE WHEN n > 1000 THEN '{}' ELSE subjects END, CASE WHEN m > 1000 THEN NULL ELSE readers END);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

DROP TRIGGER bans_site_added ON bans;
DROP TRIGGER bans_site_removed ON bans;
DROP TRIGGER feed_readers_site_added ON feed_readers;
DROP TRIGGER feed_readers_site_removed ON feed_readers;
DROP TRIGGER group_members_site_added ON group_members;
DROP TRIGGER group_members_site_updated ON group_members;
DROP TRIGGER group_members_site_removed ON group_members;
-- A ban hides each one's posts and comments from the other: both read anew.
CREATE TRIGGER bans_site_added AFTER INSERT ON bans
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_readers_change('user_id', 'user_id', 'banned_id');
CREATE TRIGGER bans_site_removed AFTER DELETE ON bans
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_readers_change('user_id', 'user_id', 'banned_id');
CREATE TRIGGER feed_readers_site_added AFTER INSERT ON feed_readers
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_readers_change('feed_id', 'user_id', 'user_id');
CREATE TRIGGER feed_readers_site_removed AFTER DELETE ON feed_readers
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_readers_change('feed_id', 'user_id', 'user_id');
CREATE TRIGGER group_members_site_added AFTER INSERT ON group_members
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_readers_change('feed_id', 'user_id', 'user_id');
CREATE TRIGGER group_members_site_updated AFTER UPDATE ON group_members
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_readers_change('feed_id', 'user_id', 'user_id');
CREATE TRIGGER group_members_site_removed AFTER DELETE ON group_members
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_readers_change('feed_id', 'user_id', 'user_id');
-- A follow changes what the follower's home feed counts (their followed set), on every
-- instance; its subjects are the followers.
CREATE TRIGGER follows_site_added AFTER INSERT ON follows
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_readers_change('follower_id', 'follower_id', 'followed_id');
CREATE TRIGGER follows_site_updated AFTER UPDATE ON follows
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_readers_change('follower_id', 'follower_id', 'followed_id');
CREATE TRIGGER follows_site_removed AFTER DELETE ON follows
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_readers_change('follower_id', 'follower_id', 'followed_id');

-- +goose Down
DROP TRIGGER follows_site_removed ON follows;
DROP TRIGGER follows_site_updated ON follows;
DROP TRIGGER follows_site_added ON follows;
DROP TRIGGER group_members_site_removed ON group_members;
DROP TRIGGER group_members_site_updated ON group_members;
DROP TRIGGER group_members_site_added ON group_members;
DROP TRIGGER feed_readers_site_removed ON feed_readers;
DROP TRIGGER feed_readers_site_added ON feed_readers;
DROP TRIGGER bans_site_removed ON bans;
DROP TRIGGER bans_site_added ON bans;
CREATE TRIGGER bans_site_added AFTER INSERT ON bans
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_site_change('user_id');
CREATE TRIGGER bans_site_removed AFTER DELETE ON bans
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_site_change('user_id');
CREATE TRIGGER feed_readers_site_added AFTER INSERT ON feed_readers
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_site_change('feed_id');
CREATE TRIGGER feed_readers_site_removed AFTER DELETE ON feed_readers
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_site_change('feed_id');
CREATE TRIGGER group_members_site_added AFTER INSERT ON group_members
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_site_change('feed_id');
CREATE TRIGGER group_members_site_updated AFTER UPDATE ON group_members
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_site_change('feed_id');
CREATE TRIGGER group_members_site_removed AFTER DELETE ON group_members
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_site_change('feed_id');
DROP FUNCTION record_readers_change;
ALTER TABLE site_changes DROP COLUMN readers;
