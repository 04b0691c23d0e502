package feed_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
	"tributary/feed"
)

// tracedWorld is a world on a fresh database whose queries are named in the log.
func tracedWorld(t *testing.T) (*world, *dbtest.QueryLog) {
	t.Helper()
	store, log := dbtest.TracedStore(t)
	return &world{t: t, ctx: context.Background(), store: store, now: t0, users: map[string]tributary.User{}}, log
}

// followingAda is a traced world in which viewer follows ada, who shared n links an hour
// apart (https://ada.example.com/<prefix>-<i>), with the snapshot refreshed, and a service on
// it.
func followingAda(t *testing.T, n int, prefix string) (*world, *dbtest.QueryLog, *feed.Service) {
	t.Helper()
	w, log := tracedWorld(t)
	w.user("viewer", false, 0)
	w.user("ada", false, 0)
	w.follow("viewer", "ada")
	for i := range n {
		w.share("ada", fmt.Sprintf("https://ada.example.com/%s-%d", prefix, i), time.Duration(i+1)*time.Hour, false)
	}
	w.refresh()
	return w, log, w.service(nil)
}

// page reads a viewer's page of q with the fence as earlier pages left it (w.timeline
// starts the fence afresh).
func (w *world) page(s *feed.Service, viewer string, q tributary.FeedQuery) tributary.Timeline {
	w.t.Helper()
	u := w.users[viewer]
	p, err := s.Timeline(w.ctx, &u, q)
	if err != nil {
		w.t.Fatal(err)
	}
	return p
}

// A page reads the fencepost it starts from together with the viewer's state: neither a
// first page nor a next page spends a round trip of its own on it.
func TestPagesReadTheirFencepostWithTheViewerState(t *testing.T) {
	w, log, s := followingAda(t, 30, "note")
	page := func(cursor string) tributary.Timeline {
		t.Helper()
		return w.page(s, "viewer", tributary.FeedQuery{Limit: 10, Cursor: cursor})
	}
	check := func(what string, p tributary.Timeline) {
		t.Helper()
		names := log.Take()
		if len(p.Items) == 0 {
			t.Fatalf("%s: no items", what)
		}
		if !slices.Contains(names, "ViewerState") || slices.Contains(names, "LatestFencepost") || slices.Contains(names, "FencepostsFrom") {
			t.Errorf("%s ran %v: want the fencepost read with ViewerState, not on its own", what, names)
		}
	}
	log.Take()
	first := page("")
	check("a cold first page", first)

	// A return with nothing new serves the latest fencepost again: the arrivals since it are
	// asked for once (none came), and the page is its head.
	w.now = w.now.Add(time.Minute)
	again := page("")
	names := log.Take()
	arrivals := 0
	for _, n := range names {
		if n == "ArrivedAnchors" || n == "RiverArrivals" {
			arrivals++
		}
	}
	if arrivals != 1 {
		t.Errorf("a return with nothing new ran %v: want the arrivals since the fencepost read once", names)
	}
	if len(again.Items) != len(first.Items) || again.Items[0].ID != first.Items[0].ID {
		t.Errorf("a return with nothing new showed %d items, want the first page's %d again", len(again.Items), len(first.Items))
	}
	second := page(first.NextCursor)
	check("a next page", second)
	check("the page after", page(second.NextCursor))
	w.now = w.now.Add(time.Minute)
	w.share("ada", "https://ada.example.com/late", 0, false)
	log.Take()
	check("a returning first page", page(""))
}

// A reader who comes back for each new share leaves a chain of one-item fenceposts; a page
// crossing them reads the older ones together (FencepostsFrom, at most one read here), not
// one round trip each, and shows what it showed before: each share once, newest first, then
// the first page's items.
func TestAPageCrossesAChainOfReturnsInOneRead(t *testing.T) {
	w, log, s := followingAda(t, 20, "old")
	page := func() tributary.Timeline {
		t.Helper()
		return w.page(s, "viewer", tributary.FeedQuery{Limit: 30})
	}
	first := page()
	const returns = 12
	for i := range returns {
		w.now = w.now.Add(time.Minute)
		w.share("ada", fmt.Sprintf("https://ada.example.com/new-%d", i), 0, false)
		page()
	}
	w.now = w.now.Add(time.Minute)
	log.Take()
	again := page()
	reads := 0
	for _, n := range log.Take() {
		if n == "FencepostsFrom" || n == "GetFencepost" {
			reads++
		}
	}
	if reads > 1 {
		t.Errorf("a return after %d one-item returns read older fenceposts %d times, want at most once", returns, reads)
	}
	var want []string
	for i := returns - 1; i >= 0; i-- {
		want = append(want, fmt.Sprintf("https://ada.example.com/new-%d", i))
	}
	for _, it := range first.Items {
		want = append(want, it.URL)
	}
	var got []string
	for _, it := range again.Items {
		got = append(got, it.URL)
	}
	if !slices.Equal(got, want[:len(got)]) || len(got) != min(len(want), 30) {
		t.Errorf("the return showed %v,\nwant %v", got, want[:min(len(want), 30)])
	}
}

