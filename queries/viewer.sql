-- name: ViewerState :one
-- Everything ranking needs to know of a logged-in viewer, in one round trip: the followed set
-- (the followees, in the primary key's order: no sort; NULL when it is still the version the
-- caller knows), the seen items, the fresh own shares, when the snapshot was last rebuilt,
-- and the rows redone by
-- transactions from changes_from on (what the feed service's copy of the snapshot has to
-- catch up on), with the oldest transaction still running (where to look from next time).
-- Also the fencepost the page starts from, which a separate query fetched one round trip
-- later: of the fence of fence_template, the one at fence_at, or the fence's latest when
-- fence_at is NULL (fence_found false: there is none). With a list_id, the followed set is
-- that list's members (list_found false: the viewer has no such list); without, the followees
-- less the members of the viewer's exclusive lists.
-- The access context is not here: a session's read brings it (SessionWithAccess), and a
-- caller without it reads it in the same round trip (ViewerAccessOf). Left out, its five
-- subqueries were a fifth of this statement's cost, most of which is starting and ending a
-- plan of some fifty scans, whether or not they run.
-- The plan is prepared once (db/plans.go): a range between two parameters keeps the
-- index on snapshot_dirty in a generic plan, where an open-ended one was read whole.
WITH v AS (SELECT @viewer_id::bigint AS id, @seen_from::timestamptz AS seen_from, @seen_to::timestamptz AS seen_to,
                  @min_dwell_ms::bigint AS min_dwell, @fresh_since::timestamptz AS fresh_since,
                  @changes_from::bigint AS changes_from, @changes_to::bigint AS changes_to,
                  @known_follows_version::bigint AS known_version,
                  @fence_template::text AS fence_template, sqlc.narg(fence_at)::timestamptz AS fence_at,
                  @list_id::bigint AS list_id),
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
