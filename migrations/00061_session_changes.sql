-- +goose Up
-- A session that ends (logged out, ended from the sessions page, a password changed, expired
-- and swept) or changes hands is logged as a change naming its user: every instance's open
-- streams of that reader read their session again at once and end. Open streams then need
-- not read their session at every heartbeat to learn of it. Anonymous sessions log nothing.

-- +goose StatementBegin
CREATE FUNCTION record_sessions_ended() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    readers bigint[];
    n       bigint;
BEGIN
    SELECT count(DISTINCT user_id), array_agg(DISTINCT user_id) FILTER (WHERE user_id IS NOT NULL)
      INTO n, readers FROM changed_rows;
    IF n > 0 THEN
        INSERT INTO site_changes (kind, readers) VALUES ('sessions', CASE WHEN n > 1000 THEN NULL ELSE readers END);
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION record_session_user_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO site_changes (kind, readers) VALUES ('sessions', ARRAY[OLD.user_id]);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER sessions_site_removed AFTER DELETE ON sessions
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_sessions_ended();
-- Row by row, so that the writes of every request's session (the same user) run no function.
CREATE TRIGGER sessions_site_user_changed AFTER UPDATE OF user_id ON sessions
    FOR EACH ROW WHEN (OLD.user_id IS NOT NULL AND OLD.user_id IS DISTINCT FROM NEW.user_id)
    EXECUTE FUNCTION record_session_user_changed();

-- +goose Down
DROP TRIGGER sessions_site_user_changed ON sessions;
DROP TRIGGER sessions_site_removed ON sessions;
DROP FUNCTION record_session_user_changed;
DROP FUNCTION record_sessions_ended;
