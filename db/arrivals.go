package db

// The arrivals of a fence's interval: the items the followed set shared in it, and those its
// members liked or commented on, read together (Arrived), alone or in a pipeline with the
// session's read (arrivalsRead).

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"tributary"
	"tributary/db/internal/dbq"
)

// Arrival is an item and when it arrived in an interval.
type Arrival struct {
	AnchorID int64
	At       time.Time
	Activity *tributary.Activity // it arrived by a followee's like or comment, not a share
	Late     bool                // its share committed late, dated before the interval (ArrivedQuery.Late)
}

// ArrivedQuery asks for the items that arrived in (From, To] from the followed set.
type ArrivedQuery struct {
	FeedFilter
	Viewer   tributary.Viewer
	Followed tributary.IDSet
	From, To time.Time
	Skip     []int64
	PosAt    time.Time // list strictly after (PosAt, PosID); zero PosID: from the newest
	PosID    int64
	Limit    int
	// Activity: items also arrive by the likes and comments of the followees (a logged-in
	// viewer's home feed; ActivityArrivals).
	Activity bool
	// SetOnly: Followed is the whole set, never read from follows (a list's members, or a
	// home feed's followees less the members of the viewer's exclusive lists).
	SetOnly bool
	// Likes, when not nil, are read with the arrivals: the viewer's likes of some items.
	Likes *LikesRead
	// Late is the snapshot of the fencepost at From (FencepostRow.Snap), LateShown its head:
	// the first of the interval's arrivals (no Pos, no Skip) then end with the feed's shares
	// that committed after that fencepost was read but are dated before it (LateArrivals):
	// they arrive in this interval, once (issue 44.17).
	Late      string
	LateShown []int64
}

// LikesRead asks a read for the viewer's likes of some items beside what it reads
// (ArrivedQuery.Likes), as LikedOf reads them.
type LikesRead struct {
	Anchors []int64
	Liked   map[int64]int64 // when read: each item's liked share (0: none); nil when not
}

// DefaultArrivalsByFollows is the size of followed set from which the arrival query reads it
// from follows: its followees' posts are then dense enough in time order that scanning posts by
// time and probing a hash of the set beats one descent of the author index per followee, and
// planning the set as a constant array costs more (measured ~3 ms at 2,000) than the query.
const DefaultArrivalsByFollows = 1000

// DefaultRecentScan is how many posts an arrival interval may hold for Arrived to read them
// all in time order (RecentArrivals) rather than plan a query for the interval and the
// followed set. Filtering a post costs microseconds; planning was 0.4-0.9 ms.
const DefaultRecentScan = 500

// DefaultRecentSpan is the longest arrival interval worth trying with RecentArrivals: a
// longer one (the first fencepost's tail covers months) holds more than RecentScan posts but
// on the quietest sites, and finding that out costs a scan of RecentScan posts.
const DefaultRecentSpan = 24 * time.Hour

// Arrived lists items that arrived in an interval, newest arrival first.
func (s *Store) Arrived(ctx context.Context, q ArrivedQuery) ([]Arrival, error) {
	if out, ok := arrivedAhead(ctx, q); ok {
		return out, nil
	}
	a := s.arrivedRead(ctx, q)
	var err error
	switch {
	case len(a.beside) > 0 && a.pipelined():
		// Shares read by RecentArrivals: all in one round trip, on one connection.
		err = a.finish(s.pipeline(ctx, a.steps()...))
	default:
		// Else each on a connection of its own: a page still waits for one round trip.
		errs := make([]error, 1+len(a.beside))
		var wg sync.WaitGroup
		for i, read := range a.beside {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[1+i] = read(s.q)
			}()
		}
		a.shared, errs[0] = s.sharedArrivals(ctx, q, a.followed, a.byFollows, a.posAt, a.posID)
		a.read = true
		wg.Wait()
		err = a.finish(errs)
	}
	if err != nil {
		return nil, err
	}
	return a.out, nil
}

