-- +goose Up
-- Who a handle names (id, handle, display name) is kept by each instance for the pages asked
-- for by handle (web/usernames.go): a new handle or display name, or a deleted user, is a
-- 'users' change too, which every instance hears of and empties its names on.
DROP TRIGGER users_site_change ON users;
CREATE TRIGGER users_site_change AFTER UPDATE OF vip, is_private, notability, handle, display_name ON users
    FOR EACH ROW WHEN (OLD.vip IS DISTINCT FROM NEW.vip OR OLD.is_private IS DISTINCT FROM NEW.is_private
                       OR OLD.notability IS DISTINCT FROM NEW.notability OR OLD.handle IS DISTINCT FROM NEW.handle
                       OR OLD.display_name IS DISTINCT FROM NEW.display_name)
    EXECUTE FUNCTION record_user_change();
CREATE TRIGGER users_site_deleted AFTER DELETE ON users
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_site_change('id');

-- +goose Down
DROP TRIGGER users_site_deleted ON users;
DROP TRIGGER users_site_change ON users;
CREATE TRIGGER users_site_change AFTER UPDATE OF vip, is_private, notability ON users
    FOR EACH ROW WHEN (OLD.vip IS DISTINCT FROM NEW.vip OR OLD.is_private IS DISTINCT FROM NEW.is_private
                       OR OLD.notability IS DISTINCT FROM NEW.notability)
    EXECUTE FUNCTION record_user_change();
