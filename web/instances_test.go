package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"tributary/db"
	"tributary/db/dbtest"
	"tributary/feed"
	"tributary/site"
	"tributary/web"
)

// site is several instances on one database, each with its own pool, caches and listener,
// as instances behind a load balancer are. Their clocks are one clock.
type testSite struct {
	t      *testing.T
	dsn    string
	config func(*web.Config) // set before an instance starts: its server's settings

	mu  sync.Mutex // the instances' live streams read the clock while the test moves it
	now time.Time
}

// time is the site's clock.
func (ts *testSite) time() time.Time {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.now
}

// advance moves the site's clock on by d.
func (ts *testSite) advance(d time.Duration) {
	ts.mu.Lock()
	ts.now = ts.now.Add(d)
	ts.mu.Unlock()
}

func newTestSite(t *testing.T) *testSite {
	return &testSite{t: t, dsn: dbtest.DSN(t), now: time.Now().UTC().Truncate(time.Second)}
}

// instance starts one more instance, with a pool of its own, and waits until it listens;
// tune, when given, sets its listener up first.
func (ts *testSite) instance(tune ...func(*site.Bus)) (*app, *site.Bus) {
	t := ts.t
	t.Helper()
	pool, err := db.Open(context.Background(), ts.dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	// Changes must arrive by the event path, not by the poll.
	return startInstance(t, db.NewStore(pool), ts.time, time.Hour, ts.config, tune...)
}

// startInstance runs an instance of the site on store: its listener (reading the log every
// poll without a wake-up; 0: the default), its feed service and its server, stopped when t
// ends. It returns once the listener is up.
func startInstance(t *testing.T, store *db.Store, now func() time.Time, poll time.Duration, config func(*web.Config), tune ...func(*site.Bus)) (*app, *site.Bus) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	bus := site.New(store, log)
	if poll > 0 {
		bus.Poll = poll
	}
	for _, f := range tune {
		f(bus)
	}
	feeds := feed.New(store, feed.DefaultConfig(), now)
	feeds.Attach(bus)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); bus.Run(ctx) }()
	cfg := web.Config{Store: store, Feed: feeds, Bus: bus, Log: log, Now: now, HashCost: bcrypt.MinCost}
	if config != nil {
		config(&cfg)
	}
	s := web.NewServer(cfg)
	a := &app{t: t, store: store, srv: httptest.NewServer(s.Handler()), web: s}
	t.Cleanup(func() { s.CloseStreams(); a.srv.Close(); cancel(); <-done })
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	if err := bus.WaitUp(wctx); err != nil {
		t.Fatalf("the instance's site listener is not up: %v", err)
	}
	return a, bus
}

// on is the same browser (cookie jar) talking to another instance.
func (c *client) on(a *app) *client { return &client{a: a, http: c.http} }

func (c *client) apiIDs(query string) (ids map[int64]bool, p apiPage) {
	p = c.apiPage(query)
	ids = map[int64]bool{}
	for _, it := range p.Items {
		ids[it.ID] = true
	}
	return ids, p
}

