package feed_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"tributary"
	"tributary/feed"
)

// TestKeptCardsAreEachReaders: cards made of what an instance keeps (cards.go) are each
// reader's own: the sharers marked and ordered for the reader, their like and the likers
// named as AnchorTalk names them, and a like, an unlike or a comment made since shows once
// the instance has heard of it.
func TestKeptCardsAreEachReaders(t *testing.T) {
	w := newWorld(t)
	for _, h := range []string{"pia", "xan", "yve", "ann", "bob", "cat"} {
		w.user(h, false, 0)
	}
	w.follow("ann", "yve", "pia")
	w.follow("bob", "xan", "pia")
	w.follow("cat", "pia")
	const url = "https://example.com/kept"
	w.share("pia", url, 3*time.Hour, true, "https://example.com/kept/fig")
	w.share("xan", url, 2*time.Hour, false)
	w.share("yve", url, time.Hour, false)
	for i := range 4 {
		w.share("pia", fmt.Sprintf("https://example.com/other/%d", i), time.Duration(i+4)*time.Hour, false)
	}
	w.refresh()

	kept := w.service(nil)
	bus := runBus(t, w.ctx, w.store)
	kept.Attach(bus)

	item := func(s *feed.Service, viewer string, cursor bool) tributary.Item {
		t.Helper()
		q := tributary.FeedQuery{Limit: 20, IncludeSeen: true}
		var tl tributary.Timeline
		if cursor { // a page from the fence's latest fencepost: its cards' likes come with it
			u := w.users[viewer]
			var err error
			if tl, err = s.Timeline(w.ctx, &u, q); err != nil {
				t.Fatal(err)
			}
		} else {
			tl = w.timeline(s, viewer, q)
		}
		for _, it := range tl.Items {
			if it.AnchorURL == url {
				return it
			}
		}
		t.Fatalf("%s: %s not on the page", viewer, url)
		return tributary.Item{}
	}
	describe := func(it tributary.Item) string {
		var sh []string
		for _, s := range it.Sharers {
			sh = append(sh, fmt.Sprintf("%d:%v", s.ID, s.Followed))
		}
		var lk []int64
		for _, u := range it.Talk.Likers {
			lk = append(lk, u.ID)
		}
		return fmt.Sprintf("sharers %v; likes %d comments %d liked %v (%d) likers %v", sh, it.Talk.Likes, it.Talk.Comments,
			it.Talk.Liked, it.Talk.LikedPost, lk)
	}
	check := func(step string) {
		t.Helper()
		bus.Sync(w.ctx)        // as the writer's instance does, here for this one
		for round := range 2 { // the first round fills what is kept, the second uses it
			for _, v := range []string{"bob", "cat", "ann"} {
				want := describe(item(w.service(nil), v, false)) // a new instance: nothing kept
				for _, cursor := range []bool{false, true} {
					if got := describe(item(kept, v, cursor)); got != want {
						t.Errorf("%s, round %d, %s (again %v): %s\nwant %s", step, round, v, cursor, got, want)
					}
				}
			}
		}
	}
	check("shared")
	post := w.postOf("xan", url)
	for i, liker := range []string{"ann", "cat", "bob", "xan"} {
		if _, err := w.store.LikeTalk(w.ctx, w.accessOf(liker), post, w.now.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
		check(liker + " liked")
	}
	if _, err := w.store.UnlikeTalk(w.ctx, w.accessOf("cat"), post); err != nil {
		t.Fatal(err)
	}
	check("cat unliked")
	if _, _, err := w.store.AddComment(w.ctx, w.accessOf("bob"), w.postOf("yve", url), "kept?", w.now, tributary.BumpRule{}); err != nil {
		t.Fatal(err)
	}
	check("bob commented")
	if !slices.ContainsFunc(item(kept, "ann", true).Talk.Likers, func(u tributary.UserRef) bool { return u.ID == w.users["bob"].ID }) {
		t.Errorf("ann's card does not name bob among the likers")
	}
}
