package db

// Late commits (issue 44.17): a share is dated by its instance's clock before its
// transaction, so one that commits after a reader's fencepost can be dated before it and an
// interval (From, To] never lists it. A fencepost keeps the snapshot its reads saw
// (XactSnapshot); the shares that snapshot could not see are found by LateArrivals.

import (
	"context"
	"fmt"
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
func (s *Store) LateArrivals(ctx context.Context, v tributary.Viewer, followed []int64, prev string, at time.Time, shown []int64) ([]Arrival, error) {
	if prev == "" || len(followed) == 0 {
		return nil, nil
	}
	rows, err := s.q.LateCommitted(ctx, lateParams(v, followed, prev, at, shown))
	if err != nil {
		return nil, fmt.Errorf("db: late arrivals: %w", err)
	}
	return lateOf(rows), nil
}

func lateParams(v tributary.Viewer, followed []int64, prev string, at time.Time, shown []int64) dbq.LateCommittedParams {
	return dbq.LateCommittedParams{Prev: prev, At: at, Followed: followed, Shown: nonNilIDs(shown),
		ViewerID: v.ID, Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)}
}

func lateOf(rows []dbq.LateCommittedRow) []Arrival {
	out := make([]Arrival, len(rows))
	for i, r := range rows {
		out[i] = Arrival{AnchorID: r.AnchorID, At: r.Arrival.UTC(), Late: true}
	}
	return out
}
