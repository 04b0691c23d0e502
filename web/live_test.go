package web_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"tributary/site"
	"tributary/web"
)

// An open page hears of new items through its stream, from whichever instance they were
// written through; the stream asks as its reader, so what the reader may not see never
// reaches them; a lost listening connection loses nothing.
func TestLiveNoticeAcrossInstances(t *testing.T) {
	ts := newTestSite(t)
	a, _ := ts.instance()
	b, _ := ts.instance()

	ada := a.client()
	ada.signup("ada")
	share := func(i int) {
		t.Helper()
		ts.advance(time.Minute)
		if r := ada.post("/share", url.Values{"url": {fmt.Sprintf("https://example.com/live/%d", i)}}); r.status != http.StatusSeeOther {
			t.Fatalf("share: %d %s", r.status, r.body)
		}
	}
	share(0)
	bob := b.client()
	bob.signup("bob")
	bob.post("/u/ada/follow", url.Values{})
	carol := b.client()
	carol.signup("carol")

	bobs := bob.openLive("/u/ada") // on B
	carols := carol.openLive("/u/ada")
	bobs.wantQuiet("nothing new yet")
	share(1) // through A
	bobs.wantPill("a share through the other instance", "1")
	// Likes and comments on a post name its cards (post and item) to the pages that may read
	// it, through any instance.
	var first int64
	if err := a.store.Pool.QueryRow(context.Background(), "SELECT min(id) FROM posts").Scan(&first); err != nil {
		t.Fatal(err)
	}
	var anchor int64
	a.store.Pool.QueryRow(context.Background(), "SELECT anchor_id FROM posts WHERE id = $1", first).Scan(&anchor)
	if r := carol.on(a).post("/p/"+itoa(first)+"/like", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("like: %d", r.status)
	}
	want := fmt.Sprintf("p%d i%d", first, anchor)
	for _, s := range []*liveStream{bobs, carols} {
		if ev, ok := s.event("talk", 5*time.Second); !ok || ev.data != want {
			t.Fatalf("a like: talk event %q (%v), want %q", ev.data, ok, want)
		}
	}
	carols.wantPill("a share through the other instance, to a stranger", "1")
	share(2)
	bobs.wantPill("a second share", "2")
	carols.wantPill("a second share", "2")

	// Ada goes private: bob, a follower, keeps counting; carol's notice counts nothing of
	// hers now, and her next share reaches bob alone.
	if r := ada.post("/settings/visibility", url.Values{"visibility": {"private"}}); r.status != http.StatusSeeOther {
		t.Fatalf("go private: %d", r.status)
	}
	carols.wantPill("ada went private", "")
	if _, ok := carols.event("recheck", 5*time.Second); !ok {
		t.Fatal("ada went private: carol's page was not told to check its cards")
	}
	share(3)
	bobs.wantPill("a private share, to a follower", "3")
	carols.wantQuiet("a private share, to a stranger")
	if r := bob.post("/p/"+itoa(first)+"/like", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("like: %d %s", r.status, r.body)
	}
	if ev, ok := bobs.event("talk", 5*time.Second); !ok || ev.data != want {
		t.Fatalf("a like of a private post: bob's talk event %q (%v), want %q", ev.data, ok, want)
	}
	if ev, ok := carols.event("talk", time.Second); ok {
		t.Fatalf("a like of a private post reached a stranger's page: %q", ev.data)
	}

	// B's listening connection is killed: it reconnects, catches up, and the stream hears of
	// what was written meanwhile.
	if _, err := a.store.Pool.Exec(context.Background(),
		"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", site.ListenerName); err != nil {
		t.Fatal(err)
	}
	share(4)
	bobs.wantPill("a share while the listeners reconnected", "4")

	// Ada removes bob as a follower: his open stream stops counting her private posts at
	// once (each ask reads the reader's access afresh).
	if r := ada.post("/settings/followers/bob/remove", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("remove follower: %d", r.status)
	}
	bobs.wantPill("bob was removed as a follower", "")
	share(5)
	bobs.wantQuiet("a private share, to a removed follower")

	// Bob logs out through the other instance: his stream on B ends at once (his session's
	// end comes through the change log, not at a heartbeat).
	bob.on(a).post("/logout", url.Values{})
	select {
	case ev := <-bobs.events:
		if ev.name != "gone" {
			t.Fatalf("after logging out: event %q, want gone", ev.name)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream of a reader who logged out did not end")
	}
}

// A page's stream asks what its notice slot polls, nothing else: any other source is refused.
func TestLiveStreamRefusesOtherSources(t *testing.T) {
	a := newApp(t)
	c := a.client()
	c.signup("ada")
	for _, src := range []string{"", "/settings", "//evil.example/feed/new", "https://evil.example/u/ada?new=1",
		"/u/ada", "javascript:alert(1)", "%zz"} {
		r := c.get("/live?src=" + url.QueryEscape(src))
		if r.status != http.StatusBadRequest || !strings.Contains(r.body, "src must be") {
			t.Errorf("src %q: %d %.100s, want 400 naming src", src, r.status, r.body)
		}
	}
	// A page coming back after losing its stream checks its cards (what was missed is not
	// replayed).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", a.srv.URL+"/live?src="+url.QueryEscape("/feed/new?fencepost=2026-11-20T12%3A00%3A00Z"), nil)
	req.Header.Set("Last-Event-ID", "41")
	res, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() && sc.Text() != "event: recheck" {
	}
	if sc.Text() != "event: recheck" {
		t.Error("a stream opened again (Last-Event-ID) did not tell its page to check its cards")
	}
	res.Body.Close()
	// The home feed's notice streams too, for a reader and for nobody.
	for _, who := range []*client{c, a.client()} {
		s := who.stream("/live?src=" + url.QueryEscape("/feed/new?fencepost=2026-11-20T12%3A00%3A00Z"))
		s.wantQuiet("nothing new")
	}
}

// GET /talk brings the cards an open page names up to date for its reader: counts and
// likers of the ones they may read, out of band; the post cards they may not read leave.
func TestTalkNow(t *testing.T) {
	a := newApp(t)
	ada, bob, carol, dan := a.client(), a.client(), a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	carol.signup("carol")
	dan.signup("dan")
	open := dan.filterShare("https://example.com/talk/open", "", "")
	bob.filterLike(open)
	bob.post("/u/ada/follow", url.Values{})
	if r := ada.post("/settings/visibility", url.Values{"visibility": {"private"}}); r.status != http.StatusSeeOther {
		t.Fatalf("go private: %d", r.status)
	}
	closed := ada.filterShare("https://example.com/talk/closed", "", "")
	var anchor int64
	a.store.Pool.QueryRow(context.Background(), "SELECT anchor_id FROM posts WHERE id = $1", open).Scan(&anchor)

	r := carol.get(fmt.Sprintf("/talk?p=%d,%d&i=%d:%d&return=/u/ada", open, closed, anchor, open))
	if r.status != http.StatusOK {
		t.Fatalf("GET /talk: %d %s", r.status, r.body)
	}
	for _, want := range []string{
		fmt.Sprintf(`id="talk-p%d-bar"`, open), fmt.Sprintf(`id="talk-p%d-likers"`, open), `data-likes="1"`, ">bob</a>",
		fmt.Sprintf(`id="talk-i%d-bar"`, anchor), fmt.Sprintf(`id="post-%d" hx-swap-oob="delete"`, closed),
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("GET /talk lacks %s: %s", want, r.body)
		}
	}
	var closedItem int64
	a.store.Pool.QueryRow(context.Background(), "SELECT anchor_id FROM posts WHERE id = $1", closed).Scan(&closedItem)
	if r := carol.get(fmt.Sprintf("/talk?i=%d:%d", closedItem, closed)); !strings.Contains(r.body, fmt.Sprintf(`id="item-%d" hx-swap-oob="delete"`, closedItem)) {
		t.Errorf("an item none of whose shares a stranger may read stays: %s", r.body)
	}
	if strings.Contains(r.body, fmt.Sprintf(`id="talk-p%d-bar"`, closed)) {
		t.Errorf("a stranger got the talk of a private post: %s", r.body)
	}
	if r := bob.get(fmt.Sprintf("/talk?p=%d,%d", open, closed)); !strings.Contains(r.body, fmt.Sprintf(`id="talk-p%d-bar"`, closed)) ||
		strings.Contains(r.body, "delete") || !strings.Contains(r.body, `aria-pressed="true"`) {
		t.Errorf("a follower's /talk: %s", r.body)
	}
	for _, q := range []string{"p=x", "p=1,-2", "i=1", "i=1:x", "p=" + strings.Repeat("1,", 200) + "1"} {
		if r := bob.get("/talk?" + q); r.status != http.StatusBadRequest {
			t.Errorf("GET /talk?%.40s: %d, want 400", q, r.status)
		}
	}
}

