package db

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"tributary"
	"tributary/db/internal/dbq"
)

// Search is a parsed search with its names resolved: Text is a to_tsquery of the english
// configuration ("" when the operators alone choose); the rest narrow the results (authors,
// groups, likers, commenters: any of; tags: every one; sites: any of, with their subdomains).
type Search struct {
	Text        string
	Authors     []int64
	Groups      []int64
	LikedBy     []int64
	CommentedBy []int64
	Tags        []string
	Sites       []string
}

// Key names the search (the same for the same search): the name of its fence.
func (q Search) Key() string {
	var b strings.Builder
	b.WriteString(q.Text)
	for _, part := range []struct {
		name string
		ids  []int64
	}{{"a", q.Authors}, {"g", q.Groups}, {"l", q.LikedBy}, {"c", q.CommentedBy}} {
		if len(part.ids) > 0 {
			b.WriteString("\n" + part.name + ":" + joinIDs(part.ids))
		}
	}
	if len(q.Tags) > 0 {
		b.WriteString("\nt:" + strings.Join(q.Tags, ","))
	}
	if len(q.Sites) > 0 {
		b.WriteString("\ns:" + strings.Join(q.Sites, ","))
	}
	return b.String()
}

func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ",")
}

// narrowed says the search names the authors, groups, likers or commenters of what it finds:
// few posts to check the text on, whatever the text (SearchNarrowArrivals).
func (q Search) narrowed() bool {
	return len(q.Authors)+len(q.Groups)+len(q.LikedBy)+len(q.CommentedBy) > 0
}

// DependsOnBans says whether the viewer's bans change what the search finds: a match by a
// comment, or by a like, comment or tag that filter_shown hides from them.
func (q Search) DependsOnBans() bool {
	return q.Text != "" || len(q.LikedBy)+len(q.CommentedBy)+len(q.Tags) > 0
}

// SearchArrival is a search result, when it was posted and how well it matches the text.
type SearchArrival struct {
	PostArrival
	Rank float64
}

// Settles says the search's results are chosen by the text of posts and comments, an
// author and a site alone: an older post becomes a result only by a comment made or edited
// on it, or by being posted with a time in the past (feed/searchcache.go keeps such a
// search's candidates). Groups, likes and tags change in other ways.
func (q Search) Settles() bool {
	return q.Text != "" && len(q.Groups)+len(q.LikedBy)+len(q.CommentedBy)+len(q.Tags) == 0
}

// SearchArrived lists a search's results posted in (q.From, q.To] newest first after
// (q.PosAt, q.PosID), as q.Viewer may read them (see queries/search.sql).
func (s *Store) SearchArrived(ctx context.Context, sq Search, q ChronoQuery) ([]SearchArrival, error) {
	out, err := s.searchArrived(ctx, sq, q, searchAs{narrow: sq.narrowed()})
	if err != nil || q.Late == "" || q.PosID != 0 || len(q.Skip) > 0 {
		return out, err
	}
	late, err := s.SearchLate(ctx, sq, q)
	if err != nil {
		return nil, err
	}
	arrived := make([]PostArrival, len(out))
	for i, a := range out {
		arrived[i] = a.PostArrival
	}
	arrived = withLatePosts(arrived, late, q.Limit)
	for i := len(out); i < len(arrived); i++ { // the late ones, after the interval's
		out = append(out, SearchArrival{PostArrival: arrived[i]})
	}
	return out[:len(arrived)], nil
}

// SearchLate lists the search's results that arrived late for the viewer's fencepost at
// q.From of fence q.Late (ChronoQuery.Late): posts its snapshot could not see, dated before
// it, that the viewer finds by the search (SearchAmong), newest first.
func (s *Store) SearchLate(ctx context.Context, sq Search, q ChronoQuery) ([]PostArrival, error) {
	if q.Late == "" {
		return nil, nil
	}
	rows, err := s.q.LatePosts(ctx, dbq.LatePostsParams{ViewerID: q.Viewer.ID, Template: q.Late, At: q.From,
		Since: q.From.Add(-MaxShareLateness)})
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	found, err := s.SearchAmong(ctx, sq, q.Viewer, ids)
	if err != nil {
		return nil, err
	}
	var out []PostArrival
	for _, r := range rows {
		if slices.Contains(found, r.ID) {
			out = append(out, PostArrival{PostID: r.ID, At: r.CreatedAt.UTC(), Late: true})
		}
	}
	return out, nil
}

