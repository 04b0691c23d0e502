package feed_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/feed"
)

// A home feed whose fenceposts' arrivals are served from the reader's river scrolls through
// the same pages, item for item, as fanout on read through the same fenceposts; dropping
// every river in the middle of the scroll changes no page. The reader returns three times
// (a followee shares before each return, some shares fanned out, some not), so the fence
// has four fenceposts whose tails are listed from the river.
func TestRiverHomeScrollsAsFanoutOnRead(t *testing.T) {
	w := newWorld(t)
	w.user("viewer", false, 0)
	for _, h := range []string{"a", "b", "c"} {
		w.user(h, false, 0)
	}
	w.follow("viewer", "a", "b")
	for i := range 60 {
		w.share([]string{"a", "b", "c"}[i%3], fmt.Sprintf("https://blog.example.com/old-%d", i), time.Duration(i)*time.Hour, false)
	}
	w.refresh()
	viewer := w.users["viewer"]
	on := w.service(func(c *feed.Config) { c.HeadSize = 5 })
	first := func(s *feed.Service) tributary.Timeline {
		t.Helper()
		tl, err := s.Timeline(w.ctx, &viewer, tributary.FeedQuery{Limit: 7})
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	first(on)
	for r := range 3 {
		w.now = w.now.Add(time.Hour)
		for i := range 12 { // an hour's shares, some of them of items shared before
			url := fmt.Sprintf("https://blog.example.com/new-%d-%d", r, i)
			if i%4 == 0 {
				url = fmt.Sprintf("https://blog.example.com/old-%d", 3*i+r)
			}
			w.share([]string{"a", "b", "c"}[i%3], url, time.Duration(i)*4*time.Minute, false)
		}
		if r == 1 {
			if _, _, err := w.store.FanOutRivers(w.ctx); err != nil {
				t.Fatal(err)
			}
		}
		first(on)
	}
	served, _ := w.store.RiverCounts()
	if served == 0 {
		t.Fatal("no interval was served from a river: the test compares nothing")
	}

	scroll := func(s *feed.Service, dropAt int) [][]string {
		t.Helper()
		var pages [][]string
		tl := first(s)
		for p := 0; ; p++ {
			var urls []string
			for _, it := range tl.Items {
				urls = append(urls, it.AnchorURL)
			}
			pages = append(pages, urls)
			if p == dropAt {
				if _, err := w.store.Pool.Exec(w.ctx, "TRUNCATE home_river_items, home_rivers"); err != nil {
					t.Fatal(err)
				}
			}
			if tl.NextCursor == "" {
				return pages
			}
			var err error
			if tl, err = s.Timeline(w.ctx, &viewer, tributary.FeedQuery{Limit: 7, Cursor: tl.NextCursor}); err != nil {
				t.Fatal(err)
			}
		}
	}
	withRivers := scroll(on, -1)
	offStore := db.NewStore(w.store.Pool)
	offStore.Rivers.Off = true
	off := feed.New(offStore, feed.DefaultConfig(), w.clock)
	if err := off.Warm(w.ctx); err != nil {
		t.Fatal(err)
	}
	fanoutOnRead := scroll(off, -1)
	if len(withRivers) < 5 || !slices.EqualFunc(withRivers, fanoutOnRead, slices.Equal) {
		t.Fatalf("scrolled with rivers:\n%v\nby fanout on read:\n%v", withRivers, fanoutOnRead)
	}
	dropped := scroll(w.service(func(c *feed.Config) { c.HeadSize = 5 }), 2)
	if !slices.EqualFunc(withRivers, dropped, slices.Equal) {
		t.Fatalf("every river dropped on page 3:\n%v\nnot dropped:\n%v", dropped, withRivers)
	}
}
