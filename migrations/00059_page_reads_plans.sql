-- +goose Up
-- A feed page's reads for the same cost through a pooler: a signed-in request's session
-- (SessionWithAccess), a feed page's viewer state (ViewerState), and its items' likes by the
-- reader (LikedOf). The first two take about 1 ms each to plan (fifteen and fifty scans) and
-- 0.2 ms to run; the third 0.3 ms to plan and 0.1 ms to run. A named prepared statement is
-- planned once per connection; through PgBouncer in transaction mode (before 1.21) none is
-- kept, so every page paid the planning. PL/pgSQL keeps a function's plans in the server
-- process, which outlives the pooler's transactions: each read is now a function's.

-- session_users is a live session with its user, what the access rules need of them, and what
-- says whether a count of their unread notifications kept by an instance still holds
-- (db/unread.go). A session unused for 30 days (sessionIdle in db/sessions.go) is over, as one
-- past its expiry is.
CREATE VIEW session_users AS
SELECT s.token_hash, s.data, s.seen_at,
       u.id, u.handle, u.display_name, u.password_hash, u.vip, u.notability, u.is_private, u.created_at,
       u.follows_version, u.home_activity, u.notify_grouping, u.bio, u.avatar, u.avatar_large,
       u.exported_at, u.deleted_at,
       a.blocked, a.private_feeds, a.hidden, a.muted, a.muted_collapse, a.groups, a.group_names,
       coalesce((SELECT n.id FROM notifications n WHERE n.recipient_id = u.id
                  ORDER BY n.created_at DESC, n.id DESC LIMIT 1), 0)::bigint AS newest_id,
       coalesce((SELECT (extract(epoch FROM r.read_upto) * 1e6)::bigint FROM notification_reads r
                  WHERE r.user_id = u.id), 0)::bigint AS read_upto_us,
       coalesce((SELECT max(c.id) FROM site_changes c WHERE c.kind IN ('posts', 'users')), 0)::bigint AS access_change
  FROM sessions s
  JOIN users u ON u.id = s.user_id AND u.deleted_at IS NULL
  JOIN viewer_access a ON a.viewer_id = u.id
 WHERE current_timestamp < s.expiry AND s.seen_at > current_timestamp - interval '30 days';

-- +goose StatementBegin
CREATE FUNCTION session_user_of(token bytea) RETURNS SETOF session_users LANGUAGE plpgsql STABLE ROWS 1 AS $$
BEGIN
    RETURN QUERY SELECT * FROM session_users s WHERE s.token_hash = token;
END
$$;
-- +goose StatementEnd