// arrivalsRead is the reads of an ArrivedQuery: its followees' shares, their likes and
// comments beside (a logged-in viewer's home feed), and the viewer's likes it asks for.
type arrivalsRead struct {
	ctx          context.Context
	s            *Store
	q            ArrivedQuery
	followed     []int64
	byFollows    bool
	posAt        time.Time
	posID        int64
	activity     bool
	beside       []func(*dbq.Queries) error // the activity's read, then the likes'
	recent       []dbq.RecentArrivalsRow    // the shares as RecentArrivals read them (steps)
	shared       []Arrival                  // ... or as sharedArrivals did (read)
	read         bool
	activityRows []dbq.ActivityArrivalsRow
	late         []dbq.LateCommittedRow // the late shares (ArrivedQuery.Late) ...
	lateActs     []dbq.ActivityLateRow  // ... and likes and comments (with activity) ...
	lateErr      error                  // ... or why they were not read
	lateActsErr  error
	out          []Arrival
}

func (s *Store) arrivedRead(ctx context.Context, q ArrivedQuery) *arrivalsRead {
	a := &arrivalsRead{ctx: ctx, s: s, q: q, posAt: q.PosAt, posID: q.PosID}
	if a.posID == 0 {
		a.posAt, a.posID = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), 0
	}
	// A logged-in viewer's large followed set is read from follows in the queries (see there).
	a.byFollows = q.Viewer.ID != 0 && !q.SetOnly && q.Followed.Len() >= s.ArrivalsByFollows
	a.followed = q.Followed.IDs()
	if a.byFollows {
		a.followed = []int64{}
	}
	a.activity = q.Activity && q.Viewer.ID != 0
	if a.activity {
		actors := []int64{}
		if q.SetOnly {
			actors = q.Followed.IDs()
		}
		a.beside = append(a.beside, func(aq *dbq.Queries) (err error) {
			a.activityRows, err = aq.ActivityArrivals(ctx, dbq.ActivityArrivalsParams{ViewerID: q.Viewer.ID, Groups: nonNilIDs(q.Viewer.Groups),
				ByFollows: !q.SetOnly, Followed: actors,
				Blocked: nonNilIDs(q.Viewer.Blocked), PrivateFeeds: nonNilIDs(q.Viewer.PrivateFeeds), FromAt: q.From, ToAt: q.To,
				Kind: string(q.Source), Tag: q.Tag, Skip: nonNilIDs(q.Skip), PosAt: a.posAt, PosID: a.posID, Lim: int32(q.Limit)})
			return err
		})
	}
	if a.asksLate() {
		a.beside = append(a.beside, func(lq *dbq.Queries) error {
			a.late, a.lateErr = lq.LateCommitted(ctx, lateParams(q))
			return a.lateErr
		})
		if a.activity {
			a.beside = append(a.beside, func(lq *dbq.Queries) error {
				a.lateActs, a.lateActsErr = lq.ActivityLate(ctx, lateActivityParams(q))
				return a.lateActsErr
			})
		}
	}
	if l := q.Likes; l != nil && len(l.Anchors) > 0 && q.Viewer.ID != 0 {
		a.beside = append(a.beside, func(lq *dbq.Queries) error { // last: its failure fails nothing else
			rows, err := lq.LikedOf(ctx, likedOfParams(q.Viewer, l.Anchors))
			if err == nil {
				l.Liked = likedOf(l.Anchors, rows)
			}
			return err // not read: the caller reads them itself
		})
	}
	return a
}

// asksLate says whether the reads include the late shares (ArrivedQuery.Late): the first
// arrivals of an interval from a fencepost whose snapshot is known.
func (a *arrivalsRead) asksLate() bool {
	q := a.q
	return q.Late != "" && q.PosID == 0 && len(q.Skip) == 0
}

