package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"tributary/db"
	"tributary/db/dbtest"
	"tributary/feed"
	"tributary/site"
	"tributary/web"
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
	defer pool.Close()
	store := db.NewStore(pool)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	bus := site.New(store, log)
	feeds := feed.New(store, feed.DefaultConfig(), nil)
	feeds.Attach(bus)
	bctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); bus.Run(bctx) }()
	defer func() { cancel(); <-done }()
	srv := httptest.NewServer(web.NewServer(web.Config{Store: store, Feed: feeds, Bus: bus, Log: log, HashCost: bcrypt.MinCost}).Handler())
	defer srv.Close()
	a := &app{t: t, srv: srv, store: store}

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
	for !bus.Up() {
		if time.Since(back) > 30*time.Second {
			t.Fatal("the site listener did not reconnect")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if r := anon.get("/api/timeline"); r.status != http.StatusOK {
		t.Fatalf("anonymous timeline after recovery: %d", r.status)
	}
}
