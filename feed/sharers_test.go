package feed_test

import (
	"fmt"
	"testing"
	"time"

	"tributary"
)

// cardOf is the item of url on a page.
func cardOf(t *testing.T, tl tributary.Timeline, url string) tributary.Item {
	t.Helper()
	for _, it := range tl.Items {
		if it.AnchorURL == url {
			return it
		}
	}
	t.Fatalf("%s not on the page %v", url, urls(tl))
	return tributary.Item{}
}

// TestSharerStacksNameWhoExplainsTheCard: a card's stack names first the sharers who explain
// it, wherever they are among its many sharers: the VIPs for anonymous visitors (three shared
// it first, a dozen others after), a followee who shared it early for a reader; and a reader
// who shared it is "you", not someone they follow.
func TestSharerStacksNameWhoExplainsTheCard(t *testing.T) {
	w := newWorld(t)
	const url = "https://example.com/paper"
	for i := range 3 {
		w.user(fmt.Sprintf("vip%d", i), true, 0)
		w.share(fmt.Sprintf("vip%d", i), url, time.Duration(40-i)*time.Hour, false)
	}
	w.user("early", false, 0)
	w.share("early", url, 30*time.Hour, false)
	for i := range 14 {
		w.user(fmt.Sprintf("late%d", i), false, 0)
		w.share(fmt.Sprintf("late%d", i), url, time.Duration(20-i)*time.Hour, false)
	}
	w.user("ann", false, 0)
	w.follow("ann", "early", "late3")
	w.user("cy", false, 0)
	w.follow("cy", "late5")
	w.share("cy", url, 25*time.Hour, false)
	w.refresh()
	s := w.service(nil)

	anon := cardOf(t, w.timeline(s, "", tributary.FeedQuery{}), url)
	if len(anon.Sharers) == 0 || !anon.Sharers[0].VIP {
		t.Errorf("anonymous card names %v first, want a VIP", anon.Sharers)
	}
	ann := cardOf(t, w.timeline(s, "ann", tributary.FeedQuery{IncludeSeen: true}), url)
	if got := followedFirst(ann); got != 2 {
		t.Errorf("ann's card: %d followees first in %v, want both (early and late3)", got, ann.Sharers)
	}
	cy := cardOf(t, w.timeline(s, "cy", tributary.FeedQuery{IncludeSeen: true}), url)
	for _, sh := range cy.Sharers {
		if sh.ID == w.users["cy"].ID && sh.Followed {
			t.Errorf("cy's card marks cy as someone cy follows: %+v", sh)
		}
	}
	if len(cy.Sharers) == 0 || cy.Sharers[0].ID != w.users["cy"].ID || !cy.Sharers[0].Self {
		t.Errorf("cy's card names %+v first, want cy, as themselves", cy.Sharers)
	}
	if cy.ShareCount != 19 {
		t.Errorf("cy's card counts %d sharers, want 19", cy.ShareCount)
	}
	for _, it := range []tributary.Item{anon, ann, cy} {
		for _, sh := range it.Sharers {
			var want time.Time
			switch h := sh.Handle; {
			case h == "early":
				want = w.now.Add(-30 * time.Hour)
			case h == "cy":
				want = w.now.Add(-25 * time.Hour)
			default:
				continue
			}
			if !sh.At.Equal(want) {
				t.Errorf("%s shared at %v on a card, want their own share's time %v", sh.Handle, sh.At, want)
			}
		}
	}
}

// followedFirst counts the followees that open an item's stack.
func followedFirst(it tributary.Item) int {
	n := 0
	for n < len(it.Sharers) && it.Sharers[n].Followed {
		n++
	}
	return n
}

// TestNamedFolloweesKeepTheirNewestShare: a followee named beyond a card's stack, kept by
// the instance for the item's row, is read again once they share the item anew.
func TestNamedFolloweesKeepTheirNewestShare(t *testing.T) {
	w := newWorld(t)
	const url = "https://example.com/paper"
	w.user("early", false, 0)
	w.share("early", url, 30*time.Hour, false)
	for i := range 14 {
		w.user(fmt.Sprintf("late%d", i), false, 0)
		w.share(fmt.Sprintf("late%d", i), url, time.Duration(20-i)*time.Hour, false)
	}
	w.user("ann", false, 0)
	w.follow("ann", "early")
	w.refresh()
	s := w.service(nil)
	sharedAt := func() time.Time {
		t.Helper()
		for _, sh := range cardOf(t, w.timeline(s, "ann", tributary.FeedQuery{IncludeSeen: true}), url).Sharers {
			if sh.Handle == "early" {
				return sh.At
			}
		}
		t.Fatal("ann's card does not name early")
		return time.Time{}
	}
	for range 2 { // the second page uses what the first kept
		if got, want := sharedAt(), w.now.Add(-30*time.Hour); !got.Equal(want) {
			t.Fatalf("early shared at %v, want %v", got, want)
		}
	}
	w.share("early", url, 25*time.Hour, false) // still older than the stack's dozen
	for range 2 {                              // the first page after the share catches the ranking copy up; the second uses it
		if got, want := sharedAt(), w.now.Add(-25*time.Hour); !got.Equal(want) {
			t.Fatalf("after sharing again early shared at %v, want %v", got, want)
		}
	}
}
