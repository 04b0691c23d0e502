-- +goose Up
-- The session read checks a kept unread count against the newest change of posts' access or
-- users' privacy (db/unread.go), as an index probe.
CREATE INDEX site_changes_access_idx ON site_changes (id) WHERE kind IN ('posts', 'users');

-- +goose Down
DROP INDEX site_changes_access_idx;