// pipelined says whether the reads go in one round trip (steps): the shares are read by
// RecentArrivals, not from a river.
func (a *arrivalsRead) pipelined() bool { return !a.s.riverFirst(a.q) && a.s.recentFirst(a.q) }

// steps are the reads for one pipeline: RecentArrivals, then those beside it.
func (a *arrivalsRead) steps() []func(*dbq.Queries) error {
	return append([]func(*dbq.Queries) error{func(rq *dbq.Queries) (err error) {
		a.recent, err = rq.RecentArrivals(a.ctx, a.s.recentParams(a.q, a.followed, a.byFollows, a.posAt, a.posID))
		return err
	}}, a.beside...)
}

// complete says whether the steps read all the shares (else the interval holds more than
// RecentArrivals reads, and finish reads them again).
func (a *arrivalsRead) complete() bool {
	n := len(a.recent)
	return n == 0 || a.recent[n-1].AnchorID != 0
}

// finish makes the arrivals (out) of the reads' answers: errs are the shares' read's error,
// then those beside it.
func (a *arrivalsRead) finish(errs []error) error {
	switch {
	case errs[0] != nil && a.read:
		return errs[0]
	case errs[0] != nil:
		return fmt.Errorf("db: recent arrivals: %w", errs[0])
	case !a.read:
		shared, err := a.s.sharedAfterRecent(a.ctx, a.q, a.recent, true, a.followed, a.byFollows, a.posAt, a.posID)
		if err != nil {
			return err
		}
		a.shared = shared
	}
	if err := cmp.Or(a.lateErr, a.lateActsErr); err != nil {
		return fmt.Errorf("db: late arrivals: %w", err)
	}
	if !a.activity {
		a.out = a.withLate(a.shared)
		return nil
	}
	if errs[1] != nil {
		return fmt.Errorf("db: activity arrivals: %w", errs[1])
	}
	// The two lists hold different items (an item shared in the interval arrives by its
	// share), each in arrival order: merged, they are the interval's first Limit arrivals.
	shared, rows := a.shared, a.activityRows
	out := make([]Arrival, 0, min(len(shared)+len(rows), a.q.Limit))
	for i, j := 0, 0; len(out) < a.q.Limit && (i < len(shared) || j < len(rows)); {
		if j == len(rows) || i < len(shared) && later(shared[i].At, shared[i].AnchorID, rows[j].Arrival, rows[j].AnchorID) {
			out = append(out, shared[i])
			i++
			continue
		}
		r := rows[j]
		out = append(out, Arrival{AnchorID: r.AnchorID, At: r.Arrival, Activity: &tributary.Activity{
			User: tributary.UserRef{ID: r.UserID, Handle: r.Handle, Name: r.DisplayName, VIP: r.Vip}, Commented: r.Commented, At: r.Arrival}})
		j++
	}
	a.out = a.withLate(out)
	return nil
}

// withLate is the interval's arrivals followed by the late shares that are not among them
// (dated before the interval, they are older than all of it), at most Limit in all: the
// interval's last ones give way to them, as no later interval lists them.
func (a *arrivalsRead) withLate(out []Arrival) []Arrival {
	if len(a.late) == 0 && len(a.lateActs) == 0 {
		return out
	}
	late := slices.DeleteFunc(lateOf(a.late, a.lateActs, a.q), func(l Arrival) bool {
		return slices.ContainsFunc(out, func(o Arrival) bool { return o.AnchorID == l.AnchorID })
	})
	late = late[:min(len(late), a.q.Limit)]
	return append(out[:min(len(out), a.q.Limit-len(late))], late...)
}

// later orders arrivals: newest first, then by anchor id, descending.
func later(a time.Time, aID int64, b time.Time, bID int64) bool {
	if c := a.Compare(b); c != 0 {
		return c > 0
	}
	return aID > bID
}

