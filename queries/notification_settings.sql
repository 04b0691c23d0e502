-- name: NotificationSettings :one
SELECT u.notify_grouping,
       coalesce((SELECT p.policy FROM notification_policies p WHERE p.user_id = u.id AND p.kind = 'like'), 'everyone')::text AS likes,
       coalesce((SELECT p.policy FROM notification_policies p WHERE p.user_id = u.id AND p.kind = 'comment'), 'everyone')::text AS comments,
       coalesce((SELECT p.policy FROM notification_policies p WHERE p.user_id = u.id AND p.kind = 'mention'), 'everyone')::text AS mentions,
       coalesce((SELECT p.policy FROM notification_policies p WHERE p.user_id = u.id AND p.kind = 'follow'), 'everyone')::text AS follows
  FROM users u WHERE u.id = @user_id;

-- name: SetNotifyGrouping :exec
UPDATE users SET notify_grouping = @grouping WHERE id = @id;

-- name: SetNotificationPolicy :exec
INSERT INTO notification_policies (user_id, kind, policy) VALUES (@user_id, @kind, @policy)
ON CONFLICT (user_id, kind) DO UPDATE SET policy = EXCLUDED.policy;

-- name: ClearNotificationPolicy :exec
-- From everyone: no row.
DELETE FROM notification_policies WHERE user_id = @user_id AND kind = @kind;

-- name: MuteThread :exec
INSERT INTO thread_mutes (user_id, post_id) VALUES (@user_id, @post_id) ON CONFLICT DO NOTHING;

-- name: UnmuteThread :exec
DELETE FROM thread_mutes WHERE user_id = @user_id AND post_id = @post_id;

-- name: ThreadMuted :one
SELECT EXISTS (SELECT 1 FROM thread_mutes WHERE user_id = @user_id AND post_id = @post_id);