// A live stream's asks for the notice keep the reader's state between them: after the
// first, an ask counts the arrivals alone, and counts them right; once the stream forgets
// the state (an access change, a heartbeat), the next ask reads it again.
func TestNoticeAsksKeepTheReadersState(t *testing.T) {
	ctx := context.Background()
	w, log := tracedWorld(t)
	w.user("viewer", false, 0)
	w.user("ada", false, 0)
	w.user("bob", false, 0)
	w.follow("viewer", "ada")
	for i := range 5 {
		w.share("ada", fmt.Sprintf("https://ada.example.com/old-%d", i), time.Duration(i+1)*time.Hour, false)
	}
	w.refresh()
	s := w.service(nil)
	viewer := w.users["viewer"]
	page := w.timeline(s, "viewer", tributary.FeedQuery{Limit: 10})
	after, err := feed.ParseFencepost(page.Fencepost)
	if err != nil {
		t.Fatal(err)
	}
	var state feed.NoticeState
	stream := feed.WithNoticeState(ctx, &state)
	ask := func(what string, want int, read bool) {
		t.Helper()
		log.Take()
		n, err := s.NewCount(stream, &viewer, tributary.FeedQuery{}, after, 100)
		if err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("%s: %d new, want %d", what, n, want)
		}
		if names := log.Take(); slices.Contains(names, "ViewerState") != read {
			t.Errorf("%s ran %v: reads the viewer's state %v, want %v", what, names, !read, read)
		}
	}
	ask("the first ask", 0, true)
	w.now = w.now.Add(time.Minute)
	w.share("ada", "https://ada.example.com/new-1", 0, false)
	ask("an ask after a share", 1, false)
	w.now = w.now.Add(time.Minute)
	w.share("bob", "https://bob.example.com/not-followed", 0, false)
	w.share("ada", "https://ada.example.com/new-2", 0, false)
	ask("an ask after two shares, one by someone not followed", 2, false)
	if n, err := s.NewCount(ctx, &viewer, tributary.FeedQuery{}, after, 100); err != nil || n != 2 {
		t.Errorf("a poll (no stream): %d new, %v; want 2", n, err)
	}
	w.follow("viewer", "bob")
	ask("an ask after a follow, the state kept", 2, false)
	state.Forget()
	ask("an ask after the stream forgot", 3, true)
	other := w.user("other", false, 0)
	if n, err := s.NewCount(stream, &other, tributary.FeedQuery{}, after, 100); err != nil || n != 0 {
		t.Errorf("another reader on the same state: %d new, %v; want 0 (their own state)", n, err)
	}
}

// A filter feed's posts are read with their listing (FilterArrivalPosts): a page listed in
// the request reads nothing more, and only the posts of a fencepost's head, listed by an
// earlier request, are read by id. Every post shows once.
func TestFilterPagesReadTheirPostsWithTheirListing(t *testing.T) {
	ctx := context.Background()
	w, log := tracedWorld(t)
	ada := w.user("ada", false, 0)
	const posts = 90
	for i := range posts {
		w.share("ada", fmt.Sprintf("https://ada.example.com/d-%d", i), time.Duration(i+1)*time.Minute, false)
	}
	s := w.service(nil)
	access, err := w.store.ViewerAccess(ctx, ada.ID)
	if err != nil {
		t.Fatal(err)
	}
	discussions := feed.Chrono{Filter: db.DiscussionsFeed(ada.ID)}
	log.Take()
	seen := map[int64]bool{}
	cursor := ""
	for n := 1; ; n++ {
		p, err := s.ChronoAs(ctx, &ada, access, discussions, cursor, 20)
		if err != nil {
			t.Fatal(err)
		}
		names := log.Take()
		for _, post := range p.Posts {
			if seen[post.ID] {
				t.Fatalf("page %d shows post %d again", n, post.ID)
			}
			seen[post.ID] = true
		}
		byID := slices.Contains(names, "ReadablePostsByID")
		switch {
		case n == 1 && (byID || !slices.Contains(names, "FilterArrivalPosts")):
			t.Errorf("the first page ran %v: want its posts read with their listing only", names)
		case n == 2 && !byID:
			t.Errorf("the second page, from the fencepost's head, ran %v: want its posts read by id", names)
		case n >= 4 && byID:
			t.Errorf("page %d, in the fencepost's tail, ran %v: want its posts read with their listing only", n, names)
		}
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
	}
	if len(seen) != posts {
		t.Errorf("the pages showed %d posts, want %d", len(seen), posts)
	}
}

