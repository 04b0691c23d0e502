package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"tributary/db/dbtest"
	"tributary/web"
)

// Abuse of live streams and of the actions that wake them (issue 43, points 3 and 4).

// newAppWith is newApp with its configuration changed by tune first.
func newAppWith(t *testing.T, tune func(*web.Config)) *app {
	t.Helper()
	a := &app{t: t, store: dbtest.Store(t), now: time.Date(2026, 11, 20, 12, 0, 0, 123456789, time.UTC)}
	cfg := web.Config{Store: a.store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now: func() time.Time { return a.now }, HashCost: bcrypt.MinCost}
	tune(&cfg)
	s := web.NewServer(cfg)
	a.srv = httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.CloseStreams(); a.srv.Close() })
	return a
}

// tryStream opens GET path as c and returns its status and Retry-After; a stream that
// opened stays open until the test ends.
func (c *client) tryStream(path string) (int, string, string) {
	t := c.a.t
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", c.a.srv.URL+path, nil)
	res, err := c.http.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if res.StatusCode == http.StatusOK {
		t.Cleanup(func() { cancel(); res.Body.Close() })
		return res.StatusCode, "", ""
	}
	defer cancel()
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Retry-After"), string(body)
}

const liveFencepost = "2026-11-20T12:00:00Z"

// A stream asks a notice of this site's feeds and nothing else: /live itself (a stream that
// would hold an ask, and its slot, for ever), a route that writes, or any other page is
// refused with 400 before anything is asked; every notice a page's slot has opens.
func TestLiveRefusesNestedStreamsAndOtherRoutes(t *testing.T) {
	a := newApp(t)
	ada := a.client()
	ada.signup("ada")
	ada.post("/groups", url.Values{"name": {"readers"}, "title": {"Readers"}, "access": {"public"}})
	fp := url.QueryEscape(liveFencepost)
	for _, src := range []string{
		"/live?new=" + fp,
		"/live?src=" + url.QueryEscape("/feed/new?fencepost="+fp) + "&new=" + fp,
		"/live/?new=" + fp,
		"/feed/new/items?fencepost=" + fp, // commits a fencepost
		"/feed/new/items?new=" + fp,
		"/api/timeline?new=" + fp,
		"/settings?new=" + fp,
		"/talk?p=1&new=" + fp,
		"/p/1?new=" + fp,
		"/u/ada/follow?new=" + fp,
		"/u/ada/unknown?new=" + fp,
		"/metrics?new=" + fp,
		"/u//ada?new=" + fp,
	} {
		if status, _, body := ada.tryStream("/live?src=" + url.QueryEscape(src)); status != http.StatusBadRequest || !strings.Contains(body, "src must be") {
			t.Errorf("src %q: %d %.100s, want 400 naming src", src, status, body)
		}
	}
	for _, src := range []string{
		"/feed/new?fencepost=" + fp, "/feed/new?include_seen=1&fencepost=" + fp,
		"/u/ada?new=" + fp, "/u/ada/likes?new=" + fp, "/u/ada/comments?new=" + fp, "/t/go?new=" + fp,
		"/g/readers?new=" + fp, "/search?q=attention&new=" + fp,
		"/mentions?new=" + fp, "/discussions?new=" + fp, "/directs?new=" + fp,
	} {
		if status, _, body := ada.tryStream("/live?src=" + url.QueryEscape(src)); status != http.StatusOK {
			t.Errorf("src %q: %d %.100s, want a stream", src, status, body)
		}
	}
	// The reader's own feeds have no notice for nobody.
	if status, _, _ := a.client().tryStream("/live?src=" + url.QueryEscape("/mentions?new="+fp)); status != http.StatusUnauthorized {
		t.Errorf("an anonymous stream of /mentions: %d, want 401", status)
	}
}

// Streams are capped per client address, per reader and per instance: past a cap the answer
// is 429 with Retry-After, and the refused streams cost the instance nothing that stays.
func TestLiveStreamsAreCapped(t *testing.T) {
	src := "/live?src=" + url.QueryEscape("/feed/new?fencepost="+liveFencepost)
	for _, tc := range []struct {
		name string
		caps web.LiveCaps
		user bool   // the streams are a signed-in reader's
		want string // what the refusal says
	}{
		{"per address", web.LiveCaps{PerAddress: 4, PerUser: 100, PerInstance: 100}, false, "from your address"},
		{"per user", web.LiveCaps{PerAddress: 100, PerUser: 4, PerInstance: 100}, true, "of your pages"},
		{"per instance", web.LiveCaps{PerAddress: 100, PerUser: 100, PerInstance: 4}, false, "The server has too many"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAppWith(t, func(c *web.Config) { c.LiveCaps = tc.caps })
			c := a.client()
			if tc.user {
				c.signup("ada")
			}
			for i := range 4 {
				if status, _, body := c.tryStream(src); status != http.StatusOK {
					t.Fatalf("stream %d: %d %.100s", i+1, status, body)
				}
			}
			before := runtime.NumGoroutine()
			for range 100 {
				status, retry, body := c.tryStream(src)
				if status != http.StatusTooManyRequests || retry == "" || !strings.Contains(body, tc.want) {
					t.Fatalf("a stream past the cap: %d, Retry-After %q, %.200s; want 429 saying %q", status, retry, body, tc.want)
				}
			}
			if grew := runtime.NumGoroutine() - before; grew > 20 {
				t.Errorf("100 refused streams left %d more goroutines", grew)
			}
		})
	}
}

