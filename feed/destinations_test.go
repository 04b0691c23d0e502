package feed_test

import (
	"slices"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/feed"
)

// A post only in a group reaches the group's page, not its author's page nor the home feeds
// of the author's followers (as a followee's share): every read path agrees, whether or not
// the reader may read the group.
func TestGroupOnlyPostStaysInItsGroup(t *testing.T) {
	w := newWorld(t)
	w.user("ada", false, 0)
	w.user("bob", false, 0)
	w.follow("bob", "ada")
	g, err := w.store.CreateGroup(w.ctx, w.users["ada"].ID, "papers", "Papers", "public", false)
	if err != nil {
		t.Fatal(err)
	}
	share := func(url string, d db.Destination, ago time.Duration) int64 {
		t.Helper()
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: w.users["ada"].ID, URL: url, Title: url, CreatedAt: w.now.Add(-ago)})
		if err != nil {
			t.Fatal(err)
		}
		id, err := w.store.Share(w.ctx, p, d)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	const inGroup, inFeed = "https://example.com/group-only", "https://example.com/own-feed"
	groupPost := share(inGroup, db.Destination{Groups: []int64{g.ID}}, 2*h)
	feedPost := share(inFeed, db.Destination{OwnFeed: true}, 3*h)
	w.refresh()

	paths := map[string]*feed.Service{
		"snapshot (copy)": w.service(nil),
		"snapshot (sql)":  w.service(func(c *feed.Config) { c.CopyFrom = 0 }),
		"live":            w.service(func(c *feed.Config) { c.SnapshotMaxAge = 0 }),
	}
	for name, s := range paths {
		for _, reader := range []string{"bob"} {
			got := urls(w.timeline(s, reader, tributary.FeedQuery{}))
			if slices.Contains(got, inGroup) || !slices.Contains(got, inFeed) {
				t.Errorf("%s: %s's home shows %v, want %s and not the group-only %s", name, reader, got, inFeed, inGroup)
			}
		}
	}

	// Ada's page lists her own feed; the group's page lists the group's post.
	s := paths["live"]
	for _, c := range []struct {
		name string
		feed feed.Chrono
		want []int64
	}{
		{"ada's page", feed.Chrono{Author: w.users["ada"].ID}, []int64{feedPost}},
		{"the group's page", feed.Chrono{Feed: g.ID}, []int64{groupPost}},
	} {
		bob := w.users["bob"]
		p, err := s.Chrono(w.ctx, &bob, c.feed, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, post := range p.Posts {
			got = append(got, post.ID)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s for bob: posts %v, want %v", c.name, got, c.want)
		}
	}

	// A group-only share after bob's first page is no new item of his home.
	bob := w.users["bob"]
	first := w.now
	w.timeline(s, "bob", tributary.FeedQuery{})
	w.now = w.now.Add(time.Minute)
	share("https://example.com/group-only-2", db.Destination{Groups: []int64{g.ID}}, 0)
	for name, s := range paths {
		n, err := s.NewCount(w.ctx, &bob, tributary.FeedQuery{}, first, 10)
		if err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s: bob's home counts %d new after a group-only share, want 0", name, n)
		}
	}
}

