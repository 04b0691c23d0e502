package db

// Late commits (issue 44.17): a share is dated by its instance's clock before its
// transaction, so one that commits after a reader's fencepost can be dated before it and an
// interval (From, To] never lists it. A fencepost keeps the snapshot its reads saw
// (XactSnapshot); the shares that snapshot could not see are found by LateArrivals.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

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

// FenceStart is what a page that goes on from a fence's latest fencepost reads before the
// rest, in one round trip: the snapshot its reads see (Snap, kept by the fencepost it
// commits), the latest fencepost (Found: there is one), and for an anonymous page the
// ranking snapshot's state.
type FenceStart struct {
	Snap     string
	Latest   FencepostRow
	Found    bool
	Snapshot SnapshotState
}

// AnonStart reads the start of an anonymous first page of the shared fence template.
func (s *Store) AnonStart(ctx context.Context, template string) (FenceStart, error) {
	var st FenceStart
	errs := s.pipeline(ctx,
		func(q *dbq.Queries) (err error) { st.Snap, err = q.CurrentSnapshot(ctx); return err },
		st.readLatest(ctx, 0, template),
		func(q *dbq.Queries) error {
			m, err := q.SnapshotMeta(ctx)
			if errors.Is(err, pgx.ErrNoRows) {
				return nil
			}
			st.Snapshot = SnapshotState{RefreshedAt: m.RefreshedAt, Rows: int(m.Rows)}
			return err
		})
	if err := cmp.Or(errs...); err != nil {
		return FenceStart{}, fmt.Errorf("db: fence start: %w", err)
	}
	return st, nil
}

// readLatest is the step that reads the fence's latest fencepost into st.
func (st *FenceStart) readLatest(ctx context.Context, viewer int64, template string) func(*dbq.Queries) error {
	return func(q *dbq.Queries) error {
		r, err := q.LatestFencepost(ctx, dbq.LatestFencepostParams{ViewerID: viewer, Template: template})
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		st.Latest, st.Found = fencepostOf(r), err == nil
		return err
	}
}

// ChronoStart reads the start of a chronological feed's first page of viewer's fence
// template. Its reads go to the replica when one is in use: the snapshot is read there,
// beside the fencepost read on the primary, so it says what the page's reads could see.
func (s *Store) ChronoStart(ctx context.Context, viewer int64, template string) (FenceStart, error) {
	var st FenceStart
	errs := s.besidePrimary(ctx,
		func(q *dbq.Queries) (err error) { st.Snap, err = q.CurrentSnapshot(ctx); return err },
		st.readLatest(ctx, viewer, template))
	if err := cmp.Or(errs...); err != nil {
		return FenceStart{}, fmt.Errorf("db: fence start: %w", err)
	}
	return st, nil
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
	var acts []dbq.ActivityLateRow
	if q.Activity && q.Viewer.ID != 0 {
		if acts, err = s.q.ActivityLate(ctx, lateActivityParams(q)); err != nil {
			return nil, fmt.Errorf("db: late activity: %w", err)
		}
	}
	return lateOf(rows, acts, q), nil
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

// lateActivityParams asks for the late likes and comments of q's followees (ActivityLate),
// with its followed set as ActivityArrivals reads it.
func lateActivityParams(q ArrivedQuery) dbq.ActivityLateParams {
	v, byFollows, followed := q.Viewer, !q.SetOnly, []int64{}
	if q.SetOnly {
		followed = q.Followed.IDs()
	}
	return dbq.ActivityLateParams{Prev: q.Late, At: q.From, Since: q.From.Add(-MaxShareLateness),
		Kind: string(q.Source), Tag: q.Tag, ByFollows: byFollows, Followed: followed,
		ViewerID: v.ID, Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)}
}

// lateOf is the items of the late shares q's feed gets, as its arrivals do (a followee's post
// to their followers, a post in one of the viewer's groups), and of its followees' late likes
// and comments (acts), within its dates, but those in q.LateShown: each at its newest such
// arrival (a share before a like or comment at the same time), newest first.
func lateOf(rows []dbq.LateCommittedRow, acts []dbq.ActivityLateRow, q ArrivedQuery) []Arrival {
	since, until := q.bounds()
	var out []Arrival
	add := func(a Arrival) {
		if a.At.Before(since) || a.At.After(until) || slices.Contains(q.LateShown, a.AnchorID) {
			return
		}
		i := slices.IndexFunc(out, func(o Arrival) bool { return o.AnchorID == a.AnchorID })
		switch {
		case i < 0:
			out = append(out, a)
		case a.At.After(out[i].At):
			out[i] = a
		}
	}
	for _, r := range rows {
		if (r.ToFollowers && q.Followed.Has(r.AuthorID)) || q.Viewer.InGroup(r.GroupFeedIds) {
			add(Arrival{AnchorID: r.AnchorID, At: r.CreatedAt.UTC(), Late: true})
		}
	}
	for _, r := range acts {
		at := r.Arrival.UTC()
		add(Arrival{AnchorID: r.AnchorID, At: at, Late: true, Activity: &tributary.Activity{
			User: tributary.UserRef{ID: r.UserID, Handle: r.Handle, Name: r.DisplayName, VIP: r.Vip}, Commented: r.Commented, At: at}})
	}
	slices.SortFunc(out, func(a, b Arrival) int {
		if later(a.At, a.AnchorID, b.At, b.AnchorID) {
			return -1
		}
		return 1
	})
	return out
}