func TestInstancesShareCursorsAndAccessChanges(t *testing.T) {
	ts := newTestSite(t)
	a, _ := ts.instance()
	b, _ := ts.instance()

	ada := a.client()
	ada.signup("ada")
	if _, err := a.store.Pool.Exec(context.Background(), "UPDATE users SET vip = true WHERE handle = 'ada'"); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		ts.advance(time.Minute)
		if r := ada.post("/share", url.Values{"url": {fmt.Sprintf("https://example.com/notes/%d", i)}}); r.status != http.StatusSeeOther {
			t.Fatalf("share: %d %s", r.status, r.body)
		}
	}
	// Shares are not changes of access: they leave every instance's anonymous cache alone.
	var logged int
	if err := a.store.Pool.QueryRow(context.Background(), "SELECT count(*) FROM site_changes WHERE kind = 'posts'").Scan(&logged); err != nil || logged != 0 {
		t.Fatalf("shares recorded %d post changes (%v), want none", logged, err)
	}
	bob := a.client()
	bob.signup("bob")
	bob.post("/u/ada/follow", url.Values{})
	carol := b.client()
	carol.signup("carol")
	ts.advance(2 * time.Hour)

	// A cursor crosses both ways and survives a restart.
	first, p := bob.apiIDs("limit=10")
	if len(first) != 10 || p.NextCursor == "" {
		t.Fatalf("first page on A: %d items, cursor %q", len(first), p.NextCursor)
	}
	second, p2 := bob.on(b).apiIDs("limit=10&cursor=" + url.QueryEscape(p.NextCursor))
	third, p3 := bob.on(a).apiIDs("limit=10&cursor=" + url.QueryEscape(p2.NextCursor))
	for id := range second {
		if first[id] || third[id] {
			t.Fatalf("item %d twice across instances", id)
		}
	}
	if len(second) != 10 || len(third) != 10 || p3.NextCursor != "" && len(third) < 10 {
		t.Fatalf("pages across instances: %d, %d items", len(second), len(third))
	}
	restarted, _ := ts.instance() // a new process: nothing kept in memory
	again, _ := bob.on(restarted).apiIDs("limit=10&cursor=" + url.QueryEscape(p.NextCursor))
	if fmt.Sprint(again) != fmt.Sprint(second) {
		t.Fatalf("after a restart the cursor gives %v, before %v", again, second)
	}

	// B caches the anonymous page and keeps an anonymous cursor into it.
	anon := b.client()
	shown, ap := anon.apiIDs("limit=10")
	if len(shown) != 10 {
		t.Fatalf("anonymous page on B: %d items, want 10", len(shown))
	}
	if _, cached := anon.apiIDs("limit=10"); cached.Fencepost == "" {
		t.Fatal("no fencepost on the anonymous page")
	}
	if r := anon.get("/api/timeline?limit=10"); !strings.Contains(r.body, `"path":"cache"`) {
		t.Fatalf("the anonymous page is not cached on B: %.200s", r.body)
	}
	if !strings.Contains(carol.get("/u/ada").body, "example.com/notes/") {
		t.Fatal("carol does not see ada's public posts on B")
	}

	// Ada goes private through A: from the next request on, B honours it everywhere.
	if r := ada.post("/settings/visibility", url.Values{"visibility": {"private"}}); r.status != http.StatusSeeOther {
		t.Fatalf("go private: %d %s", r.status, r.body)
	}
	if ids, _ := anon.apiIDs("limit=10"); len(ids) != 0 {
		t.Fatalf("B's anonymous page still shows %d of a private user's posts", len(ids))
	}
	if ids, _ := anon.apiIDs("limit=10&cursor=" + url.QueryEscape(ap.NextCursor)); len(ids) != 0 {
		t.Fatalf("an old anonymous cursor on B still shows %d private posts", len(ids))
	}
	if r := anon.get("/"); strings.Contains(r.body, "example.com/notes/") {
		t.Fatal("B's anonymous front page (HTML) still shows a private user's posts")
	}
	if r := carol.get("/u/ada"); strings.Contains(r.body, "example.com/notes/") {
		t.Fatal("B shows a private user's posts to a non-follower on the user page")
	}
	if ids, _ := carol.apiIDs("limit=10"); len(ids) != 0 {
		t.Fatal("B shows a private user's posts in a non-follower's home")
	}
	// Bob followed before: he is an approved reader, on every instance.
	if ids, _ := bob.on(b).apiIDs("limit=10&cursor=" + url.QueryEscape(p.NextCursor)); len(ids) != 10 {
		t.Fatalf("an approved follower's old cursor on B: %d items, want 10", len(ids))
	}
	// Bob is removed as a follower through B; A honours it at once, old cursors included.
	if r := ada.on(b).post("/settings/followers/bob/remove", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("remove follower: %d", r.status)
	}
	if ids, _ := bob.on(a).apiIDs("limit=10&cursor=" + url.QueryEscape(p.NextCursor)); len(ids) != 0 {
		t.Fatalf("a removed follower's old cursor on A: %d items, want none", len(ids))
	}
	if r := bob.on(a).get("/u/ada"); strings.Contains(r.body, "example.com/notes/") {
		t.Fatal("A shows a private user's posts to a removed follower")
	}
}

