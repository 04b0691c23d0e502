package feed_test

import (
	"testing"
	"time"

	"tributary"
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
