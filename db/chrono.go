package db

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

// ChronoQuery asks for the posts of a chronological feed that arrived in (From, To], newest
// arrival first after (PosAt, PosID): one user's posts (Author), a group's (Feed), the
// viewer's directs (Directs) or a filter feed (Filter: see FilterFeed), as the viewer may
// read them.
type ChronoQuery struct {
	Author  int64
	Feed    int64
	Directs bool
	Filter  string
	Viewer  tributary.Viewer
	From    time.Time
	To      time.Time
	PosAt   time.Time
	PosID   int64
	Skip    []int64
	Limit   int
	// Posts asks for the posts too, as the viewer may read them and with their talk (a filter
	// feed's; PostArrival.Post).
	Posts bool
	// Late names the viewer's fence (its template) whose fencepost at From keeps the snapshot
	// its reads saw: the first arrivals of the interval (no position, no Skip) of a user's,
	// group's or directs feed then end with the posts that snapshot could not see though
	// they are dated before it (ChronoLate; issue 44.17). "": none are asked for.
	Late string
}

// PostArrival is a post and when it arrived (was made, or bumped).
type PostArrival struct {
	PostID int64
	At     time.Time
	Post   *tributary.Post // read with it, when asked (ChronoQuery.Posts)
	Late   bool            // it arrived late for the fencepost at From (ChronoQuery.Late)
}

// ChronoArrived lists a chronological feed's arrivals (see ChronoQuery).
func (s *Store) ChronoArrived(ctx context.Context, q ChronoQuery) ([]PostArrival, error) {
	from, posAt, posID := chronoBounds(q)
	var out []PostArrival
	var read func(*dbq.Queries) error
	switch {
	case q.Filter != "" && q.Posts:
		read = func(rq *dbq.Queries) error {
			rows, err := rq.FilterArrivalPosts(ctx, dbq.FilterArrivalPostsParams{Feed: q.Filter,
				ViewerID: q.Viewer.ID, Blocked: nonNilIDs(q.Viewer.Blocked), PrivateFeeds: nonNilIDs(q.Viewer.PrivateFeeds),
				Skip: nonNilIDs(q.Skip), FromAt: from, ToAt: q.To, PosAt: posAt, PosID: posID, Lim: int32(q.Limit)})
			out = make([]PostArrival, len(rows))
			for i, r := range rows {
				p, perr := talkingPost(r.PostCard, r.Likes, r.Comments, r.Liked, r.Likers, r.Audience, q.Viewer)
				if perr != nil {
					return perr
				}
				out[i] = PostArrival{PostID: p.ID, At: r.Arrival, Post: &p}
			}
			return err
		}
	case q.Filter != "":
		read = func(rq *dbq.Queries) error {
			rows, err := rq.FilterArrivals(ctx, dbq.FilterArrivalsParams{Feed: q.Filter,
				ViewerID: q.Viewer.ID, Blocked: nonNilIDs(q.Viewer.Blocked), PrivateFeeds: nonNilIDs(q.Viewer.PrivateFeeds),
				Skip: nonNilIDs(q.Skip), FromAt: from, ToAt: q.To, PosAt: posAt, PosID: posID, Lim: int32(q.Limit)})
			out = postArrivalsOf(rows)
			return err
		}
	default:
		read = func(rq *dbq.Queries) error {
			rows, err := rq.ChronoArrivals(ctx, dbq.ChronoArrivalsParams{AuthorID: q.Author, FeedID: q.Feed, Directs: q.Directs,
				ViewerID: q.Viewer.ID, Blocked: nonNilIDs(q.Viewer.Blocked), PrivateFeeds: nonNilIDs(q.Viewer.PrivateFeeds),
				Skip: nonNilIDs(q.Skip), FromAt: from, ToAt: q.To, PosAt: posAt, PosID: posID, Lim: int32(q.Limit)})
			out = postArrivalsOf(rows)
			return err
		}
	}
	if q.Late == "" || q.PosID != 0 || len(q.Skip) > 0 {
		if err := read(s.reads(ctx)); err != nil {
			return nil, fmt.Errorf("db: chronological feed: %w", err)
		}
		return out, nil
	}
	var late []PostArrival
	errs := s.besidePrimary(ctx, read, func(pq *dbq.Queries) (err error) {
		late, err = s.lateOf(ctx, pq, q)
		return err
	})
	if err := cmp.Or(errs...); err != nil {
		return nil, fmt.Errorf("db: chronological feed: %w", err)
	}
	return withLatePosts(out, late, q.Limit), nil
}