-- viewer_state_rows is only the row type of viewer_state (sqlc reads the columns of a
-- function's rows from the table or view it returns); it has no rows.
CREATE VIEW viewer_state_rows AS
SELECT 0::bigint AS follows_version, true AS home_activity, false AS followed_known, '{}'::bigint[] AS followed,
       true AS list_found, false AS has_exclusive, '{}'::bigint[] AS seen, '{}'::bigint[] AS fresh_ids,
       '{}'::timestamptz[] AS fresh_at, 'epoch'::timestamptz AS snapshot_at, '{}'::bigint[] AS changed_ids,
       '{}'::bigint[] AS changed_xids, 0::bigint AS changes_upto, false AS fence_found,
       'epoch'::timestamptz AS fencepost_at, 'epoch'::timestamptz AS fencepost_prev_at,
       '{}'::bigint[] AS fencepost_head, ''::text AS fencepost_snap, ''::text AS snap
 WHERE false;

-- viewer_state is what ranking needs to know of a logged-in viewer (queries/viewer.sql says
-- what each column is). STABLE: its reads, and the snapshot it reports, are its caller's.
-- +goose StatementBegin
CREATE FUNCTION viewer_state(viewer_id bigint, seen_from timestamptz, seen_to timestamptz, min_dwell_ms bigint,
                             fresh_since timestamptz, changes_from bigint, changes_to bigint,
                             known_follows_version bigint, fence_template text, fence_at timestamptz, list_id bigint)
RETURNS SETOF viewer_state_rows LANGUAGE plpgsql STABLE ROWS 1 AS $$
BEGIN
    RETURN QUERY WITH v AS (SELECT $1 AS id, $2 AS seen_from, $3 AS seen_to,
                      $4 AS min_dwell, $5 AS fresh_since,
                      $6 AS changes_from, $7 AS changes_to,
                      $8 AS known_version,
                      $9 AS fence_template, $10 AS fence_at,
                      $11 AS list_id),
         u AS (SELECT users.follows_version, users.home_activity FROM users, v WHERE users.id = v.id),
         fp AS (SELECT fp.at, fp.prev_at, fp.head, fp.snap FROM fenceposts fp, v
                 WHERE fp.viewer_id = v.id AND fp.template = v.fence_template
                   AND fp.at = coalesce(v.fence_at, (SELECT f.latest FROM fences f
                                                      WHERE f.viewer_id = v.id AND f.template = v.fence_template)))
    SELECT coalesce((SELECT u.follows_version FROM u), 0)::bigint AS follows_version,
           coalesce((SELECT u.home_activity FROM u), true)::boolean AS home_activity,
           (v.list_id = 0 AND coalesce((SELECT u.follows_version FROM u) = v.known_version, false))::boolean AS followed_known,
           CASE WHEN v.list_id <> 0
                THEN ARRAY(SELECT m.member_id FROM list_members m JOIN lists l ON l.id = m.list_id
                            WHERE m.list_id = v.list_id AND l.owner_id = v.id ORDER BY m.member_id)
                WHEN (SELECT u.follows_version FROM u) = v.known_version THEN NULL
                ELSE ARRAY(SELECT f.followed_id FROM follows f WHERE f.follower_id = v.id AND f.state = 'active'
                              AND NOT EXISTS (SELECT 1 FROM list_members m JOIN lists l ON l.id = m.list_id
                                               WHERE l.owner_id = v.id AND l.exclusive AND m.member_id = f.followed_id)
                           ORDER BY f.followed_id) END::bigint[] AS followed,
           (v.list_id = 0 OR EXISTS (SELECT 1 FROM lists l WHERE l.id = v.list_id AND l.owner_id = v.id))::boolean AS list_found,
           EXISTS (SELECT 1 FROM lists l WHERE l.owner_id = v.id AND l.exclusive)::boolean AS has_exclusive,
           ARRAY(SELECT e.anchor_id FROM events e
                  WHERE e.viewer_id = v.id AND e.type = 7 AND e.created_at >= v.seen_from AND e.created_at < v.seen_to
                  GROUP BY e.anchor_id HAVING sum(e.dwell_ms) >= v.min_dwell)::bigint[] AS seen,
           ARRAY(SELECT p.anchor_id FROM posts p
                  WHERE p.author_id = v.id AND p.created_at >= v.fresh_since AND p.deleted_at IS NULL
                  GROUP BY p.anchor_id ORDER BY p.anchor_id)::bigint[] AS fresh_ids,
           ARRAY(SELECT max(p.created_at) FROM posts p
                  WHERE p.author_id = v.id AND p.created_at >= v.fresh_since AND p.deleted_at IS NULL
                  GROUP BY p.anchor_id ORDER BY p.anchor_id)::timestamptz[] AS fresh_at,
           coalesce((SELECT m.refreshed_at FROM snapshot_meta m), 'epoch')::timestamptz AS snapshot_at,
           ARRAY(SELECT d.anchor_id FROM snapshot_dirty d WHERE d.xid BETWEEN v.changes_from AND v.changes_to
                  ORDER BY d.xid, d.anchor_id)::bigint[] AS changed_ids,
           ARRAY(SELECT d.xid FROM snapshot_dirty d WHERE d.xid BETWEEN v.changes_from AND v.changes_to
                  ORDER BY d.xid, d.anchor_id)::bigint[] AS changed_xids,
           pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS changes_upto,
           EXISTS (SELECT 1 FROM fp) AS fence_found,
           coalesce((SELECT fp.at FROM fp), 'epoch')::timestamptz AS fencepost_at,
           coalesce((SELECT fp.prev_at FROM fp), 'epoch')::timestamptz AS fencepost_prev_at, -- epoch: none
           coalesce((SELECT fp.head FROM fp), '{}')::bigint[] AS fencepost_head,
           coalesce((SELECT fp.snap FROM fp), '')::text AS fencepost_snap,
           pg_current_snapshot()::text AS snap -- before the page's reads: a new fencepost keeps it
      FROM v;
END
$$;
-- +goose StatementEnd

-- liked_of_rows is only the row type of liked_of; it has no rows.
CREATE VIEW liked_of_rows AS SELECT 0::bigint AS anchor_id, 0::bigint AS post_id WHERE false;

-- liked_of is a reader's likes of some items (queries/talk.sql, LikedOf), on its one plan.
-- +goose StatementBegin
CREATE FUNCTION liked_of(viewer_id bigint, anchor_ids bigint[], private_feeds bigint[])
RETURNS SETOF liked_of_rows LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    RETURN QUERY
    SELECT l.anchor_id, min(l.post_id)::bigint AS post_id
      FROM likes l
     WHERE l.user_id = $1 AND l.anchor_id = ANY($2)
       AND (l.public OR EXISTS (SELECT 1 FROM posts p WHERE p.id = l.post_id AND p.deleted_at IS NULL
              AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, $1, '{}'::bigint[], $3)))
     GROUP BY l.anchor_id;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION liked_of(bigint, bigint[], bigint[]);
DROP VIEW liked_of_rows;
DROP FUNCTION viewer_state(bigint, timestamptz, timestamptz, bigint, timestamptz, bigint, bigint, bigint, text, timestamptz, bigint);
DROP VIEW viewer_state_rows;
DROP FUNCTION session_user_of(bytea);
DROP VIEW session_users;
