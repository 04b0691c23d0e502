-- +goose Up
-- Many instances, one site. Cursors are signed with keys kept here (created on first start,
-- rotated by `tributary keys rotate`), so a cursor made by one instance is good on every
-- other and after a restart. Changes that can make an instance's in-process state stale are
-- recorded by triggers in the writing transaction itself (never a NOTIFY there: PostgreSQL
-- serializes the commits of notifying transactions); instances read them by transaction id,
-- as snapshot_dirty is read, woken by a NOTIFY sent after commit or by their own poll.

CREATE TABLE cursor_keys (
    id         serial      PRIMARY KEY,
    secret     bytea       NOT NULL CHECK (length(secret) >= 32),
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE site_changes (
    id   bigserial   PRIMARY KEY,
    xid  bigint      NOT NULL DEFAULT (pg_current_xact_id()::text::bigint),
    -- The table changed; ids are the rows' subjects (posts, feeds, users), empty when too
    -- many to list (then: every one of them may have changed).
    kind text        NOT NULL,
    ids  bigint[]    NOT NULL DEFAULT '{}',
    at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX site_changes_xid_idx ON site_changes (xid);
CREATE INDEX site_changes_at_idx ON site_changes (at);

-- Each running instance: the newest wake-up token it has caught up after, and when it was
-- last heard of. A writer that needs its change honoured everywhere on the next request waits
-- until every instance heard of in the last seconds has caught up past its token.
CREATE TABLE site_instances (
    id         uuid        PRIMARY KEY,
    acked      bigint      NOT NULL DEFAULT 0,
    seen_at    timestamptz NOT NULL DEFAULT now(),
    started_at timestamptz NOT NULL DEFAULT now()
);
CREATE SEQUENCE site_wake_seq;

-- +goose StatementBegin
-- record_site_change logs one statement's change: kind is the table, ids the distinct values
-- of the column named by the trigger's argument in the changed rows (none above 1,000).
CREATE FUNCTION record_site_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    subjects bigint[];
    n        bigint;
BEGIN
    EXECUTE format('SELECT count(DISTINCT %1$I), array_agg(DISTINCT %1$I) FROM changed_rows', TG_ARGV[0])
       INTO n, subjects;
    IF n = 0 THEN
        RETURN NULL;
    END IF;
    INSERT INTO site_changes (kind, ids)
    VALUES (TG_TABLE_NAME, CASE WHEN n > 1000 THEN '{}' ELSE subjects END);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- Posts: deletions, and changes of access of posts someone could read. A share's post is
-- inserted readable by nobody and folded in the same transaction: not a change anyone saw.
-- Inserts are shares: read from posts by whoever needs them.
CREATE FUNCTION record_post_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    subjects bigint[];
    n        bigint;
BEGIN
    SELECT count(*), array_agg(nw.id) INTO n, subjects
      FROM old_posts o JOIN new_posts nw ON nw.id = o.id
     WHERE (o.deleted_at IS NULL AND nw.deleted_at IS NOT NULL)
        OR ((o.is_public OR o.protected_owner_ids <> '{}' OR o.private_feed_ids <> '{}')
            AND (o.is_public, o.protected_owner_ids, o.private_feed_ids)
                IS DISTINCT FROM (nw.is_public, nw.protected_owner_ids, nw.private_feed_ids));
    IF n > 0 THEN
        INSERT INTO site_changes (kind, ids) VALUES ('posts', CASE WHEN n > 1000 THEN '{}' ELSE subjects END);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER posts_site_change AFTER UPDATE ON posts
    REFERENCING OLD TABLE AS old_posts NEW TABLE AS new_posts FOR EACH STATEMENT EXECUTE FUNCTION record_post_change();
CREATE TRIGGER feeds_site_change AFTER UPDATE ON feeds
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_site_change('id');
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
CREATE TRIGGER bans_site_added AFTER INSERT ON bans
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_site_change('user_id');
CREATE TRIGGER bans_site_removed AFTER DELETE ON bans
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_site_change('user_id');
CREATE TRIGGER cursor_keys_site_added AFTER INSERT ON cursor_keys
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_site_change('id');

-- +goose StatementBegin
-- Users: who is a VIP (the anonymous front page) and who is private. Row-level, as a
-- statement trigger with a column list may not have transition tables; follows_version
-- bumps (one per follow) do not fire it.
CREATE FUNCTION record_user_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO site_changes (kind, ids) VALUES ('users', ARRAY[NEW.id]);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER users_site_change AFTER UPDATE OF vip, is_private, notability ON users
    FOR EACH ROW WHEN (OLD.vip IS DISTINCT FROM NEW.vip OR OLD.is_private IS DISTINCT FROM NEW.is_private
                       OR OLD.notability IS DISTINCT FROM NEW.notability)
    EXECUTE FUNCTION record_user_change();

-- +goose Down
DROP TRIGGER users_site_change ON users;
DROP FUNCTION record_user_change;
DROP TRIGGER cursor_keys_site_added ON cursor_keys;
DROP TRIGGER bans_site_removed ON bans;
DROP TRIGGER bans_site_added ON bans;
DROP TRIGGER group_members_site_removed ON group_members;
DROP TRIGGER group_members_site_updated ON group_members;
DROP TRIGGER group_members_site_added ON group_members;
DROP TRIGGER feed_readers_site_removed ON feed_readers;
DROP TRIGGER feed_readers_site_added ON feed_readers;
DROP TRIGGER feeds_site_change ON feeds;
DROP TRIGGER posts_site_change ON posts;
DROP FUNCTION record_post_change;
DROP FUNCTION record_site_change;
DROP SEQUENCE site_wake_seq;
DROP TABLE site_instances;
DROP TABLE site_changes;
DROP TABLE cursor_keys;
