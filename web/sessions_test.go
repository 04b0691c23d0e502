package web_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"
	"golang.org/x/crypto/bcrypt"

	"tributary/db"
	"tributary/db/dbtest"
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
	if r := c.get("/u/ada"); r.status != http.StatusOK || !strings.Contains(r.body, `class="me-handle">@ada<`) {
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
		if _, err := a.store.Pool.Exec(ctx, "INSERT INTO sessions (token_hash, data, expiry, user_id) VALUES ($1, $2, $3, $4)",
			db.SessionTokenHash(token), data, time.Now().Add(time.Hour), named); err != nil {
			t.Fatal(err)
		}
		c := a.client()
		c.http.Jar.SetCookies(mustURL(a.srv.URL), []*http.Cookie{{Name: "tributary_session", Value: token}})
		return c
	}

	old := mint("older-session-token-0000000000000000000000", ids["ada"], false)
	log.Take()
	if r := old.get("/u/ada"); !strings.Contains(r.body, `class="me-handle">@ada<`) {
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
