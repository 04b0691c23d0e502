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
-- The statement is viewer_state's (migration 00059), whose plan the server keeps even
-- through a pooler: a range between two parameters keeps the index on snapshot_dirty in a
-- generic plan, where an open-ended one was read whole.
SELECT v.* FROM viewer_state(@viewer_id::bigint, @seen_from::timestamptz, @seen_to::timestamptz, @min_dwell_ms::bigint,
                       @fresh_since::timestamptz, @changes_from::bigint, @changes_to::bigint,
                       @known_follows_version::bigint, @fence_template::text, sqlc.narg(fence_at)::timestamptz,
                       @list_id::bigint) v;
