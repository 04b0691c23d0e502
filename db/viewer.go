package db

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"tributary"
	"tributary/db/internal/dbq"
)

// ViewerState is what ranking needs to know of a logged-in viewer, read in one round trip.
type ViewerState struct {
	Access   tributary.Viewer
	Followed tributary.IDSet // the followees and the viewer (empty when FollowedKnown)
	// FollowsVersion is the followed set's version; FollowedKnown says it is the one the
	// caller has, so Followed was not read.
	FollowsVersion int64
	FollowedKnown  bool
	// SetOnly: Followed is the whole set, never to be read from follows (a list's members,
	// or the followees less the members of the viewer's exclusive lists).
	SetOnly      bool
	Seen         []int64
	HomeActivity bool                // the home feed brings in followees' likes and comments
	Fresh        map[int64]time.Time // own shares since the fresh-self cutoff
	Snapshot     time.Time           // when the snapshot was last rebuilt (zero: never)
	// Changes are the rows redone by transactions from the ChangesFrom asked for on;
	// ChangesUpTo is the oldest transaction still running: the next ChangesFrom.
	Changes     []SnapshotChange
	ChangesUpTo int64
	// Fencepost is the fencepost asked for (ViewerQuery.Fence), when FencepostFound.
	Fencepost      FencepostRow
	FencepostFound bool
	// Snap is the snapshot the state was read in, before the page's reads: a fencepost the
	// page commits keeps it (FencepostRow.Snap).
	Snap string
}

// SnapshotChange says a snapshot row was redone (or removed) by a transaction.
type SnapshotChange struct {
	AnchorID int64
	XID      int64
}

// ViewerQuery asks for a viewer's state: seen items are those with dwell in [SeenFrom,
// SeenTo) summing to MinDwellMs; fresh shares are those since FreshSince; snapshot changes
// those of transactions from ChangesFrom on (0: none).
type ViewerQuery struct {
	ViewerID         int64
	SeenFrom, SeenTo time.Time
	MinDwellMs       int64
	FreshSince       time.Time
	ChangesFrom      int64
	// FollowsVersion is the version of the followed set the caller has (0: none; versions
	// start at 1): when it is still current, the state comes without the set (FollowedKnown).
	FollowsVersion int64
	// A fencepost of the viewer's fence of FenceTemplate comes along: the one at FenceAt, or
	// the fence's latest when FenceAt is zero (what Fencepost and LatestFencepost return).
	FenceTemplate string
	FenceAt       time.Time
	// ListID: the followed set is the members of this list of the viewer's (0: the home
	// feed's). A list that is not the viewer's is not found (ENotFound).
	ListID int64
	// AccessKnown: the caller has the viewer's access (read with their session): the state
	// comes without it.
	AccessKnown bool
}

// LoadViewer reads a viewer's state in one round trip, their access with it unless the
// caller has it (AccessKnown).
func (s *Store) LoadViewer(ctx context.Context, vq ViewerQuery) (ViewerState, error) {
	if vq.AccessKnown {
		r, err := s.q.ViewerState(ctx, viewerParams(vq))
		if err != nil {
			return ViewerState{}, fmt.Errorf("db: viewer state: %w", err)
		}
		return viewerStateOf(vq, r)
	}
	var r dbq.ViewerStateRow
	var a dbq.ViewerAccess
	errs := s.pipeline(ctx,
		func(q *dbq.Queries) (err error) { r, err = q.ViewerState(ctx, viewerParams(vq)); return err },
		func(q *dbq.Queries) (err error) { a, err = q.ViewerAccessOf(ctx, vq.ViewerID); return err })
	if errors.Is(errs[1], pgx.ErrNoRows) { // no such user: no access of theirs
		a, errs[1] = dbq.ViewerAccess{ViewerID: vq.ViewerID}, nil
	}
	if err := cmp.Or(errs...); err != nil {
		return ViewerState{}, fmt.Errorf("db: viewer state: %w", err)
	}
	st, err := viewerStateOf(vq, r)
	st.Access = viewerAccessOf(a)
	return st, err
}

// viewerParams are the ViewerState query's arguments for vq.
func viewerParams(vq ViewerQuery) dbq.ViewerStateParams {
	from, to := vq.ChangesFrom, vq.ChangesFrom+1<<40 // transaction ids grow by far less
	if from == 0 {
		from, to = math.MaxInt64, math.MaxInt64
	}
	return dbq.ViewerStateParams{ViewerID: vq.ViewerID, SeenFrom: vq.SeenFrom, SeenTo: vq.SeenTo,
		MinDwellMs: vq.MinDwellMs, FreshSince: vq.FreshSince, ChangesFrom: from, ChangesTo: to, KnownFollowsVersion: vq.FollowsVersion,
		FenceTemplate: vq.FenceTemplate, FenceAt: timeOrNil(vq.FenceAt), ListID: vq.ListID}
}

// viewerStateOf is the state the ViewerState query read for vq.
func viewerStateOf(vq ViewerQuery, r dbq.ViewerStateRow) (ViewerState, error) {
	viewerID := vq.ViewerID
	if !r.ListFound {
		return ViewerState{}, tributary.Errorf(tributary.ENotFound, "No such list.")
	}
	st := ViewerState{Access: viewerAccessOf(dbq.ViewerAccess{ViewerID: viewerID}), // the caller's to fill
		Seen: r.Seen, HomeActivity: r.HomeActivity, Fresh: make(map[int64]time.Time, len(r.FreshIds)),
		FollowsVersion: r.FollowsVersion, FollowedKnown: r.FollowedKnown}
	st.SetOnly = vq.ListID != 0 || r.HasExclusive
	switch {
	case vq.ListID != 0:
		st.Followed = tributary.NewIDSet(r.Followed)
	case !r.FollowedKnown:
		st.Followed = tributary.NewIDSet(append(r.Followed, viewerID))
	}
	for i, id := range r.FreshIds {
		st.Fresh[id] = r.FreshAt[i]
	}
	if r.SnapshotAt.After(time.Unix(0, 0)) {
		st.Snapshot = r.SnapshotAt
	}
	for i, id := range r.ChangedIds {
		st.Changes = append(st.Changes, SnapshotChange{AnchorID: id, XID: r.ChangedXids[i]})
	}
	st.ChangesUpTo, st.Snap = r.ChangesUpto, r.Snap
	if r.FenceFound {
		st.Fencepost, st.FencepostFound = FencepostRow{At: r.FencepostAt.UTC(), Head: r.FencepostHead, Snap: r.FencepostSnap}, true
		if r.FencepostPrevAt.After(time.Unix(0, 0)) {
			st.Fencepost.PrevAt = r.FencepostPrevAt.UTC()
		}
	}
	return st, nil
}
