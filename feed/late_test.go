package feed_test

import (
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/feed"
)

// A share whose transaction commits after a reader's first page was read, dated before that
// page's fencepost, is announced by the "N new" count and arrives on the next first page,
// once: not again in the fencepost after (issue 44.17).
func TestALateCommittedShareArrivesOnce(t *testing.T) {
	w := newWorld(t)
	w.user("viewer", false, 0)
	w.user("bob", false, 0)
	w.follow("viewer", "bob")
	w.share("bob", "https://bob.example.com/old", 2*time.Hour, false)
	w.refresh()
	s := w.service(nil)
	viewer := w.users["viewer"]
	q := tributary.FeedQuery{Limit: 10}
	count := func(what string, p tributary.Timeline, want int) {
		t.Helper()
		after, err := feed.ParseFencepost(p.Fencepost)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := s.NewCount(w.ctx, &viewer, q, after, 100); err != nil || n != want {
			t.Errorf("%s: %d new, %v; want %d", what, n, err, want)
		}
	}
	shown := func(p tributary.Timeline, url string) int {
		n := 0
		for _, it := range p.Items {
			if it.URL == url {
				n++
			}
		}
		return n
	}

	// The slow share: dated a minute before the first page, committed after it was read.
	const slowURL = "https://bob.example.com/slow"
	slow, err := w.store.Pool.Begin(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Rollback(w.ctx)
	if _, err := slow.Exec(w.ctx, `WITH a AS (INSERT INTO anchors (url) VALUES ($2) RETURNING id)
		INSERT INTO posts (author_id, anchor_id, url, canonical_url, anchor_url, kind, anchor_kind, host, created_at, bumped_at)
		SELECT $1, a.id, $2, $2, $2, 'web', 'web', 'bob.example.com', $3, $3 FROM a`,
		w.users["bob"].ID, slowURL, w.now.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	first := w.page(s, "viewer", q)
	if shown(first, slowURL) != 0 || len(first.Items) != 1 {
		t.Fatalf("the first page shows %d items, the slow share %d times; want the old share alone", len(first.Items), shown(first, slowURL))
	}
	if err := slow.Commit(w.ctx); err != nil {
		t.Fatal(err)
	}

	w.now = w.now.Add(time.Minute)
	count("after the slow share committed", first, 1)
	next := w.page(s, "viewer", q)
	if shown(next, slowURL) != 1 || next.Items[0].URL != slowURL {
		t.Fatalf("the next first page shows %v; want the slow share first, once", urls(next))
	}

	// The fencepost after: the slow share is not new again, a share since it is.
	w.now = w.now.Add(time.Minute)
	count("the next fencepost, nothing since", next, 0)
	w.share("bob", "https://bob.example.com/new", 0, false)
	count("the next fencepost, a share since", next, 1)
	third := w.page(s, "viewer", q)
	if got := urls(third); len(got) != 3 || got[0] != "https://bob.example.com/new" || shown(third, slowURL) != 1 {
		t.Fatalf("the page after shows %v; want the new share, then the slow one once, then the old one", got)
	}
}

// Late shares reach every feed that would have listed them on time, and no other: a
// filtered home (kind, tag), a group post for a member, a followee's like or comment on
// home, and not a followee's post to a group the reader is not in, nor one the filter
// leaves out, nor a stranger's like, nor a like of a post the reader may not read (issue
// 44.17).
func TestLateSharesReachTheFeedsThatGetThem(t *testing.T) {
	cases := []struct {
		name string
		q    tributary.FeedQuery
		// share makes the late share: dated before the first page, made after it was read
		// (its transaction is one that page's snapshot could not see).
		share func(w *world, mine, other db.Group, url string)
		want  bool
	}{
		{"a tag feed, the tag's share", tributary.FeedQuery{Tag: "ml"},
			func(w *world, mine, other db.Group, url string) {
				w.lateShare("bob", url, "#ml", db.Destination{OwnFeed: true})
			}, true},
		{"a tag feed, another tag's share", tributary.FeedQuery{Tag: "ml"},
			func(w *world, mine, other db.Group, url string) {
				w.lateShare("bob", url, "#bio", db.Destination{OwnFeed: true})
			}, false},
		{"a kind feed, a paper", tributary.FeedQuery{Source: tributary.KindArxiv},
			func(w *world, mine, other db.Group, url string) {
				w.lateShare("bob", "https://arxiv.org/abs/2611.00042", "", db.Destination{OwnFeed: true})
			}, true},
		{"a kind feed, a web page", tributary.FeedQuery{Source: tributary.KindArxiv},
			func(w *world, mine, other db.Group, url string) {
				w.lateShare("bob", url, "", db.Destination{OwnFeed: true})
			}, false},
		{"home, a group post by a non-followee to the reader's group", tributary.FeedQuery{},
			func(w *world, mine, other db.Group, url string) {
				w.lateShare("cy", url, "", db.Destination{Groups: []int64{mine.ID}})
			}, true},
		{"home, a followee's post to a group the reader is not in", tributary.FeedQuery{},
			func(w *world, mine, other db.Group, url string) {
				w.lateShare("bob", url, "", db.Destination{Groups: []int64{other.ID}})
			}, false},
		{"home, a followee's like", tributary.FeedQuery{},
			func(w *world, mine, other db.Group, url string) { w.lateLike("bob", "cy", url) }, true},
		{"home, a followee's comment", tributary.FeedQuery{},
			func(w *world, mine, other db.Group, url string) {
				w.lateShare("cy", url, "", db.Destination{OwnFeed: true})
				if _, _, err := w.store.AddComment(w.ctx, w.accessOf("bob"), w.postOf("cy", url), "Read this.", w.now.Add(-time.Minute),
					tributary.DefaultBumpRule); err != nil {
					w.t.Fatal(err)
				}
			}, true},
		{"home, a like by someone the reader does not follow", tributary.FeedQuery{},
			func(w *world, mine, other db.Group, url string) { w.lateLike("cy", "cy", url) }, false},
		{"home, a followee's like of a direct the reader may not read", tributary.FeedQuery{},
			func(w *world, mine, other db.Group, url string) {
				w.follow("bob", "cy")
				w.lateShare("cy", url, "", db.Destination{DirectTo: []int64{w.users["bob"].ID}})
				if err := w.store.Like(w.ctx, w.accessOf("bob"), w.postOf("cy", url), w.now.Add(-time.Minute)); err != nil {
					w.t.Fatal(err)
				}
			}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			for _, u := range []string{"viewer", "bob", "cy"} {
				w.user(u, false, 0)
			}
			w.follow("viewer", "bob")
			g, err := w.store.CreateGroup(w.ctx, w.users["cy"].ID, "lab", "Lab", "public", false)
			if err != nil {
				t.Fatal(err)
			}
			other, err := w.store.CreateGroup(w.ctx, w.users["bob"].ID, "club", "Club", "public", false)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.store.Join(w.ctx, g, w.users["viewer"].ID); err != nil {
				t.Fatal(err)
			}
			// Each feed holds something old, so its first page commits a fencepost.
			w.now = w.now.Add(-2 * time.Hour)
			w.lateShare("bob", "https://arxiv.org/abs/2611.00001", "#ml", db.Destination{OwnFeed: true})
			w.now = w.now.Add(2 * time.Hour)
			w.refresh()
			s := w.service(nil)
			viewer := w.users["viewer"]
			q := c.q
			q.Limit = 10
			first := w.page(s, "viewer", q)
			const url = "https://example.com/late"
			c.share(w, g, other, url)

			w.now = w.now.Add(time.Minute)
			after, err := feed.ParseFencepost(first.Fencepost)
			if err != nil {
				t.Fatal(err)
			}
			n, err := s.NewCount(w.ctx, &viewer, q, after, 100)
			if err != nil {
				t.Fatal(err)
			}
			next := w.page(s, "viewer", q)
			got := len(next.Items) > 0 && next.Items[0].ID != first.Items[0].ID
			if wantN := map[bool]int{true: 1}[c.want]; n != wantN || got != c.want {
				t.Fatalf("%d new, the next page shows %v; want %d new and the late share in it %v", n, urls(next), wantN, c.want)
			}
			// Once: the fencepost after announces nothing.
			w.now = w.now.Add(time.Minute)
			if after, err = feed.ParseFencepost(next.Fencepost); err != nil {
				t.Fatal(err)
			}
			if n, err := s.NewCount(w.ctx, &viewer, q, after, 100); err != nil || n != 0 {
				t.Fatalf("the fencepost after: %d new, %v; want 0", n, err)
			}
		})
	}
}

// The anonymous front page finds late shares as a reader's home does: its fenceposts are
// shared by every visitor and keep their snapshot too.
func TestALateShareReachesTheFrontPage(t *testing.T) {
	w := newWorld(t)
	w.user("vip", true, 0)
	w.now = w.now.Add(-2 * time.Hour)
	w.lateShare("vip", "https://vip.example.com/old", "", db.Destination{OwnFeed: true})
	w.now = w.now.Add(2 * time.Hour)
	w.refresh()
	s := w.service(nil)
	q := tributary.FeedQuery{Limit: 10}
	page := func() tributary.Timeline {
		t.Helper()
		p, err := s.Timeline(w.ctx, nil, q)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	count := func(what string, p tributary.Timeline, want int) {
		t.Helper()
		after, err := feed.ParseFencepost(p.Fencepost)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := s.NewCount(w.ctx, nil, q, after, 100); err != nil || n != want {
			t.Errorf("%s: %d new, %v; want %d", what, n, err, want)
		}
	}
	// Two first pages: the second goes on from the first's fencepost, as every visitor's do.
	page()
	w.now = w.now.Add(time.Minute)
	first := page()
	const late = "https://vip.example.com/late"
	w.lateShare("vip", late, "", db.Destination{OwnFeed: true})
	w.now = w.now.Add(time.Minute)
	count("after the late share", first, 1)
	next := page()
	if got := urls(next); len(got) == 0 || got[0] != late {
		t.Fatalf("the next front page shows %v; want the late share first", got)
	}
	w.now = w.now.Add(time.Minute)
	count("the fencepost after", next, 0)
	if got := urls(page()); len(got) != 2 {
		t.Fatalf("the front page after shows %v; want the two shares, once each", got)
	}
}

// Chronological pages (a user's, a group's, the directs, the filter feeds, searches) find what
// committed late, as the home feed does: a post made, bumped by a comment, or liked in a
// transaction a page's snapshot could not see, dated before its fencepost, is counted new
// and heads the next first page, once (issue 44.17).
func TestLateArrivalsReachChronologicalPages(t *testing.T) {
	const oldURL, lateURL = "https://bob.example.com/old", "https://bob.example.com/late"
	cases := []struct {
		name string
		feed func(w *world, g db.Group) feed.Chrono
		// late makes the late arrival, dated a minute before the first page; want is its URL.
		late func(w *world, g db.Group)
		want string
	}{
		{"a user's page, a post", func(w *world, g db.Group) feed.Chrono { return feed.Chrono{Author: w.users["bob"].ID} },
			func(w *world, g db.Group) { w.lateShare("bob", lateURL, "", db.Destination{OwnFeed: true}) }, lateURL},
		{"a group's page, a post", func(w *world, g db.Group) feed.Chrono { return feed.Chrono{Feed: g.ID} },
			func(w *world, g db.Group) { w.lateShare("bob", lateURL, "", db.Destination{Groups: []int64{g.ID}}) }, lateURL},
		{"the directs, a direct", func(w *world, g db.Group) feed.Chrono { return feed.Chrono{Directs: true} },
			func(w *world, g db.Group) {
				w.lateShare("bob", lateURL, "", db.Destination{DirectTo: []int64{w.users["viewer"].ID}})
			}, lateURL},
		{"a user's page, a comment's bump", func(w *world, g db.Group) feed.Chrono { return feed.Chrono{Author: w.users["bob"].ID} },
			func(w *world, g db.Group) {
				if _, _, err := w.store.AddComment(w.ctx, w.accessOf("cy"), w.postOf("bob", oldURL), "Still good.", w.now.Add(-time.Minute),
					tributary.DefaultBumpRule); err != nil {
					w.t.Fatal(err)
				}
			}, oldURL},
		{"posts liked by cy, a like", func(w *world, g db.Group) feed.Chrono { return feed.Chrono{Filter: db.LikedByFeed(w.users["cy"].ID)} },
			func(w *world, g db.Group) {
				w.lateShare("bob", lateURL, "", db.Destination{OwnFeed: true})
				if err := w.store.Like(w.ctx, w.accessOf("cy"), w.postOf("bob", lateURL), w.now.Add(-time.Minute)); err != nil {
					w.t.Fatal(err)
				}
			}, lateURL},
		{"#ml, a post", func(w *world, g db.Group) feed.Chrono { return feed.Chrono{Filter: db.TagFeed("ml")} },
			func(w *world, g db.Group) { w.lateShare("bob", lateURL, "#ml", db.Destination{OwnFeed: true}) }, lateURL},
		{"a search, a post", func(w *world, g db.Group) feed.Chrono { return feed.Chrono{Search: &db.Search{Text: "'ml'"}} },
			func(w *world, g db.Group) { w.lateShare("bob", lateURL, "#ml", db.Destination{OwnFeed: true}) }, lateURL},
		{"a search by author, a post", func(w *world, g db.Group) feed.Chrono {
			return feed.Chrono{Search: &db.Search{Authors: []int64{w.users["bob"].ID}}}
		}, func(w *world, g db.Group) { w.lateShare("bob", lateURL, "", db.Destination{OwnFeed: true}) }, lateURL},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			for _, u := range []string{"viewer", "bob", "cy"} {
				w.user(u, false, 0)
			}
			w.follow("viewer", "bob")
			g, err := w.store.CreateGroup(w.ctx, w.users["bob"].ID, "lab", "Lab", "public", false)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.store.Join(w.ctx, g, w.users["viewer"].ID); err != nil {
				t.Fatal(err)
			}
			// Each page holds something old, so its first page commits a fencepost.
			w.now = w.now.Add(-2 * time.Hour)
			for _, u := range []string{oldURL, "https://bob.example.com/older"} {
				w.now = w.now.Add(-time.Minute)
				w.lateShare("bob", u, "#ml", db.Destination{OwnFeed: true, Groups: []int64{g.ID}, DirectTo: []int64{w.users["viewer"].ID}})
				if err := w.store.Like(w.ctx, w.accessOf("cy"), w.postOf("bob", u), w.now); err != nil {
					t.Fatal(err)
				}
			}
			w.now = w.now.Add(2*time.Hour + 2*time.Minute)
			s := w.service(nil)
			viewer := w.users["viewer"]
			ch := c.feed(w, g)
			page := func() feed.ChronoPage {
				t.Helper()
				p, err := s.Chrono(w.ctx, &viewer, ch, "", 10)
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
			count := func(what string, p feed.ChronoPage, want int) {
				t.Helper()
				after, err := feed.ParseFencepost(p.Fencepost)
				if err != nil {
					t.Fatal(err)
				}
				// Read now: each direct is a feed of its own, which the access names.
				if n, err := s.ChronoNewCount(w.ctx, w.accessOf("viewer"), ch, after, 100); err != nil || n != want {
					t.Errorf("%s: %d new, %v; want %d", what, n, err, want)
				}
			}
			first := page()
			if len(first.Posts) != 2 {
				t.Fatalf("the first page shows %d posts; want the two old ones", len(first.Posts))
			}
			c.late(w, g)
			w.now = w.now.Add(time.Minute)
			count("after the late arrival", first, 1)
			next := page()
			if len(next.Posts) == 0 || next.Posts[0].URL != c.want {
				t.Fatalf("the next first page shows %v; want %s first", postURLs(next.Posts), c.want)
			}
			w.now = w.now.Add(time.Minute)
			count("the fencepost after", next, 0)
		})
	}
}

func postURLs(posts []tributary.Post) []string {
	out := make([]string, len(posts))
	for i, p := range posts {
		out[i] = p.URL
	}
	return out
}

// lateLike has liker like author's new post of url, both dated a minute before now (as
// lateShare).
func (w *world) lateLike(liker, author, url string) {
	w.t.Helper()
	w.lateShare(author, url, "", db.Destination{OwnFeed: true})
	if err := w.store.Like(w.ctx, w.accessOf(liker), w.postOf(author, url), w.now.Add(-time.Minute)); err != nil {
		w.t.Fatal(err)
	}
}

// lateShare shares url by handle, with body, to d, dated a minute before now: made after a
// page read at now, it is a share that page's snapshot could not see.
func (w *world) lateShare(handle, url, body string, d db.Destination) {
	w.t.Helper()
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: w.users[handle].ID, URL: url, Title: url, Body: body, CreatedAt: w.now.Add(-time.Minute)})
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.store.Share(w.ctx, p, d); err != nil {
		w.t.Fatal(err)
	}
}
