package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"
	"golang.org/x/crypto/bcrypt"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
	"tributary/feed"
	"tributary/web"
)

// newTracedApp is newApp on a database whose queries are named in the log.
func newTracedApp(t *testing.T) (*app, *dbtest.QueryLog) {
	t.Helper()
	store, log := dbtest.TracedStore(t)
	a := &app{t: t, store: store, now: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	s := web.NewServer(web.Config{Store: a.store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now: func() time.Time { return a.now }, HashCost: bcrypt.MinCost})
	a.srv = httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.CloseStreams(); a.srv.Close() })
	return a, log
}

// A signed-in request reads its session, its user and the user's access in one round trip:
// the session's row names its user.
func TestSignedInRequestsReadSessionAndUserTogether(t *testing.T) {
	a, log := newTracedApp(t)
	c := a.client()
	c.signup("ada")
	var userID, named int64
	if err := a.store.Pool.QueryRow(context.Background(),
		"SELECT u.id, s.user_id FROM sessions s JOIN users u ON u.handle = 'ada'").Scan(&userID, &named); err != nil {
		t.Fatal(err)
	}
	if named != userID {
		t.Fatalf("the session names user %d, want ada (%d)", named, userID)
	}
	log.Take()
	if r := c.get("/u/ada"); r.status != http.StatusOK || !strings.Contains(r.body, `data-testid="nav-me">@ada<`) {
		t.Fatalf("GET /u/ada signed in: %d", r.status)
	}
	names := log.Take()
	if !slices.Contains(names, "SessionWithAccess") || slices.Contains(names, "UserWithAccess") || slices.Contains(names, "SessionData") {
		t.Errorf("a signed-in page ran %v; want SessionWithAccess and neither UserWithAccess nor SessionData", names)
	}

	// Logged out, the session names nobody.
	c.post("/logout", nil)
	if r := c.get("/"); strings.Contains(r.body, "nav-me") {
		t.Fatalf("still signed in after logging out")
	}
}

// Sessions written before their rows named a user (by scs's gob codec, with no user_id)
// still sign their user in; one whose user is gone signs in nobody.
func TestOlderSessionsAndGoneUsers(t *testing.T) {
	a, log := newTracedApp(t)
	a.client().signup("ada")
	a.client().signup("bob")
	ctx := context.Background()
	ids := map[string]int64{}
	for _, h := range []string{"ada", "bob"} {
		var id int64
		if err := a.store.Pool.QueryRow(ctx, "SELECT id FROM users WHERE handle = $1", h).Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids[h] = id
	}
	mint := func(token string, userID int64, nameUser bool) *client {
		deadline := a.now.Add(time.Hour)
		data, err := scs.GobCodec{}.Encode(deadline, map[string]any{db.SessionUserKey: userID})
		if err != nil {
			t.Fatal(err)
		}
		var named *int64
		if nameUser {
			named = &userID
		}
		if _, err := a.store.Pool.Exec(ctx, "INSERT INTO sessions (token, data, expiry, user_id) VALUES ($1, $2, $3, $4)",
			token, data, time.Now().Add(time.Hour), named); err != nil {
			t.Fatal(err)
		}
		c := a.client()
		c.http.Jar.SetCookies(mustURL(a.srv.URL), []*http.Cookie{{Name: "tributary_session", Value: token}})
		return c
	}

	old := mint("older-session-token-0000000000000000000000", ids["ada"], false)
	log.Take()
	if r := old.get("/u/ada"); !strings.Contains(r.body, `data-testid="nav-me">@ada<`) {
		t.Fatalf("a gob session without user_id does not sign ada in (status %d)", r.status)
	}
	if names := log.Take(); !slices.Contains(names, "SessionData") || !slices.Contains(names, "UserWithAccess") {
		t.Errorf("an older session ran %v; want SessionData then UserWithAccess", names)
	}

	gone := mint("gone-user-session-token-00000000000000000000", ids["bob"], true)
	if _, err := a.store.Pool.Exec(ctx, "DELETE FROM users WHERE id = $1", ids["bob"]); err != nil {
		t.Fatal(err)
	}
	if r := gone.get("/"); r.status != http.StatusOK || strings.Contains(r.body, "nav-me") {
		t.Fatalf("a session of a deleted user: status %d, signed in: %v", r.status, strings.Contains(r.body, "nav-me"))
	}
}

