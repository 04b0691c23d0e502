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
// filtered home (kind, tag), a group post for a member, and not a followee's post to a group
// the reader is not in, nor one the filter leaves out (issue 44.17).
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
