-- name: Notifications :many
-- A page of the viewer's notifications, newest first, before a cursor: each line is a group's
-- newest row the viewer may see (or a row that never groups), with its group's count and its
-- newest few actors. Every row is shown only while the viewer may see it (the rule
-- notification_unread states, spelled out so that the planner looks each
-- row's post up by id), so lines and counts change at once with access. A group's rows share
-- its head's post (the key names it), so only the head's post is looked up; what the line is
-- about (its post's title, its comment's first lines) is read in the same probes.
WITH marker AS (
    SELECT coalesce((SELECT r.read_upto FROM notification_reads r WHERE r.user_id = @viewer_id::bigint), '-infinity'::timestamptz) AS upto),
heads AS (
    SELECT n.id, n.type, n.actor_id, n.post_id, n.comment_id, n.group_id, n.group_key, n.read, n.created_at,
           CASE WHEN sp.title <> '' THEN sp.title ELSE left(sp.body, 120) END AS post_title,
           left(sc.body, 280) AS comment_excerpt
      FROM notifications n
      LEFT JOIN posts sp ON sp.id = n.post_id
      LEFT JOIN comments sc ON sc.id = n.comment_id
     WHERE n.recipient_id = @viewer_id::bigint AND (n.created_at, n.id) < (@before_at::timestamptz, @before_id::bigint)
       AND n.actor_id <> ALL (@blocked::bigint[])
       AND (n.post_id IS NULL OR (sp.id IS NOT NULL AND sp.deleted_at IS NULL
            AND can_read(sp.is_public, sp.protected_owner_ids, sp.private_feed_ids, @viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[])))
       AND (n.comment_id IS NULL OR sc.id IS NOT NULL)
       AND (n.group_key IS NULL OR NOT EXISTS (
            SELECT 1 FROM notifications m
             WHERE m.recipient_id = @viewer_id::bigint AND m.group_key = n.group_key AND (m.created_at, m.id) > (n.created_at, n.id)
               AND m.actor_id <> ALL (@blocked::bigint[])
               AND m.post_id IS NOT DISTINCT FROM n.post_id AND m.comment_id IS NOT DISTINCT FROM n.comment_id))
     ORDER BY n.created_at DESC, n.id DESC
     LIMIT @lim::int)
SELECT h.id, h.type, h.post_id, coalesce((SELECT g.name FROM feeds g WHERE g.id = h.group_id), '')::text AS group_name, h.created_at,
       (NOT h.read AND h.created_at > (SELECT upto FROM marker))::boolean AS unread,
       a.count, a.actors,
       coalesce(h.post_title, '')::text AS post_title,
       coalesce(h.comment_excerpt, '')::text AS comment_excerpt
  FROM heads h
  -- A line that never groups is its head alone; a group's is counted on the group's index
  -- (an OR of the two read both indexes for every line), and its newest three actors read
  -- down that index in its order (an ordered array_agg sorted every group's rows).
  CROSS JOIN LATERAL (
      SELECT 1 AS count, ARRAY[u.handle]::text[] AS actors FROM users u WHERE h.group_key IS NULL AND u.id = h.actor_id
      UNION ALL
      SELECT g.count, ARRAY(SELECT (SELECT u.handle FROM users u WHERE u.id = m.actor_id) FROM notifications m
               WHERE m.recipient_id = @viewer_id::bigint AND m.group_key = h.group_key
                 AND m.actor_id <> ALL (@blocked::bigint[])
                 AND m.post_id IS NOT DISTINCT FROM h.post_id AND m.comment_id IS NOT DISTINCT FROM h.comment_id
               ORDER BY m.created_at DESC, m.id DESC LIMIT 3)::text[]
        FROM (SELECT count(*)::int AS count
                FROM notifications m
               WHERE h.group_key IS NOT NULL AND m.recipient_id = @viewer_id::bigint AND m.group_key = h.group_key
                 AND m.actor_id <> ALL (@blocked::bigint[])
                 AND m.post_id IS NOT DISTINCT FROM h.post_id AND m.comment_id IS NOT DISTINCT FROM h.comment_id
              HAVING count(*) > 0) g) a
 ORDER BY h.created_at DESC, h.id DESC;

-- name: UnreadNotifications :one
SELECT notification_unread(@viewer_id::bigint, @blocked::bigint[], @private_feeds::bigint[])::int AS unread;

-- name: MarkNotificationsRead :exec
-- Everything up to now is read, on every device; the marker never moves back.
INSERT INTO notification_reads (user_id, read_upto) VALUES (@user_id, @upto)
ON CONFLICT (user_id) DO UPDATE SET read_upto = greatest(notification_reads.read_upto, EXCLUDED.read_upto);

-- name: OpenNotification :one
-- Marks a line of the viewer's read (the row and its group's) and says where it leads.
WITH n AS (
    SELECT x.id, x.type, x.post_id, x.group_id, x.group_key, x.actor_id FROM notifications x
     WHERE x.id = @id AND x.recipient_id = @viewer_id::bigint),
marked AS (
    UPDATE notifications m SET read = true FROM n
     WHERE m.recipient_id = @viewer_id::bigint AND NOT m.read
       AND (m.id = n.id OR (n.group_key IS NOT NULL AND m.group_key = n.group_key)))
SELECT n.type, n.post_id, coalesce(g.name, '')::text AS group_name, u.handle AS actor
  FROM n JOIN users u ON u.id = n.actor_id LEFT JOIN feeds g ON g.id = n.group_id;

-- name: ReadPostNotifications :execrows
-- Opening a post reads the viewer's notifications about it.
UPDATE notifications SET read = true
 WHERE recipient_id = @viewer_id::bigint AND post_id = @post_id::bigint AND NOT read;

-- name: TakeNotificationFanouts :many
-- Takes up to max_rows comments and posts whose fan-out is due (each by one taker).
DELETE FROM notification_fanouts f
 WHERE f.id IN (SELECT x.id FROM notification_fanouts x ORDER BY x.id LIMIT @max_rows::int FOR UPDATE SKIP LOCKED)
RETURNING f.post_id, f.comment_id;

-- name: FanOutComment :one
-- A comment's fan-out, its mentions and replies: fan_out_comment's (migration 00063), on its
-- one generic plan. Returns how many notifications it wrote.
SELECT fan_out_comment(@comment_id::bigint)::bigint AS written;

-- name: FanOutPost :execrows
-- A post's mentions (the first 20 handles), each once.
WITH p AS (SELECT x.id, x.author_id, x.created_at, x.mentions[1:20] AS mentions FROM posts x WHERE x.id = @post_id AND x.deleted_at IS NULL)
INSERT INTO notifications (recipient_id, type, actor_id, post_id, created_at)
SELECT DISTINCT u.id, 'mention', p.author_id, p.id, p.created_at
  FROM p, unnest(p.mentions) h(handle) JOIN users u ON lower(u.handle) = lower(h.handle)
 WHERE notify_allowed(u.id, p.author_id, 'mention')
ON CONFLICT DO NOTHING;

-- name: PruneNotifications :execrows
-- Any 10,000 of the old rows at a time, found on the BRIN index of their times.
DELETE FROM notifications WHERE id IN (SELECT n.id FROM notifications n WHERE n.created_at < @before LIMIT 10000);