// A return with nothing new, on an instance that keeps cards and serves no rivers (the
// default), makes two round trips: its viewer's state, then the arrivals since its
// fencepost, the followees' likes and comments and the reader's likes of the fencepost's
// items, all in one. Its cards are kept. The reader's like shows.
func TestAReturnReadsItsArrivalsAndLikesTogether(t *testing.T) {
	w, log := tracedWorld(t)
	w.store.Rivers.Off = true
	w.user("viewer", false, 0)
	w.user("ada", false, 0)
	w.follow("viewer", "ada")
	for i := range 12 {
		w.share("ada", fmt.Sprintf("https://ada.example.com/note-%d", i), time.Duration(i+1)*time.Hour, false)
	}
	w.refresh()
	s := w.service(nil)
	s.Attach(runBus(t, w.ctx, w.store))
	first := w.timeline(s, "viewer", tributary.FeedQuery{Limit: 10})
	liked := first.Items[3]
	if err := w.store.Like(w.ctx, w.accessOf("viewer"), liked.RepPostID, w.now); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(time.Minute)
	viewer := w.users["viewer"]
	page := func() tributary.Timeline {
		t.Helper()
		p, err := s.Timeline(w.ctx, &viewer, tributary.FeedQuery{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	page() // the cards are kept from here on
	w.now = w.now.Add(time.Minute)

	log.TakeTrips()
	again := page()
	trips := log.TakeTrips()
	var arrivals []string
	for _, trip := range trips {
		if slices.Contains(trip, "RecentArrivals") {
			arrivals = trip
		}
	}
	if !slices.Contains(arrivals, "ActivityArrivals") || !slices.Contains(arrivals, "LikedOf") || len(trips) != 2 {
		t.Errorf("a return with nothing new ran %v: want the viewer's state, then the arrivals, the followees' activity and the reader's likes in one round trip", trips)
	}
	for _, it := range again.Items {
		if it.Talk.Liked != (it.ID == liked.ID) {
			t.Errorf("item %d shows liked %v", it.ID, it.Talk.Liked)
		}
	}
}

// A cold first page commits its fencepost and reads the reader's likes of its items in one
// round trip (the likes first: a failed read cannot undo the commit). The reader's like
// shows, and the likes are not read again on their own.
func TestAColdFirstPageReadsItsLikesWithItsCommit(t *testing.T) {
	w, log, s := followingAda(t, 12, "cold")
	s.Attach(runBus(t, w.ctx, w.store))
	q := tributary.FeedQuery{Limit: 10}
	liked := w.timeline(s, "viewer", q).Items[3]
	if err := w.store.Like(w.ctx, w.accessOf("viewer"), liked.RepPostID, w.now); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(time.Minute)

	log.TakeTrips()
	cold := w.timeline(s, "viewer", q)
	trips := log.TakeTrips()
	likes, commits := 0, 0
	for _, trip := range trips {
		i, j := slices.Index(trip, "LikedOf"), slices.Index(trip, "CommitFencepost")
		if i >= 0 {
			likes++
		}
		if j >= 0 {
			commits++
			if i < 0 || i > j {
				t.Errorf("the fencepost was committed in %v: want the reader's likes read first in its round trip", trip)
			}
		}
	}
	if likes != 1 || commits != 1 {
		t.Errorf("a cold first page ran %v: want one commit of its fencepost, with the reader's likes", trips)
	}
	if len(cold.Items) == 0 {
		t.Fatal("no items")
	}
	for _, it := range cold.Items {
		if it.Talk.Liked != (it.ID == liked.ID) {
			t.Errorf("item %d shows liked %v", it.ID, it.Talk.Liked)
		}
	}
}
