-- +goose Up
-- A user's followed set has a version, moved by every change to their follows (one UPDATE
-- per statement, whatever the number of rows: COPY of millions of follows included), so the
-- feed service keeps a viewer's followed set and reads it again only when it changed.
ALTER TABLE users ADD COLUMN follows_version bigint NOT NULL DEFAULT 1; -- 0 is nobody's

-- +goose StatementBegin
CREATE FUNCTION bump_follows_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE users SET follows_version = follows_version + 1
     WHERE id IN (SELECT DISTINCT follower_id FROM changed_follows);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER follows_inserted AFTER INSERT ON follows
    REFERENCING NEW TABLE AS changed_follows FOR EACH STATEMENT EXECUTE FUNCTION bump_follows_version();
CREATE TRIGGER follows_updated AFTER UPDATE ON follows
    REFERENCING NEW TABLE AS changed_follows FOR EACH STATEMENT EXECUTE FUNCTION bump_follows_version();
CREATE TRIGGER follows_deleted AFTER DELETE ON follows
    REFERENCING OLD TABLE AS changed_follows FOR EACH STATEMENT EXECUTE FUNCTION bump_follows_version();

-- +goose Down
DROP TRIGGER follows_deleted ON follows;
DROP TRIGGER follows_updated ON follows;
DROP TRIGGER follows_inserted ON follows;
DROP FUNCTION bump_follows_version;
ALTER TABLE users DROP COLUMN follows_version;