// A home feed aggregates the groups its reader is a member of (seed 003): a member sees a
// group's posts at home on every read path and counts a new one among the arrivals; a
// non-member does not, a private group's posts never reach one, and leaving a group takes
// its posts off the leaver's home.
func TestGroupPostReachesItsMembersHome(t *testing.T) {
	w := newWorld(t)
	for _, u := range []string{"ada", "bob", "cy", "dee", "eve"} {
		w.user(u, false, 0)
	}
	w.follow("bob", "ada")
	group := func(name, access string) db.Group {
		t.Helper()
		g, err := w.store.CreateGroup(w.ctx, w.users["ada"].ID, name, name, access, false)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	papers, secret := group("papers", "public"), group("secret", "private")
	join := func(g db.Group, handle string) {
		t.Helper()
		pending, err := w.store.Join(w.ctx, g, w.users[handle].ID)
		if err == nil && pending {
			err = w.store.ApproveMember(w.ctx, g, w.users["ada"].ID, w.users[handle].ID)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	join(papers, "cy")
	join(secret, "dee")
	share := func(url string, g int64, ago time.Duration) {
		t.Helper()
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: w.users["ada"].ID, URL: url, Title: url, CreatedAt: w.now.Add(-ago)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.store.Share(w.ctx, p, db.Destination{Groups: []int64{g}}); err != nil {
			t.Fatal(err)
		}
	}
	const inPapers, inSecret = "https://example.com/papers", "https://example.com/secret"
	share(inPapers, papers.ID, 2*h)
	share(inSecret, secret.ID, 3*h)
	w.refresh()

	paths := map[string]*feed.Service{
		"snapshot (copy)": w.service(nil),
		"snapshot (sql)":  w.service(func(c *feed.Config) { c.CopyFrom = 0 }),
		"live":            w.service(func(c *feed.Config) { c.SnapshotMaxAge = 0 }),
	}
	want := map[string][]string{"ada": {inPapers, inSecret}, "bob": nil, "cy": {inPapers}, "dee": {inSecret}, "eve": nil}
	for name, s := range paths {
		for reader, urlsWanted := range want {
			tl := w.timeline(s, reader, tributary.FeedQuery{})
			got := urls(tl)
			for _, u := range []string{inPapers, inSecret} {
				if slices.Contains(got, u) != slices.Contains(urlsWanted, u) {
					t.Errorf("%s: %s's home shows %v, want of the group posts exactly %v", name, reader, got, urlsWanted)
					break
				}
			}
			// The card says which of the reader's groups brought it.
			for _, it := range tl.Items {
				if wantGroup := map[string]string{inPapers: "papers", inSecret: "secret"}[it.URL]; it.Group != wantGroup {
					t.Errorf("%s: %s's card of %s is in group %q, want %q", name, reader, it.URL, it.Group, wantGroup)
				}
			}
		}
	}

	// A group post after a member's first page is a new item of their home, and no one else's.
	first := w.now
	for _, reader := range []string{"bob", "cy"} {
		w.timeline(paths["live"], reader, tributary.FeedQuery{})
	}
	w.now = w.now.Add(time.Minute)
	share("https://example.com/papers-2", papers.ID, 0)
	// Arrivals are read from the reader's river, or from the posts: the interval's few
	// (RecentArrivals) or by the index (ArrivedAnchors).
	reads := []struct {
		name string
		set  func()
	}{
		{"river", func() {}},
		{"recent posts", func() { w.store.Rivers.Off = true }},
		{"posts", func() { w.store.Rivers.Off, w.store.RecentScan = true, 0 }},
	}
	rivers, recent := w.store.Rivers, w.store.RecentScan
	for _, read := range reads {
		read.set()
		for name, s := range paths {
			for reader, wantN := range map[string]int{"bob": 0, "cy": 1} {
				u := w.users[reader]
				n, err := s.NewCount(w.ctx, &u, tributary.FeedQuery{}, first, 10)
				if err != nil {
					t.Fatal(err)
				}
				if n != wantN {
					t.Errorf("%s, %s: %s's home counts %d new after a share to papers, want %d", name, read.name, reader, n, wantN)
				}
			}
		}
		w.store.Rivers, w.store.RecentScan = rivers, recent
	}

	// Leaving the group takes its posts off the leaver's home.
	if err := w.store.RemoveMember(w.ctx, papers, w.users["cy"].ID, w.users["cy"].ID); err != nil {
		t.Fatal(err)
	}
	for name, s := range paths {
		if got := urls(w.timeline(s, "cy", tributary.FeedQuery{})); slices.Contains(got, inPapers) {
			t.Errorf("%s: cy left papers, and her home still shows %v", name, got)
		}
	}
}