// lateOf reads the posts that arrived late in q's feed (ChronoQuery.Late), newest first.
func (s *Store) lateOf(ctx context.Context, pq *dbq.Queries, q ChronoQuery) ([]PostArrival, error) {
	since := q.From.Add(-MaxShareLateness)
	var rows []dbq.ChronoLateRow
	var err error
	if q.Filter != "" {
		var fr []dbq.FilterLateRow
		fr, err = pq.FilterLate(ctx, dbq.FilterLateParams{Feed: q.Filter, ViewerID: q.Viewer.ID, Template: q.Late, At: q.From, Since: since,
			Blocked: nonNilIDs(q.Viewer.Blocked), PrivateFeeds: nonNilIDs(q.Viewer.PrivateFeeds)})
		for _, r := range fr {
			rows = append(rows, dbq.ChronoLateRow(r))
		}
	} else {
		rows, err = pq.ChronoLate(ctx, dbq.ChronoLateParams{ViewerID: q.Viewer.ID, Template: q.Late, At: q.From, Since: since,
			AuthorID: q.Author, FeedID: q.Feed, Directs: q.Directs,
			Blocked: nonNilIDs(q.Viewer.Blocked), PrivateFeeds: nonNilIDs(q.Viewer.PrivateFeeds)})
	}
	out := make([]PostArrival, len(rows))
	for i, r := range rows {
		out[i] = PostArrival{PostID: r.ID, At: r.Arrival.UTC(), Late: true}
	}
	return out, err
}

// withLatePosts is an interval's arrivals followed by the late ones not among them (dated
// before the interval, they are older than all of it), at most limit in all: the interval's
// last ones give way to them, as no later interval lists them.
func withLatePosts(out, late []PostArrival, limit int) []PostArrival {
	var add []PostArrival
	for _, l := range late {
		if !slices.ContainsFunc(out, func(a PostArrival) bool { return a.PostID == l.PostID }) && len(add) < limit {
			add = append(add, l)
		}
	}
	return append(out[:min(len(out), limit-len(add))], add...)
}

// besidePrimary runs read on the connection reads go to (the replica's, when in use) and
// primary on the primary, in one round trip: pipelined on one connection when both are the
// primary's, else side by side.
func (s *Store) besidePrimary(ctx context.Context, read, primary func(*dbq.Queries) error) []error {
	rq := s.reads(ctx)
	if rq == s.q {
		return s.pipeline(ctx, read, primary)
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		errs[1] = primary(s.q)
	}()
	errs[0] = read(rq)
	wg.Wait()
	return errs
}

// chronoBounds are q's interval start and position, spelled for the queries: no lower bound
// and no position yet as times before and after every post.
func chronoBounds(q ChronoQuery) (from, posAt time.Time, posID int64) {
	from, posAt, posID = q.From, q.PosAt, q.PosID
	if from.IsZero() {
		from = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if posID == 0 {
		posAt, posID = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), 1<<63-1
	}
	return from, posAt, posID
}

// postArrivalsOf converts the rows of either chronological arrival query.
func postArrivalsOf[R dbq.ChronoArrivalsRow | dbq.FilterArrivalsRow](rows []R) []PostArrival {
	out := make([]PostArrival, len(rows))
	for i, r := range rows {
		a := dbq.ChronoArrivalsRow(r)
		out[i] = PostArrival{PostID: a.ID, At: a.Arrival}
	}
	return out
}