// anonCached reports whether c's anonymous front page (JSON) came from the cache.
func (c *client) anonCached() bool {
	c.a.t.Helper()
	r := c.get("/api/timeline")
	if r.status != http.StatusOK {
		c.a.t.Fatalf("GET /api/timeline: %d %s", r.status, r.body)
	}
	return strings.Contains(r.body, `"path":"cache"`)
}

// One account following and unfollowing (or banning and unbanning) in a loop is limited
// across instances, and each change concerns the two users alone: the open pages of other
// readers are not told to check their cards, and the anonymous pages stay cached on every
// instance; the pair's own pages are.
func TestFollowLoopIsLimitedAndWakesOnlyItsPair(t *testing.T) {
	ts := newTestSite(t)
	a, _ := ts.instance()
	b, _ := ts.instance()
	freshWindow(t, a, 10*time.Minute, 30*time.Second)
	ada, bob, carol, dan, erin := a.client(), a.client(), a.client(), b.client(), b.client()
	for c, h := range map[*client]string{ada: "ada", bob: "bob", carol: "carol", dan: "dan", erin: "erin"} {
		c.signup(h)
	}
	share := func(link string) {
		t.Helper()
		ts.advance(time.Minute)
		if r := ada.post("/share", url.Values{"url": {link}}); r.status != http.StatusSeeOther {
			t.Fatalf("share: %d %s", r.status, r.body)
		}
	}
	share("https://example.com/loop/0")
	bystanders := []*liveStream{carol.openLive("/u/ada"), erin.openLive("/u/ada")} // on A and on B
	pair := []*liveStream{bob.on(b).openLive("/u/ada"), dan.openLive("/u/ada")}
	for _, s := range append(bystanders, pair...) {
		s.wantQuiet("nothing new yet")
	}
	anonA, anonB := a.client(), b.client()
	for _, c := range []*client{anonA, anonB} {
		c.anonCached()
		if !c.anonCached() {
			t.Fatal("the anonymous front page is not cached")
		}
	}

	n := 0
	for ; n < 200; n++ {
		act := []string{"follow", "unfollow"}[n%2]
		r := bob.post("/u/dan/"+act, url.Values{})
		if r.status == http.StatusTooManyRequests {
			if r.header.Get("Retry-After") == "" || !strings.Contains(r.body, "Too many") {
				t.Fatalf("a follow past the limit: Retry-After %q, %.200s", r.header.Get("Retry-After"), r.body)
			}
			break
		}
		if r.status != http.StatusSeeOther {
			t.Fatalf("%s %d: %d %.200s", act, n+1, r.status, r.body)
		}
	}
	if n != 120 {
		t.Fatalf("follows and unfollows allowed in ten minutes: %d, want 120", n)
	}
	if r := bob.on(b).post("/u/dan/follow", url.Values{}); r.status != http.StatusTooManyRequests {
		t.Fatalf("a follow through the other instance after the limit: %d, want 429", r.status)
	}
	for _, act := range []string{"ban", "unban"} {
		if r := bob.post("/u/dan/"+act, url.Values{}); r.status != http.StatusSeeOther {
			t.Fatalf("%s: %d %.200s", act, r.status, r.body)
		}
	}
	for _, s := range pair {
		if _, ok := s.event("recheck", 5*time.Second); !ok {
			t.Fatal("a page of the pair was not told to check its cards")
		}
	}
	for name, c := range map[string]*client{"A": anonA, "B": anonB} {
		if !c.anonCached() {
			t.Errorf("follows and a ban emptied the anonymous cache of instance %s", name)
		}
	}
	share("https://example.com/loop/1")
	for i, s := range bystanders {
		s.wantPill("a share after the loop", "1")
		if _, ok := s.event("recheck", 500*time.Millisecond); ok {
			t.Errorf("bystander %d was told to check its cards after others' follows and bans", i)
		}
	}
}

// Likes and unlikes are limited per user, counted on the database.
func TestLikeLoopIsLimited(t *testing.T) {
	a := newApp(t)
	freshWindow(t, a, 10*time.Minute, 30*time.Second)
	ada, bob := a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	post := ada.filterShare("https://example.com/liked", "", "")
	for i := range 300 {
		act := []string{"like", "unlike"}[i%2]
		if r := bob.post("/p/"+itoa(post)+"/"+act, url.Values{}); r.status != http.StatusSeeOther {
			t.Fatalf("%s %d: %d %.200s", act, i+1, r.status, r.body)
		}
	}
	r := bob.post("/p/"+itoa(post)+"/like", url.Values{})
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Fatalf("the 301st like in ten minutes: %d, Retry-After %q; want 429", r.status, r.header.Get("Retry-After"))
	}
	if r := ada.post("/p/"+itoa(post)+"/like", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("another user's like: %d", r.status)
	}
}
