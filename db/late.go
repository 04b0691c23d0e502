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

// LateArrivals lists what q's first arrivals add late (ArrivedQuery.Late): the items of
// the feed's shares dated at or before q.From that the snapshot q.Late could not see, newest
// first, but those in q.LateShown (the fencepost's head, which its reads may have seen).
// No interval after q.From lists them: its posts are dated before it.
func (s *Store) LateArrivals(ctx context.Context, q ArrivedQuery) ([]Arrival, error) {
	if q.Late == "" {
		return nil, nil
	}
	rows, err := s.q.LateCommitted(ctx, lateParams(q))
	if err != nil {
		return nil, fmt.Errorf("db: late arrivals: %w", err)
	}
	return lateOf(rows, q), nil
}

// MaxShareLateness is how long before a fencepost a late share may be dated and still
// arrive after it (LateArrivals): a share's transaction takes milliseconds, and the bound
// keeps the read to the posts of the minutes before the fencepost, not all those since it.
const MaxShareLateness = 10 * time.Minute

func lateParams(q ArrivedQuery) dbq.LateCommittedParams {
	v := q.Viewer
	return dbq.LateCommittedParams{Prev: q.Late, At: q.From, Since: q.From.Add(-MaxShareLateness),
		Kind: string(q.Source), Tag: q.Tag,
		ViewerID: v.ID, Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)}
}

// lateOf is the items of the late shares q's feed gets, as its arrivals do (a followee's post
// to their followers, a post in one of the viewer's groups) within its dates, but those in
// q.LateShown, each at its newest such share, newest first.
func lateOf(rows []dbq.LateCommittedRow, q ArrivedQuery) []Arrival {
	since, until := q.bounds()
	var out []Arrival
	for _, r := range rows {
		at := r.CreatedAt.UTC()
		gets := (r.ToFollowers && q.Followed.Has(r.AuthorID)) || q.Viewer.InGroup(r.GroupFeedIds)
		if !gets || at.Before(since) || at.After(until) || slices.Contains(q.LateShown, r.AnchorID) {
			continue
		}
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
