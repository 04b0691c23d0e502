-- +goose Up
-- Live pages: what open pages hear of, recorded in the writing transaction like every other
-- site change (read by transaction id, woken by a NOTIFY sent after commit): new posts, and
-- the talk of posts (likes, comments: a comment may bump its post into a chronological
-- feed's "N new"). Only ids: an open page learns what changed by asking as its reader. The
-- seeder writes these tables without them (the names start with live_changes_).

-- +goose StatementBegin
CREATE FUNCTION record_new_posts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    subjects bigint[] := ARRAY(SELECT n.id FROM new_rows n);
BEGIN
    INSERT INTO site_changes (kind, ids)
    VALUES ('new_posts', CASE WHEN cardinality(subjects) > 1000 THEN '{}' ELSE subjects END);
    RETURN NULL;
END
$$;

CREATE FUNCTION record_talk() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    subjects bigint[];
BEGIN
    IF TG_OP = 'DELETE' THEN
        subjects := ARRAY(SELECT DISTINCT o.post_id FROM old_rows o);
    ELSE
        subjects := ARRAY(SELECT DISTINCT n.post_id FROM new_rows n);
    END IF;
    IF subjects <> '{}' THEN
        INSERT INTO site_changes (kind, ids)
        VALUES ('talk', CASE WHEN cardinality(subjects) > 1000 THEN '{}' ELSE subjects END);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER live_changes_new_posts AFTER INSERT ON posts
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION record_new_posts();
CREATE TRIGGER live_changes_new_likes AFTER INSERT ON likes
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION record_talk();
CREATE TRIGGER live_changes_old_likes AFTER DELETE ON likes
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION record_talk();
CREATE TRIGGER live_changes_new_comments AFTER INSERT ON comments
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION record_talk();
CREATE TRIGGER live_changes_changed_comments AFTER UPDATE ON comments
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION record_talk();
CREATE TRIGGER live_changes_old_comments AFTER DELETE ON comments
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION record_talk();

-- +goose Down
DROP TRIGGER live_changes_old_comments ON comments;
DROP TRIGGER live_changes_changed_comments ON comments;
DROP TRIGGER live_changes_new_comments ON comments;
DROP TRIGGER live_changes_old_likes ON likes;
DROP TRIGGER live_changes_new_likes ON likes;
DROP TRIGGER live_changes_new_posts ON posts;
DROP FUNCTION record_talk;
DROP FUNCTION record_new_posts;
