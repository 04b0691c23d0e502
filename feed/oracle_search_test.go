package feed_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"tributary"
	"tributary/db"
	"tributary/feed"
)

// The access oracle over search (issue 16): in the filter oracle's worlds, before and after
// their changes, every viewer and anonymous search for a word only posts have ("post"), a
// word only comments have ("comment"), and a word with an author; scrolled to the end a few
// posts a page, the results must be exactly the posts the model says: those the viewer may
// read that match in their text, or by a comment whose author is not in a ban with the
// viewer. A private post's words, and a comment's on a private post, are never found by
// someone who may not read the post.

// searchCase is one search of the oracle and which posts the model says match it.
type searchCase struct {
	path  string // the tally's name for its kind
	q     db.Search
	match func(viewer int64, p modelPost) bool
}

func (fm *filterModel) searchCases() []searchCase {
	inText := func(word string) func(int64, modelPost) bool {
		return func(_ int64, p modelPost) bool { return strings.HasPrefix(fm.text[p.id], word+" ") }
	}
	inComments := func(word string) func(int64, modelPost) bool {
		return func(viewer int64, p modelPost) bool {
			for _, c := range fm.comments {
				if c.post == p.id && strings.HasPrefix(c.body, word+" ") && (viewer == 0 || !fm.banned(viewer, c.author)) {
					return true
				}
			}
			return false
		}
	}
	cases := []searchCase{
		{path: "search in posts", q: db.Search{Text: "'post'"}, match: inText("post")},
		{path: "search in comments", q: db.Search{Text: "'comment'"}, match: inComments("comment")},
	}
	for _, u := range fm.users[:min(2, len(fm.users))] {
		author := u.ID
		cases = append(cases, searchCase{path: "search from", q: db.Search{Text: "'post'", Authors: []int64{author}},
			match: func(v int64, p modelPost) bool { return p.author == author && inText("post")(v, p) }})
	}
	// liked-by:, commented-by: and tag: find what those filter feeds hold, as the viewer's
	// bans let them see it there (shown).
	in := func(f filterFeed) func(int64, modelPost) bool {
		return func(v int64, p modelPost) bool {
			_, ok := fm.entries[f.key][p.id]
			return ok && fm.shown(v, f, p.id)
		}
	}
	for _, u := range fm.users[:min(3, len(fm.users))] {
		cases = append(cases,
			searchCase{path: "search liked-by", q: db.Search{LikedBy: []int64{u.ID}}, match: in(likedBy(u.ID))},
			searchCase{path: "search commented-by", q: db.Search{CommentedBy: []int64{u.ID}}, match: in(commentedBy(u.ID))})
	}
	for _, tag := range filterTags[:2] {
		cases = append(cases, searchCase{path: "search tag", q: db.Search{Tags: []string{tag}}, match: in(tagged(tag))})
	}
	return cases
}

// checkSearches runs every search case as every viewer and compares the results, as sets
// (the head is by relevance), with the model's.
func (fm *filterModel) checkSearches(t *testing.T, ctx context.Context, s *feed.Service, viewers []*tributary.User,
	accesses []tributary.Viewer, world string, cases tally) {
	t.Helper()
	for vi, v := range viewers {
		var id int64
		if v != nil {
			id = v.ID
		}
		limit := 2 + vi%3
		for _, c := range fm.searchCases() {
			var want []int64
			for _, p := range fm.posts {
				if fm.readable(id, p) && c.match(id, p) {
					want = append(want, p.id)
				}
			}
			got := walkSearch(t, ctx, s, v, accesses[vi], c.q, limit)
			cases[c.path]++
			slices.Sort(want)
			sorted := slices.Sorted(slices.Values(got))
			if !slices.Equal(sorted, want) || len(slices.Compact(slices.Clone(sorted))) != len(got) {
				t.Errorf("%s viewer %d %s %+v: results %v, want %v", world, id, c.path, c.q, got, want)
			}
		}
	}
}

// walkSearch scrolls a search's results to their end.
func walkSearch(t *testing.T, ctx context.Context, s *feed.Service, v *tributary.User, access tributary.Viewer, q db.Search, limit int) []int64 {
	t.Helper()
	var got []int64
	cursor := ""
	for range 60 {
		p, err := s.ChronoAs(ctx, v, access, feed.Chrono{Search: &q}, cursor, limit)
		if err != nil {
			t.Fatal(err)
		}
		for _, post := range p.Posts {
			got = append(got, post.ID)
		}
		if cursor = p.NextCursor; cursor == "" {
			return got
		}
	}
	t.Fatalf("search %+v: the walk does not end", q)
	return nil
}

// searchCommitted is a search's first page read before the changes, and where it ends.
type searchCommitted struct {
	viewer int
	q      db.Search
	cursor string
}

// commitSearches reads the first page of each viewer's search for a word every post has, a
// post a page: scrolled on after the changes, those fenceposts must show only what the
// viewer may read then.
func (fm *filterModel) commitSearches(t *testing.T, ctx context.Context, s *feed.Service, viewers []*tributary.User, accesses []tributary.Viewer) []searchCommitted {
	t.Helper()
	var out []searchCommitted
	for vi, v := range viewers {
		q := db.Search{Text: "'post'"}
		p, err := s.ChronoAs(ctx, v, accesses[vi], feed.Chrono{Search: &q}, "", 1)
		if err != nil {
			t.Fatal(err)
		}
		if p.NextCursor != "" {
			out = append(out, searchCommitted{viewer: vi, q: q, cursor: p.NextCursor})
		}
	}
	return out
}

// checkCommittedSearches scrolls on the searches committed before the changes.
func (fm *filterModel) checkCommittedSearches(t *testing.T, ctx context.Context, s *feed.Service, viewers []*tributary.User,
	accesses []tributary.Viewer, committed []searchCommitted, world string, cases tally) {
	t.Helper()
	for _, c := range committed {
		v := viewers[c.viewer]
		var id int64
		if v != nil {
			id = v.ID
		}
		cursor := c.cursor
		for range 60 {
			p, err := s.ChronoAs(ctx, v, accesses[c.viewer], feed.Chrono{Search: &c.q}, cursor, 2)
			if err != nil {
				t.Fatal(err)
			}
			for _, post := range p.Posts {
				if !fm.readable(id, fm.post(post.ID)) {
					t.Errorf("%s viewer %d committed search: post %d shown, which the viewer may no longer read", world, id, post.ID)
				}
			}
			if cursor = p.NextCursor; cursor == "" {
				break
			}
		}
		cases["committed search"]++
	}
}
