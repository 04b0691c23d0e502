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
