-- +goose Up
-- Instances keep each reader's unread count (db/unread.go) and drop it on the changes the
-- session read cannot see: a notification removed (a like taken back, a comment deleted, a
-- prune) is now one of them, its readers the recipients.
CREATE TRIGGER notifications_site_removed AFTER DELETE ON notifications
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION record_readers_change('recipient_id', 'recipient_id', 'recipient_id');

-- +goose Down
DROP TRIGGER notifications_site_removed ON notifications;
