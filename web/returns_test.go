package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"tributary"
	"tributary/feed"
	"tributary/web"
)

// A return to the home feed, on the instance that served the reader's last first page, reads
// the arrivals since that page's fencepost in the session's round trip too (guessed from that
// page, used only when the page asks for the very same read). Two readers who follow the same
// people, hide the same items and are banned by the same author see the same pages whatever
// happens between their returns (shares, comments, likes, deletions, visibility changes,
// bans and their lifting, a followee dropping them): ada through the server (her arrivals
// read ahead), ann through a feed service of her own (read as usual). No item of an author
// who banned them while protected is ever on a page.
func TestReturnsReadTheirArrivalsWithTheSession(t *testing.T) {
	a, log := newTracedApp(t)
	a.store.Rivers.Off = true // arrivals by fanout on read, as served by default
	ada, annC, cy, dee, eve, bob := a.client(), a.client(), a.client(), a.client(), a.client(), a.client()
	for h, c := range map[string]*client{"ada": ada, "ann": annC, "cy": cy, "dee": dee, "eve": eve, "bob": bob} {
		c.signup(h)
	}
	// Bob, whom neither follows, shares to those who sign in: dee's comments bring his posts
	// in, and his bans take them out.
	if r := bob.post("/settings/visibility", url.Values{"visibility": {"protected"}}); r.status != http.StatusSeeOther {
		t.Fatalf("bob goes protected: %d", r.status)
	}
	// both does an action as ada and as ann, her twin, and accepts the statuses given.
	both := func(path string, ok ...int) {
		t.Helper()
		for _, c := range []*client{ada, annC} {
			if r := c.post(path, url.Values{}); !slices.Contains(ok, r.status) {
				t.Fatalf("%s: %d: %s", path, r.status, r.body)
			}
		}
	}
	ctx := context.Background()
	var annID int64
	if err := a.store.Pool.QueryRow(ctx, "SELECT id FROM users WHERE handle = 'ann'").Scan(&annID); err != nil {
		t.Fatal(err)
	}
	follow := func(handle string) {
		t.Helper()
		ada.post("/u/"+handle+"/follow", url.Values{})
		if _, err := a.store.Pool.Exec(ctx, `INSERT INTO follows (follower_id, followed_id, state, created_at)
			SELECT $1, id, 'active', now() FROM users WHERE handle = $2`, annID, handle); err != nil {
			t.Fatal(err)
		}
		if _, err := a.store.Pool.Exec(ctx, "UPDATE users SET follows_version = follows_version + 1 WHERE id = $1", annID); err != nil {
			t.Fatal(err)
		}
		if err := a.store.ResetFences(ctx, annID); err != nil {
			t.Fatal(err)
		}
	}
	follow("cy")
	follow("dee")
	var posts []int64
	share := func(c *client, link string) {
		t.Helper()
		post, _ := c.shareAs(link)
		posts = append(posts, post)
	}
	share(cy, "https://cy.example.com/0")
	share(dee, "https://dee.example.com/0")

	annFeed := feed.New(a.store, feed.DefaultConfig(), func() time.Time { return a.now })
	ann := tributary.User{ID: annID, Handle: "ann"}
	read := 0
	same := func(step string) []int64 {
		t.Helper()
		log.TakeTrips()
		got := ada.activityPage()
		for _, trip := range log.TakeTrips() {
			if slices.Contains(trip, "SessionWithAccess") && slices.Contains(trip, "RecentArrivals") {
				read++
			}
		}
		q, err := tributary.ParseFeedQuery(url.Values{}) // as GET /api/timeline asks
		if err != nil {
			t.Fatal(err)
		}
		want, err := annFeed.Timeline(ctx, &ann, q)
		if err != nil {
			t.Fatal(err)
		}
		var g, w []int64
		for _, it := range got.Items {
			g = append(g, it.ID)
		}
		for _, it := range want.Items {
			w = append(w, it.ID)
		}
		if !slices.Equal(g, w) {
			t.Fatalf("%s: ada's page %v, ann's %v", step, g, w)
		}
		return g
	}
	// A page that started its fence is not guessed from: the return after it reads as usual,
	// the one after that with the session.
	guessesAfter := func(start string) {
		t.Helper()
		same(start)
		read = 0
		same("a return after " + start)
		if read != 0 {
			t.Fatalf("the return after %s read its arrivals with the session (from a fencepost before it)", start)
		}
		same("a second return after " + start)
		if read != 1 {
			t.Fatalf("the second return after %s read its arrivals apart from the session", start)
		}
	}
	guessesAfter("a cold first page")
	// Another instance on the same database, where ada's pages move her fence too.
	other := web.NewServer(web.Config{Store: a.store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now: func() time.Time { return a.now }, HashCost: bcrypt.MinCost})
	b := &app{t: t, store: a.store, srv: httptest.NewServer(other.Handler())}
	t.Cleanup(func() { other.CloseStreams(); b.srv.Close() })
	adaB := b.client()
	adaB.http.Jar.SetCookies(mustURL(b.srv.URL), ada.http.Jar.Cookies(mustURL(a.srv.URL)))
	rng := rand.New(rand.NewPCG(11, 13))
	bobBans, followCy := false, true
	hidden := map[int64]bool{}
	var bobs []int64 // bob's posts
	bobItems := map[int64]bool{}
	shown := 0 // pages that showed an item of bob's
	for i := range 70 {
		a.now = a.now.Add(time.Duration(1+rng.IntN(120)) * time.Second)
		var step string
		switch rng.IntN(15) {
		case 8:
			vis := []string{"public", "protected", "private"}[rng.IntN(3)]
			step = "cy goes " + vis
			if r := cy.post("/settings/visibility", url.Values{"visibility": {vis}}); r.status != http.StatusSeeOther {
				t.Fatalf("%s: %d", step, r.status)
			}
		case 9, 14:
			bobBans = !bobBans
			verb := "ban"
			step = "bob bans both"
			if !bobBans {
				step, verb = "bob lifts his bans", "unban"
			}
			for _, h := range []string{"ada", "ann"} {
				if r := bob.post("/u/"+h+"/"+verb, url.Values{}); r.status != http.StatusSeeOther {
					t.Fatalf("%s: %d", step, r.status)
				}
			}
		case 10:
			p := posts[rng.IntN(len(posts))]
			step = fmt.Sprintf("both hide post %d", p)
			verb := "hide"
			if hidden[p] {
				step, verb = fmt.Sprintf("both bring back post %d", p), "unhide"
			}
			hidden[p] = !hidden[p]
			both(fmt.Sprintf("/p/%d/%s", p, verb), http.StatusSeeOther, http.StatusNotFound)
		case 11:
			step = "cy likes a post"
			cy.post(fmt.Sprintf("/p/%d/like", posts[rng.IntN(len(posts))]), url.Values{})
		case 12:
			// Cy drops both as followers (and readers, when private), or both follow again
			// and cy approves them when asked.
			if followCy {
				step = "cy drops both as followers"
				for _, h := range []string{"ada", "ann"} {
					if r := cy.post("/settings/followers/"+h+"/remove", url.Values{}); r.status != http.StatusSeeOther {
						t.Fatalf("%s: %d: %s", step, r.status, r.body)
					}
				}
			} else {
				step = "both follow cy again"
				both("/u/cy/follow", http.StatusSeeOther)
				for _, h := range []string{"ada", "ann"} {
					cy.post("/settings/requests/"+h+"/approve", url.Values{})
				}
			}
			followCy = !followCy
		case 7:
			step = "cy shares, and both read on another instance"
			share(cy, fmt.Sprintf("https://cy.example.com/b%d", i+1))
			adaB.activityPage()
			q, _ := tributary.ParseFeedQuery(url.Values{})
			if _, err := feed.New(a.store, feed.DefaultConfig(), func() time.Time { return a.now }).Timeline(ctx, &ann, q); err != nil {
				t.Fatal(err)
			}
			a.now = a.now.Add(time.Second)
			share(dee, fmt.Sprintf("https://dee.example.com/b%d", i+1))
		case 0, 1:
			step = "cy shares"
			share(cy, fmt.Sprintf("https://cy.example.com/%d", i+1))
		case 2:
			step = "dee shares"
			share(dee, fmt.Sprintf("https://dee.example.com/%d", i+1))
		case 3:
			step = "bob, not followed, shares"
			post, item := bob.shareAs(fmt.Sprintf("https://bob.example.com/%d", i+1))
			posts, bobs = append(posts, post), append(bobs, post)
			bobItems[item] = true
		case 13:
			step = "dee comments on a post of bob's"
			if len(bobs) > 0 {
				if r := dee.post(fmt.Sprintf("/p/%d/comments", bobs[rng.IntN(len(bobs))]), url.Values{"body": {"Look."}}); r.status != http.StatusSeeOther {
					t.Fatalf("%s: %d", step, r.status)
				}
			}
		case 4:
			step = "cy comments on a post (bob's, or one deleted)"
			if r := cy.post(fmt.Sprintf("/p/%d/comments", posts[rng.IntN(len(posts))]), url.Values{"body": {"Look."}}); r.status != http.StatusSeeOther && r.status != http.StatusNotFound {
				t.Fatalf("comment: %d", r.status)
			}
		case 5:
			step = "dee deletes a share"
			dee.post(fmt.Sprintf("/posts/%d/delete", posts[rng.IntN(len(posts))]), url.Values{})
		case 6:
			step = "nothing"
		}
		page := same(fmt.Sprintf("after step %d (%s)", i, step))
		for _, id := range page {
			if bobItems[id] && bobBans {
				t.Fatalf("after step %d (%s): item %d of bob's, who banned ada, is on her page", i, step, id)
			} else if bobItems[id] {
				shown++
			}
		}
	}
	if shown == 0 {
		t.Error("no page showed an item of bob's")
	}
	t.Logf("read ahead: %d", read)
	if read < 25 {
		t.Errorf("only %d of 73 returns read their arrivals with the session", read)
	}
	// A follow resets the fence: the page after it starts the fence again and forgets the last
	// page, so the return after that guesses nothing (reads as usual), the next one again.
	follow("eve")
	share(eve, "https://eve.example.com/0")
	guessesAfter("the page after a new follow")
}
