package db

// Late commits (issue 44.17): a share is dated by its instance's clock before its
// transaction, so one that commits after a reader's fencepost can be dated before it and an
// interval (From, To] never lists it. A fencepost keeps the snapshot its reads saw
// (XactSnapshot); the shares that snapshot could not see are found by LateArrivals.

import (
	"context"
	"fmt"
	"slices"
	"time"

	"tributary"
	"tributary/db/internal/dbq"
)

// XactSnapshot returns the database's current snapshot (pg_snapshot as text): taken before a
// page's reads, it says which transactions those reads could see.
func (s *Store) XactSnapshot(ctx context.Context) (string, error) {
	snap, err := s.q.CurrentSnapshot(ctx)
	if err != nil {
		return "", fmt.Errorf("db: snapshot: %w", err)
	}
	return snap, nil
}

// LateArrivals lists the items followed shared, readable by v, in posts dated at or before
// at that snapshot prev could not see, newest first, but those in shown: what a fencepost
// read in prev at at missed (shown is its head, which its reads may have seen), and that no
// interval after at lists (its posts are dated before it).
func (s *Store) LateArrivals(ctx context.Context, v tributary.Viewer, followed tributary.IDSet, prev string, at time.Time, shown []int64) ([]Arrival, error) {
	if prev == "" || followed.Len() == 0 {
		return nil, nil
	}
	rows, err := s.q.LateCommitted(ctx, lateParams(v, prev, at))
	if err != nil {
		return nil, fmt.Errorf("db: late arrivals: %w", err)
	}
	return lateOf(rows, followed, shown), nil
}

// MaxShareLateness is how long before a fencepost a late share may be dated and still
// arrive after it (LateArrivals): a share's transaction takes milliseconds, and the bound
// keeps the read to the posts of the minutes before the fencepost, not all those since it.
const MaxShareLateness = 10 * time.Minute

func lateParams(v tributary.Viewer, prev string, at time.Time) dbq.LateCommittedParams {
	return dbq.LateCommittedParams{Prev: prev, At: at, Since: at.Add(-MaxShareLateness),
		ViewerID: v.ID, Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)}
}

// lateOf is the items of the late shares by followed, but those in shown, each at its newest
// such share, newest first.
func lateOf(rows []dbq.LateCommittedRow, followed tributary.IDSet, shown []int64) []Arrival {
	var out []Arrival
	for _, r := range rows {
		if !followed.Has(r.AuthorID) || slices.Contains(shown, r.AnchorID) {
			continue
		}
		at := r.CreatedAt.UTC()
		if i := slices.IndexFunc(out, func(a Arrival) bool { return a.AnchorID == r.AnchorID }); i >= 0 {
			out[i].At = maxTime(out[i].At, at)
			continue
		}
		out = append(out, Arrival{AnchorID: r.AnchorID, At: at, Late: true})
	}
	slices.SortFunc(out, func(a, b Arrival) int {
		if later(a.At, a.AnchorID, b.At, b.AnchorID) {
			return -1
		}
		return 1
	})
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
