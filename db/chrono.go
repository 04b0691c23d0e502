package db

import (
	"context"
	"fmt"
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
}

// PostArrival is a post and when it arrived (was made, or bumped).
type PostArrival struct {
	PostID int64
	At     time.Time
	Post   *tributary.Post // read with it, when asked (ChronoQuery.Posts)
}

// ChronoArrived lists a chronological feed's arrivals (see ChronoQuery).
func (s *Store) ChronoArrived(ctx context.Context, q ChronoQuery) ([]PostArrival, error) {
	from, posAt, posID := chronoBounds(q)
	if q.Filter != "" && q.Posts {
		rows, err := s.reads(ctx).FilterArrivalPosts(ctx, dbq.FilterArrivalPostsParams{Feed: q.Filter,
			ViewerID: q.Viewer.ID, Blocked: nonNilIDs(q.Viewer.Blocked), PrivateFeeds: nonNilIDs(q.Viewer.PrivateFeeds),
			Skip: nonNilIDs(q.Skip), FromAt: from, ToAt: q.To, PosAt: posAt, PosID: posID, Lim: int32(q.Limit)})
		if err != nil {
			return nil, fmt.Errorf("db: filter feed: %w", err)
		}
		out := make([]PostArrival, len(rows))
		for i, r := range rows {
			p, err := talkingPost(r.PostCard, r.Likes, r.Comments, r.Liked, r.Likers, r.Audience, q.Viewer)
			if err != nil {
				return nil, err
			}
			out[i] = PostArrival{PostID: p.ID, At: r.Arrival, Post: &p}
		}
		return out, nil
	}
	if q.Filter != "" {
		rows, err := s.reads(ctx).FilterArrivals(ctx, dbq.FilterArrivalsParams{Feed: q.Filter,
			ViewerID: q.Viewer.ID, Blocked: nonNilIDs(q.Viewer.Blocked), PrivateFeeds: nonNilIDs(q.Viewer.PrivateFeeds),
			Skip: nonNilIDs(q.Skip), FromAt: from, ToAt: q.To, PosAt: posAt, PosID: posID, Lim: int32(q.Limit)})
		if err != nil {
			return nil, fmt.Errorf("db: filter feed: %w", err)
		}
		return postArrivalsOf(rows), nil
	}
	rows, err := s.reads(ctx).ChronoArrivals(ctx, dbq.ChronoArrivalsParams{AuthorID: q.Author, FeedID: q.Feed, Directs: q.Directs,
		ViewerID: q.Viewer.ID, Blocked: nonNilIDs(q.Viewer.Blocked), PrivateFeeds: nonNilIDs(q.Viewer.PrivateFeeds),
		Skip: nonNilIDs(q.Skip), FromAt: from, ToAt: q.To, PosAt: posAt, PosID: posID, Lim: int32(q.Limit)})
	if err != nil {
		return nil, fmt.Errorf("db: chronological feed: %w", err)
	}
	return postArrivalsOf(rows), nil
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
