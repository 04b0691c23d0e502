package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
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