// A home feed page's viewer state comes in the session's round trip (its session and its
// user read with it): the instance guesses whose state to read from the user it last found
// on the session's token, and the guess is kept only when the session names that user. A
// wrong guess (the token now names someone else) shows that someone's feed, never the
// guessed user's.
func TestHomePagesReadTheViewerWithTheSession(t *testing.T) {
	a, log := newTracedApp(t)
	ada, bob, cy, dee := a.client(), a.client(), a.client(), a.client()
	for h, c := range map[string]*client{"ada": ada, "bob": bob, "cy": cy, "dee": dee} {
		c.signup(h)
	}
	ada.post("/u/cy/follow", url.Values{})
	bob.post("/u/dee/follow", url.Values{})
	_, cyAnchor := cy.shareAs("https://cy.example.com/for-ada")
	_, cyOlder := cy.shareAs("https://cy.example.com/older-for-ada")
	deePost, deeAnchor := dee.shareAs("https://dee.example.com/for-bob")
	// ada hides dee's share (which her feed does not hold): her state's access hides it, so a
	// page made with her state for anyone else would leave it out.
	if r := ada.post("/p/"+itoa(deePost)+"/hide", url.Values{}); r.status != http.StatusSeeOther && r.status != http.StatusOK {
		t.Fatalf("hide: %d", r.status)
	}
	a.now = a.now.Add(time.Hour)

	together := func(what string, trips [][]string) {
		t.Helper()
		n := 0
		for _, trip := range trips {
			if slices.Contains(trip, "ViewerState") {
				n++
				if !slices.Contains(trip, "SessionWithAccess") {
					t.Errorf("%s: the viewer state was read in a round trip of its own (%v)", what, trips)
				}
			}
		}
		if n != 1 {
			t.Errorf("%s: the viewer state was read %d times (%v), want once", what, n, trips)
		}
	}
	log.TakeTrips()
	p := ada.activityPage()
	together("GET /api/timeline", log.TakeTrips())
	if len(p.Items) != 2 || p.Items[0].ID != cyOlder && p.Items[1].ID != cyOlder {
		t.Fatalf("ada's feed: %+v, want cy's shares", p.Items)
	}
	if r := ada.get("/"); r.status != http.StatusOK || !strings.Contains(r.body, `data-item-id="`+itoa(cyAnchor)+`"`) {
		t.Fatalf("GET / signed in: status %d, cy's share shown: %v", r.status, strings.Contains(r.body, itoa(cyAnchor)))
	}
	together("GET /", log.TakeTrips())
	var first activityPage
	if r := ada.get("/api/timeline?limit=1"); r.status != http.StatusOK || json.Unmarshal([]byte(r.body), &first) != nil || first.NextCursor == "" {
		t.Fatalf("a page of one: status %d, next cursor %q", r.status, first.NextCursor)
	}
	log.TakeTrips()
	if r := ada.get("/api/timeline?limit=1&cursor=" + url.QueryEscape(first.NextCursor)); r.status != http.StatusOK {
		t.Fatalf("next page: %d", r.status)
	}
	together("a next page", log.TakeTrips())
	ada.get("/u/cy")
	for _, trip := range log.TakeTrips() {
		if slices.Contains(trip, "ViewerState") && slices.Contains(trip, "SessionWithAccess") {
			t.Errorf("a profile page read a viewer state with its session: %v", trip)
		}
	}

	// ada's session now names bob (as if another instance had written it): this instance
	// still guesses ada, reads her state beside the session, and must not use it. (bob has
	// read his feed here: this instance knows his followed set, of the same version as ada's.)
	bob.activityPage()
	ctx := context.Background()
	var bobID int64
	if err := a.store.Pool.QueryRow(ctx, "SELECT id FROM users WHERE handle = 'bob'").Scan(&bobID); err != nil {
		t.Fatal(err)
	}
	data, err := db.SessionData(bobID, a.now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.Pool.Exec(ctx, "UPDATE sessions SET data = $1, user_id = $2 WHERE user_id = (SELECT id FROM users WHERE handle = 'ada')",
		data, bobID); err != nil {
		t.Fatal(err)
	}
	log.TakeTrips()
	got := ada.activityPage()
	if len(got.Items) != 1 || got.Items[0].ID != deeAnchor {
		t.Fatalf("with a wrong guess the page showed %+v, want bob's feed (dee's share %d)", got.Items, deeAnchor)
	}
	if trips := log.TakeTrips(); len(trips) == 0 || !slices.Contains(trips[0], "ViewerState") {
		t.Errorf("the guess was not read (%v): the test does not test a wrong guess", trips)
	}
	// The guess is now bob: the next page is read together again.
	ada.activityPage()
	together("after the token changed hands", log.TakeTrips())
}

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
	same("a cold first page")
	same("a return with nothing new")
	if read != 0 {
		t.Fatalf("the return after a cold page read its arrivals with the session")
	}
	same("another return with nothing new")
	if read != 1 {
		t.Fatalf("a second return with nothing new read its arrivals apart from the session")
	}
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
	same("after a new follow")
	read = 0
	same("a return after the follow")
	if read != 0 {
		t.Errorf("the return after a page that started its fence read arrivals with the session, since a fencepost from before the reset")
	}
	same("a second return after the follow")
	if read != 1 {
		t.Errorf("the second return after the follow read its arrivals apart from the session")
	}
}