// A stream asks its notice again only when a new post may be new on its page: one its reader
// may read, on a user's page one by that user, on the home one by someone the reader follows.
func TestLiveStreamsAskOnlyWhenNewToThePage(t *testing.T) {
	ts := newTestSite(t)
	a, _ := ts.instance()
	b, _ := ts.instance()
	ada, bob, carol := a.client(), a.client(), b.client()
	ada.signup("ada")
	bob.signup("bob")
	carol.signup("carol")
	share := func(c *client, link string) {
		t.Helper()
		ts.advance(time.Minute)
		if r := c.post("/share", url.Values{"url": {link}}); r.status != http.StatusSeeOther {
			t.Fatalf("share: %d %s", r.status, r.body)
		}
	}
	share(ada, "https://example.com/asks/0")
	carol.get("/u/ada")                      // the site's first cursor key, made on B ...
	share(bob, "https://example.com/asks/1") // ... and a wake-up that brings it round
	metric := func(name string) int {
		t.Helper()
		m := regexp.MustCompile(`(?m)^` + name + ` (\d+)$`).FindStringSubmatch(carol.a.metrics())
		if m == nil {
			t.Fatalf("no %s on /metrics", name)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	asks := func() int { return metric("tributary_live_asks_total") }
	adas := carol.openLive("/u/ada") // on B
	bobs := carol.openLive("/u/bob")
	adas.wantQuiet("nothing new yet")
	before := asks()
	for n := -1; n != before; { // until B has heard of everything before (the first cursor key)
		n = before
		time.Sleep(300 * time.Millisecond)
		before = asks()
	}
	share(ada, "https://example.com/asks/2") // through A
	adas.wantPill("ada's share on ada's page", "1")
	if n := asks() - before; n != 1 {
		t.Errorf("ada's share made %d asks on B, want 1 (bob's page has nothing new)", n)
	}
	bobs.wantQuiet("ada's share on bob's page")
	share(bob, "https://example.com/asks/3")
	bobs.wantPill("bob's share on bob's page", "1")

	// On her home, only the shares of those she follows: carol follows bob, not ada.
	carol.post("/u/bob/follow", url.Values{})
	home := carol.openLive("/")
	home.wantQuiet("nothing new at home yet")
	before = asks()
	share(ada, "https://example.com/asks/4")
	adas.wantPill("ada's second share on ada's page", "2")
	if n := asks() - before; n != 1 {
		t.Errorf("ada's share made %d asks on B, want 1 (carol's home has nothing of hers)", n)
	}
	home.wantQuiet("ada's share on the home of someone who does not follow her")
	share(bob, "https://example.com/asks/5")
	home.wantPill("bob's share on his follower's home", "1")
	bobs.wantPill("bob's second share on bob's page", "2")

	// Once the home's notice is counted, the next share that reaches it is told from that
	// count, unasked (bob's page, open too, asks); one of an item counted already changes
	// nothing.
	before, counted := asks(), metric("tributary_live_counted_total")
	share(bob, "https://example.com/asks/6")
	home.wantPill("bob's next share", "2")
	bobs.wantPill("bob's next share on bob's page", "3")
	if n, c := asks()-before, metric("tributary_live_counted_total")-counted; n != 1 || c != 1 {
		t.Errorf("bob's next share: %d asks and %d told from the count on B, want 1 (bob's page) and 1 (carol's home)", n, c)
	}
	share(ada, "https://example.com/asks/6") // the same item, by someone carol does not follow
	share(bob, "https://example.com/asks/7")
	home.wantPill("the share after", "3")
}

// A stream leaves net/http once its head is written (it keeps its own connection): its answer
// still carries the site's headers, it ends when its page goes, and a shutdown waits for it.
func TestLiveStreamsLeaveWithTheirPages(t *testing.T) {
	a := newApp(t)
	c := a.client()
	c.signup("ada")
	open := func() float64 {
		m := regexp.MustCompile(`(?m)^tributary_live_streams_open (\S+)$`).FindStringSubmatch(a.metrics())
		if m == nil {
			t.Fatal("no tributary_live_streams_open in /metrics")
		}
		n, _ := strconv.ParseFloat(m[1], 64)
		return n
	}
	var closers []func()
	for range 5 {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", a.srv.URL+"/live?src="+url.QueryEscape("/feed/new?fencepost=2026-11-20T12%3A00%3A00Z"), nil)
		res, err := c.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		h := res.Header
		if res.StatusCode != http.StatusOK || h.Get("Content-Type") != "text/event-stream" || h.Get("X-Request-Id") == "" ||
			!strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") || h.Get("Cache-Control") != "no-store" ||
			res.ContentLength != -1 || res.TransferEncoding != nil || !res.Close {
			t.Fatalf("a stream's answer: %d, %v, length %d, encoding %v, close %v", res.StatusCode, h, res.ContentLength, res.TransferEncoding, res.Close)
		}
		sc := bufio.NewScanner(res.Body)
		if !sc.Scan() || sc.Text() != "retry: 2000" {
			t.Fatalf("a stream begins with %q", sc.Text())
		}
		closers = append(closers, func() { cancel(); res.Body.Close() })
	}
	if n := open(); n != 5 {
		t.Fatalf("%v streams open, want 5", n)
	}
	for _, close := range closers {
		close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for open() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%v streams still open after their pages went", open())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A stream reads its reader again every fourth heartbeat, for what the site's change log does
// not name: a session past its expiry ends its open streams within a few beats.
func TestStreamOfAnExpiredSessionEnds(t *testing.T) {
	ts := newTestSite(t)
	ts.config = func(c *web.Config) { c.LiveHeartbeat = 200 * time.Millisecond }
	a, _ := ts.instance()
	ada := a.client()
	ada.signup("ada")
	ann := a.client()
	ann.signup("ann")
	anns := ann.openLive("/u/ada")
	anns.wantQuiet("nothing new yet")
	// The session's expiry passes: a change of time, which no change is logged for.
	if _, err := a.store.Pool.Exec(context.Background(),
		"UPDATE sessions SET expiry = now() - interval '1 second' WHERE user_id = (SELECT id FROM users WHERE handle = 'ann')"); err != nil {
		t.Fatal(err)
	}
	if _, ok := anns.event("gone", 5*time.Second); !ok {
		t.Fatal("the stream of an expired session did not end")
	}
}