// A key rotation through one instance (or the CLI) reaches every instance: the new key signs,
// cursors signed with the old one stay good.
func TestCursorKeyRotationAcrossInstances(t *testing.T) {
	ts := newTestSite(t)
	a, _ := ts.instance()
	b, busB := ts.instance()
	ada := a.client()
	ada.signup("ada")
	for i := range 25 {
		ts.advance(time.Minute)
		ada.post("/share", url.Values{"url": {fmt.Sprintf("https://example.com/rot/%d", i)}})
	}
	ts.advance(2 * time.Hour)
	_, old := ada.apiIDs("limit=10")

	ctx := context.Background()
	before := busB.Acked()
	if _, _, err := a.store.RotateCursorKey(ctx, ts.time(), feed.CursorMaxAge); err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.Wake(ctx); err != nil {
		t.Fatal(err)
	}
	for busB.Acked() == before {
		time.Sleep(2 * time.Millisecond)
	}
	_, fresh := ada.on(b).apiIDs("limit=10")
	if keyOf(fresh.NextCursor) == keyOf(old.NextCursor) {
		t.Fatal("B still signs with the old key after a rotation")
	}
	// The old cursor still works on both, the new one on A too.
	if ids, _ := ada.on(b).apiIDs("limit=10&cursor=" + url.QueryEscape(old.NextCursor)); len(ids) != 10 {
		t.Fatalf("old cursor on B after rotation: %d items", len(ids))
	}
	if ids, _ := ada.on(a).apiIDs("limit=10&cursor=" + url.QueryEscape(fresh.NextCursor)); len(ids) != 10 {
		t.Fatalf("new cursor on A: %d items", len(ids))
	}
}

// keyOf is the key-id part of a cursor's payload (its first 4 bytes, in the first 6 base64 characters).
func keyOf(cursor string) string { return strings.SplitN(cursor, ".", 3)[1][:6] }

// Who a handle names is kept by each instance (the pages asked for by handle read it once),
// and a change made anywhere, even by hand in the database, reaches every instance: a new
// display name shows, a new handle frees the old one, a deleted user is gone.
func TestUserNamesFollowChangesOnEveryInstance(t *testing.T) {
	ts := newTestSite(t)
	a, busA := ts.instance()
	b, _ := ts.instance()
	ctx := context.Background()
	ada := a.client()
	ada.signup("ada")
	bob := b.client()
	bob.signup("bob")
	change := func(sql string) {
		t.Helper()
		if _, err := a.store.Pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
		busA.Sync(ctx) // as the app's own changes of who may read what do
	}
	for _, path := range []string{"/u/ada/likes", "/u/ada/comments", "/u/ada?format=json"} {
		if r := bob.get(path); r.status != http.StatusOK {
			t.Fatalf("%s on B: %d %s", path, r.status, r.body)
		}
	}
	if r := bob.get("/u/ada/likes"); !strings.Contains(r.body, "Liked by ada") {
		t.Fatalf("the likes page does not name ada: %.300s", r.body)
	}
	if r := bob.get("/search?q=" + url.QueryEscape("from:ada notes")); r.status != http.StatusOK {
		t.Fatalf("from:ada on B: %d", r.status)
	}

	change("UPDATE users SET display_name = 'Ada Lovelace' WHERE handle = 'ada'")
	if r := bob.get("/u/ada/likes"); !strings.Contains(r.body, "Liked by Ada Lovelace") {
		t.Fatalf("B still names ada by her old display name: %.300s", r.body)
	}

	change("UPDATE users SET handle = 'lovelace' WHERE handle = 'ada'")
	for _, path := range []string{"/u/ada/likes", "/u/ada/comments", "/u/ada?format=json"} {
		if r := bob.get(path); r.status != http.StatusNotFound {
			t.Fatalf("%s on B after the handle changed: %d, want 404", path, r.status)
		}
	}
	if r := bob.get("/search?q=" + url.QueryEscape("from:ada notes")); r.status != http.StatusBadRequest {
		t.Fatalf("from:ada on B after the handle changed: %d, want 400", r.status)
	}
	if r := bob.get("/u/lovelace/likes"); !strings.Contains(r.body, "Liked by Ada Lovelace") {
		t.Fatalf("B does not find the new handle: %d %.300s", r.status, r.body)
	}

	change("DELETE FROM users WHERE handle = 'lovelace'")
	if r := bob.get("/u/lovelace/likes"); r.status != http.StatusNotFound {
		t.Fatalf("B still has a page for a deleted user: %d", r.status)
	}
}
