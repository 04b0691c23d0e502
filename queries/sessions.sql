-- name: SessionWithAccess :one
-- A live session that names its user, with the user and what the access rules need of them
-- (session_user_of, migration 00059): the one round trip every signed-in request makes before
-- its page's; and the user's unread notifications, which every page's header shows. The count
-- is -1 when the one this instance kept (kept_*, db/unread.go) still holds as far as this read
-- can tell: the same user, newest notification, read-up-to marker, bans and private feeds,
-- and no change of posts' access or users' privacy since.
SELECT su.*,
       CASE WHEN su.id = @kept_user::bigint AND su.newest_id = @kept_newest_id::bigint
                 AND su.read_upto_us = @kept_read_upto_us::bigint AND su.access_change = @kept_access_change::bigint
                 AND su.blocked = @kept_blocked::bigint[] AND su.private_feeds = @kept_private_feeds::bigint[] THEN -1
            ELSE notification_unread(su.id, su.blocked, su.private_feeds) END::int AS unread
  FROM session_user_of(@token_hash) su;

-- name: SessionData :one
-- A session's data (one that names no user, or whose user is gone).
SELECT data, seen_at FROM sessions
 WHERE token_hash = @token_hash AND current_timestamp < expiry AND seen_at > current_timestamp - interval '30 days';

-- name: CommitSession :exec
-- Writes a session; its User-Agent is kept when the write has none (a write outside a request).
INSERT INTO sessions (token_hash, data, expiry, user_id, user_agent)
VALUES (@token_hash, @data, @expiry, @user_id, @user_agent)
ON CONFLICT (token_hash) DO UPDATE SET data = EXCLUDED.data, expiry = EXCLUDED.expiry, user_id = EXCLUDED.user_id,
    seen_at = now(), user_agent = CASE WHEN EXCLUDED.user_agent = '' THEN sessions.user_agent ELSE EXCLUDED.user_agent END;

-- name: UpdateSession :exec
-- Writes a session read at the request's start: a session ended meanwhile (logged out from
-- elsewhere, a password changed) stays ended rather than being written again.
UPDATE sessions SET data = @data, expiry = @expiry, user_id = @user_id, seen_at = now(),
       user_agent = CASE WHEN @user_agent::text = '' THEN user_agent ELSE @user_agent::text END
 WHERE token_hash = @token_hash;

-- name: TouchSession :exec
-- A session is used: its idle timeout starts again.
UPDATE sessions SET seen_at = now() WHERE token_hash = @token_hash;

-- name: DeleteSession :exec
DELETE FROM sessions WHERE token_hash = @token_hash;

-- name: UserSessions :many
-- A user's open sessions, the most recently used first; current says which is token_hash's.
SELECT id, created_at, seen_at, user_agent, (token_hash = @token_hash)::boolean AS current
  FROM sessions
 WHERE user_id = @user_id AND current_timestamp < expiry AND seen_at > current_timestamp - interval '30 days'
 ORDER BY seen_at DESC, id DESC;

-- name: DeleteUserSession :one
-- Ends one of a user's sessions, by its id; current says whether it was token_hash's.
DELETE FROM sessions WHERE id = @id AND user_id = @user_id RETURNING (token_hash = @token_hash)::boolean AS current;

-- name: DeleteUserSessions :execrows
-- Ends every session of a user but the one of keep_hash (none: every one).
DELETE FROM sessions WHERE user_id = @user_id AND token_hash <> @keep_hash;

-- name: DeleteExpiredSessions :execrows
-- Sessions past their expiry or unused for 30 days.
DELETE FROM sessions WHERE expiry < now() OR seen_at < now() - interval '30 days';