// sharedArrivals are the items shared in the interval by the followed set (see Arrived).
func (s *Store) sharedArrivals(ctx context.Context, q ArrivedQuery, followed []int64, byFollows bool, posAt time.Time, posID int64) ([]Arrival, error) {
	if s.riverFirst(q) {
		out, ok, err := s.riverArrivals(ctx, q, posAt, posID)
		if err != nil || ok {
			return out, err
		}
	}
	var recent []dbq.RecentArrivalsRow
	asked := s.recentFirst(q)
	if asked {
		var err error
		if recent, err = s.q.RecentArrivals(ctx, s.recentParams(q, followed, byFollows, posAt, posID)); err != nil {
			return nil, fmt.Errorf("db: recent arrivals: %w", err)
		}
	}
	return s.sharedAfterRecent(ctx, q, recent, asked, followed, byFollows, posAt, posID)
}

// riverFirst says whether q's shares are asked of the viewer's river first.
func (s *Store) riverFirst(q ArrivedQuery) bool {
	return !s.Rivers.Off && q.Viewer.ID != 0 && !q.SetOnly
}

// recentFirst says whether q's shares are asked of RecentArrivals first: its interval is
// short enough.
func (s *Store) recentFirst(q ArrivedQuery) bool {
	return s.RecentScan > 0 && q.To.Sub(q.From) <= s.RecentSpan
}

func (s *Store) recentParams(q ArrivedQuery, followed []int64, byFollows bool, posAt time.Time, posID int64) dbq.RecentArrivalsParams {
	return dbq.RecentArrivalsParams{Scan: int32(s.RecentScan), Followed: followed, Groups: nonNilIDs(q.Viewer.Groups), ByFollows: byFollows,
		ViewerID: q.Viewer.ID, Blocked: nonNilIDs(q.Viewer.Blocked), PrivateFeeds: nonNilIDs(q.Viewer.PrivateFeeds),
		FromAt: q.From, ToAt: q.To, Kind: string(q.Source), Tag: q.Tag, Skip: nonNilIDs(q.Skip),
		PosAt: posAt, PosID: posID, Lim: int32(q.Limit)}
}

// sharedAfterRecent is q's shares given what RecentArrivals read of them (when asked): those,
// unless the interval holds more than it reads; then they are read by ArrivedAnchors.
func (s *Store) sharedAfterRecent(ctx context.Context, q ArrivedQuery, recent []dbq.RecentArrivalsRow, asked bool, followed []int64, byFollows bool, posAt time.Time, posID int64) ([]Arrival, error) {
	if asked {
		if n := len(recent); n == 0 || recent[n-1].AnchorID != 0 { // else the interval holds more
			return arrivalsOf(recent), nil
		}
	}
	rows, err := s.q.ArrivedAnchors(ctx, dbq.ArrivedAnchorsParams{Followed: followed, Groups: nonNilIDs(q.Viewer.Groups), ByFollows: byFollows, ViewerID: q.Viewer.ID,
		Blocked: nonNilIDs(q.Viewer.Blocked), PrivateFeeds: nonNilIDs(q.Viewer.PrivateFeeds), FromAt: q.From, ToAt: q.To, Kind: string(q.Source), Tag: q.Tag, Skip: nonNilIDs(q.Skip),
		PosAt: posAt, PosID: posID, Lim: int32(q.Limit)})
	if err != nil {
		return nil, fmt.Errorf("db: arrived: %w", err)
	}
	return arrivalsOf(rows), nil
}

// arrivalsOf converts the rows of either arrival query.
func arrivalsOf[R dbq.ArrivedAnchorsRow | dbq.RecentArrivalsRow](rows []R) []Arrival {
	out := make([]Arrival, len(rows))
	for i, r := range rows {
		a := dbq.ArrivedAnchorsRow(r)
		out[i] = Arrival{AnchorID: a.AnchorID, At: a.Arrival}
	}
	return out
}

// Sharers gives the sharers of an item that the caller already holds (the feed's ranking
