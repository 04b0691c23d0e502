package db

import (
	"context"
	"fmt"
	"strconv"
	"strings"

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

// SearchArrival is a search result, when it was posted and how well it matches the text.
type SearchArrival struct {
	PostArrival
	Rank float64
}

// SearchArrived lists a search's results posted in (q.From, q.To] newest first after
// (q.PosAt, q.PosID), as q.Viewer may read them (see queries/search.sql).
func (s *Store) SearchArrived(ctx context.Context, sq Search, q ChronoQuery) ([]SearchArrival, error) {
	from, posAt, posID := chronoBounds(q)
	feeds := func(users []int64, feed func(int64) string) []string {
		out := make([]string, len(users))
		for i, u := range users {
			out[i] = feed(u)
		}
		return out
	}
	tags := make([]string, len(sq.Tags))
	for i, t := range sq.Tags {
		tags[i] = TagFeed(t)
	}
	arg := dbq.SearchArrivalsParams{Text: sq.Text,
		ViewerID: q.Viewer.ID, Blocked: nonNilIDs(q.Viewer.Blocked), PrivateFeeds: nonNilIDs(q.Viewer.PrivateFeeds),
		FromAt: from, ToAt: q.To, PosAt: posAt, PosID: posID, Skip: nonNilIDs(q.Skip),
		Authors: nonNilIDs(sq.Authors), Feeds: nonNilIDs(sq.Groups), Sites: nonNilStrings(sq.Sites), Tags: tags,
		Liked: feeds(sq.LikedBy, LikedByFeed), Commented: feeds(sq.CommentedBy, CommentedByFeed), Lim: int32(q.Limit)}
	var rows []dbq.SearchArrivalsRow
	var err error
	if sq.narrowed() {
		var narrow []dbq.SearchNarrowArrivalsRow
		narrow, err = s.reads(ctx).SearchNarrowArrivals(ctx, dbq.SearchNarrowArrivalsParams{Text: arg.Text, Blocked: arg.Blocked,
			Lim: arg.Lim, ViewerID: arg.ViewerID, PrivateFeeds: arg.PrivateFeeds, FromAt: arg.FromAt, ToAt: arg.ToAt,
			PosAt: arg.PosAt, PosID: arg.PosID, Skip: arg.Skip, Authors: arg.Authors, Sites: arg.Sites, Feeds: arg.Feeds,
			Liked: arg.Liked, Commented: arg.Commented, Tags: arg.Tags})
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