// SearchAmong returns which of the posts among (a search's candidates, a committed
// fencepost's posts) v finds by the search now: not deleted, readable by v, still matching
// in their text or by a comment whose author is not in a ban with v, and still found by its
// liked-by, commented-by and tag operators as v's bans let them see them. In no order.
func (s *Store) SearchAmong(ctx context.Context, sq Search, v tributary.Viewer, among []int64) ([]int64, error) {
	ids, err := s.reads(ctx).SearchAmong(ctx, dbq.SearchAmongParams{Ids: nonNilIDs(among), ViewerID: v.ID,
		Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds), Text: sq.Text,
		Liked: filterFeeds(sq.LikedBy, LikedByFeed), Commented: filterFeeds(sq.CommentedBy, CommentedByFeed),
		Tags: filterFeeds(sq.Tags, TagFeed)})
	if err != nil {
		return nil, fmt.Errorf("db: search among %d posts: %w", len(among), err)
	}
	return ids, nil
}

// SearchCandidates lists up to limit of the newest posts (not deleted) posted at or before
// upTo that match the search whoever may read them, with a matching comment by anyone,
// with their rank (the same for every reader who finds them): what SearchAmong checks for
// each reader. Never shown as they are.
func (s *Store) SearchCandidates(ctx context.Context, sq Search, upTo time.Time, limit int) ([]SearchArrival, error) {
	return s.searchArrived(ctx, sq, ChronoQuery{To: upTo, Limit: limit}, searchAs{narrow: sq.narrowed(), anyReader: true})
}

// SearchRecent is SearchArrived over a short interval (q.From a few minutes ago at most):
// the narrow plan, a walk of the posts made then, on its generic plan, which is that walk
// whatever the words (planned with its arguments, it took 0.39 ms to plan and 0.02 to run).
func (s *Store) SearchRecent(ctx context.Context, sq Search, q ChronoQuery) ([]SearchArrival, error) {
	return s.searchArrived(withGenericPlans(ctx), sq, q, searchAs{narrow: true})
}

// SearchTalkSince reports whether a comment made or edited at or after since matches the
// search's text.
func (s *Store) SearchTalkSince(ctx context.Context, sq Search, since time.Time) (bool, error) {
	found, err := s.reads(ctx).SearchTalkSince(ctx, dbq.SearchTalkSinceParams{Since: since, Text: sq.Text})
	if err != nil {
		return false, fmt.Errorf("db: search: comments since %s: %w", since.Format(time.RFC3339), err)
	}
	return found, nil
}

// searchAs says how searchArrived reads: narrow (the named posts checked one by one), for
// any reader (candidates).
type searchAs struct {
	narrow    bool
	anyReader bool
}

func (s *Store) searchArrived(ctx context.Context, sq Search, q ChronoQuery, as searchAs) ([]SearchArrival, error) {
	from, posAt, posID := chronoBounds(q)
	arg := dbq.SearchArrivalsParams{Text: sq.Text, AnyReader: as.anyReader,
		ViewerID: q.Viewer.ID, Blocked: nonNilIDs(q.Viewer.Blocked), PrivateFeeds: nonNilIDs(q.Viewer.PrivateFeeds),
		FromAt: from, ToAt: q.To, PosAt: posAt, PosID: posID, Skip: nonNilIDs(q.Skip),
		Authors: nonNilIDs(sq.Authors), Feeds: nonNilIDs(sq.Groups), Sites: nonNilStrings(sq.Sites), Tags: filterFeeds(sq.Tags, TagFeed),
		Liked: filterFeeds(sq.LikedBy, LikedByFeed), Commented: filterFeeds(sq.CommentedBy, CommentedByFeed), Lim: int32(q.Limit)}
	var rows []dbq.SearchArrivalsRow
	var err error
	if as.narrow {
		var narrow []dbq.SearchNarrowArrivalsRow
		narrow, err = s.reads(ctx).SearchNarrowArrivals(ctx, dbq.SearchNarrowArrivalsParams{Text: arg.Text, Blocked: arg.Blocked,
			AnyReader: arg.AnyReader, Lim: arg.Lim, ViewerID: arg.ViewerID, PrivateFeeds: arg.PrivateFeeds, FromAt: arg.FromAt,
			ToAt: arg.ToAt, PosAt: arg.PosAt, PosID: arg.PosID, Skip: arg.Skip, Authors: arg.Authors, Sites: arg.Sites,
			Feeds: arg.Feeds, Liked: arg.Liked, Commented: arg.Commented, Tags: arg.Tags})
		rows = make([]dbq.SearchArrivalsRow, len(narrow))
		for i, r := range narrow {
			rows[i] = dbq.SearchArrivalsRow(r)
		}
	} else {
		rows, err = s.reads(ctx).SearchArrivals(ctx, arg)
	}
	if err != nil {
		return nil, fmt.Errorf("db: search: %w", err)
	}
	out := make([]SearchArrival, len(rows))
	for i, r := range rows {
		out[i] = SearchArrival{PostArrival: PostArrival{PostID: r.ID, At: r.Arrival}, Rank: r.Rank}
	}
	return out, nil
}

// filterFeeds names the filter feeds of some users or tags (never nil).
func filterFeeds[T any](of []T, feed func(T) string) []string {
	out := make([]string, len(of))
	for i, x := range of {
		out[i] = feed(x)
	}
	return out
}
