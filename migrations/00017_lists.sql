-- +goose Up
-- Lists (seed 003's several friend feeds): a user's own feeds of chosen members, each ranked
-- like the home feed with its own fence. A list is private to its owner. An exclusive list's
-- members leave the owner's home feed (Mastodon's exclusive lists): the home feed's followed
-- set is the followees less them, so every change to a user's lists moves their
-- follows_version, and the feed service reads the set again.
CREATE TABLE lists (
    id         bigserial   PRIMARY KEY,
    owner_id   bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       text        NOT NULL,
    exclusive  boolean     NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX lists_owner_name_idx ON lists (owner_id, lower(name));

CREATE TABLE list_members (
    list_id   bigint NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
    member_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (list_id, member_id)
);
CREATE INDEX list_members_member_idx ON list_members (member_id);

-- +goose StatementBegin
CREATE FUNCTION bump_list_owner_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE users SET follows_version = follows_version + 1
     WHERE id IN (SELECT DISTINCT l.owner_id FROM lists l WHERE l.id IN (SELECT list_id FROM changed_members));
    RETURN NULL;
END
$$;
CREATE FUNCTION bump_list_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE users SET follows_version = follows_version + 1
     WHERE id IN (SELECT DISTINCT owner_id FROM changed_lists);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER list_members_inserted AFTER INSERT ON list_members
    REFERENCING NEW TABLE AS changed_members FOR EACH STATEMENT EXECUTE FUNCTION bump_list_owner_version();
CREATE TRIGGER list_members_deleted AFTER DELETE ON list_members
    REFERENCING OLD TABLE AS changed_members FOR EACH STATEMENT EXECUTE FUNCTION bump_list_owner_version();
CREATE TRIGGER lists_updated AFTER UPDATE ON lists
    REFERENCING NEW TABLE AS changed_lists FOR EACH STATEMENT EXECUTE FUNCTION bump_list_version();
CREATE TRIGGER lists_deleted AFTER DELETE ON lists
    REFERENCING OLD TABLE AS changed_lists FOR EACH STATEMENT EXECUTE FUNCTION bump_list_version();

-- +goose Down
DROP TABLE list_members;
DROP TABLE lists;
DROP FUNCTION bump_list_version;
DROP FUNCTION bump_list_owner_version;
