package web_test

import (
	"bufio"
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"tributary/site"
)

// liveEvent is one server-sent event of a live stream.
type liveEvent struct{ id, name, data string }

// liveStream is an open GET /live stream, read in the background.
type liveStream struct {
	t      *testing.T
	events chan liveEvent
}

// openLive opens the stream of the "N new" slot of the page at path, as c, and checks that
// the slot's stream asks what the slot would poll.
func (c *client) openLive(path string) *liveStream {
	c.a.t.Helper()
	page := c.get(path).body
	slot := filterSlotRe.FindString(page)
	src, connect := html.UnescapeString(attr(slot, "hx-get")), html.UnescapeString(attr(slot, "sse-connect"))
	if src == "" || connect != "/live?src="+url.QueryEscape(src) || attr(slot, "sse-swap") != "pill" {
		c.a.t.Fatalf("%s: the new-items slot has no live stream of its notice: %q", path, slot)
	}
	return c.stream(connect)
}

// stream opens a live stream at path and reads its events until the test ends.
func (c *client) stream(path string) *liveStream {
	t := c.a.t
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", c.a.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET %s: %d %s", path, res.StatusCode, res.Header.Get("Content-Type"))
	}
	s := &liveStream{t: t, events: make(chan liveEvent, 100)}
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); res.Body.Close(); <-done }) // before the server closes
	go func() {
		defer close(done)
		sc := bufio.NewScanner(res.Body)
		var ev liveEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.name != "" {
					s.events <- ev
				}
				ev = liveEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.name = line[7:]
			case strings.HasPrefix(line, "data: "):
				if ev.data != "" {
					ev.data += "\n"
				}
				ev.data += line[6:]
			}
		}
	}()
	return s
}

var livePillRe = regexp.MustCompile(`(\d+\+?) new`)

// pill waits up to within for a notice event and returns the count it shows ("" for none).
func (s *liveStream) pill(within time.Duration) (string, bool) {
	select {
	case ev := <-s.events:
		if ev.name != "pill" {
			s.t.Fatalf("event %q, want pill", ev.name)
		}
		if m := livePillRe.FindStringSubmatch(ev.data); m != nil {
			return m[1], true
		}
		return "", true
	case <-time.After(within):
		return "", false
	}
}

func (s *liveStream) wantPill(what, want string) {
	s.t.Helper()
	got, ok := s.pill(5 * time.Second)
	if !ok || got != want {
		s.t.Fatalf("%s: notice %q (sent: %v), want %q new", what, got, ok, want)
	}
}

func (s *liveStream) wantQuiet(what string) {
	s.t.Helper()
	if got, ok := s.pill(time.Second); ok {
		s.t.Fatalf("%s: notice %q sent, want nothing", what, got)
	}
}

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
		ts.now = ts.now.Add(time.Minute)
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
	share(3)
	bobs.wantPill("a private share, to a follower", "3")
	carols.wantQuiet("a private share, to a stranger")

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

	// Bob logs out: the stream ends.
	bob.post("/logout", url.Values{})
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
	// The home feed's notice streams too, for a reader and for nobody.
	for _, who := range []*client{c, a.client()} {
		s := who.stream("/live?src=" + url.QueryEscape("/feed/new?fencepost=1"))
		s.wantQuiet("nothing new")
	}
}
