package web_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"tributary/db"
	"tributary/db/dbtest"
)

// PostgreSQL stopped under a running instance: pages answer 503 with Retry-After and a
// friendly message (the API its error envelope), /healthz 503; when PostgreSQL is back the
// instance serves again by itself, and what it acknowledged before the fault is there.
func TestDatabaseRestartAnswers503ThenRecovers(t *testing.T) {
	cluster, dsn := dbtest.StockCluster(t)
	ctx := context.Background()
	pool, err := db.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	a, bus := startInstance(t, db.NewStore(pool), nil, 0, nil)

	ada := a.client()
	ada.signup("ada")
	if r := ada.post("/share", url.Values{"url": {"https://example.com/before-the-fault"}, "title": {"Written before the fault"}}); r.status != http.StatusSeeOther {
		t.Fatalf("share: %d", r.status)
	}
	anon := a.client()
	anon.get("/")

	if err := cluster.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		who  *client
		path string
		want string
	}{
		{ada, "/", "briefly unavailable"},
		{ada, "/u/ada", "briefly unavailable"},
		{anon, "/", "briefly unavailable"},
		{ada, "/api/timeline", `{"error":"Tributary is briefly unavailable`},
		{anon, "/healthz", "database unreachable"},
	} {
		r := c.who.get(c.path)
		if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || !strings.Contains(r.body, c.want) {
			t.Errorf("%s with PostgreSQL down: status %d, Retry-After %q, body %.120q; want 503, Retry-After, %q",
				c.path, r.status, r.header.Get("Retry-After"), r.body, c.want)
		}
	}
	if r := ada.post("/share", url.Values{"url": {"https://example.com/during"}}); r.status != http.StatusServiceUnavailable {
		t.Errorf("a share with PostgreSQL down: status %d, want 503", r.status)
	}

	if err := cluster.Start(ctx, "tributary", io.Discard); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	for ada.get("/healthz").status != http.StatusOK || ada.get("/").status != http.StatusOK {
		if time.Since(back) > 30*time.Second {
			t.Fatal("not serving 30 s after PostgreSQL came back")
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("serving again %s after PostgreSQL accepted connections", time.Since(back).Round(time.Millisecond))
	if r := ada.get("/u/ada"); !strings.Contains(r.body, "Written before the fault") {
		t.Fatal("the share acknowledged before the fault is gone")
	}
	wctx, cancel := context.WithDeadline(context.Background(), back.Add(30*time.Second))
	defer cancel()
	if err := bus.WaitUp(wctx); err != nil {
		t.Fatalf("the site listener did not reconnect: %v", err)
	}
	if r := anon.get("/api/timeline"); r.status != http.StatusOK {
		t.Fatalf("anonymous timeline after recovery: %d", r.status)
	}
}
