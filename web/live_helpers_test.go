package web_test

import (
	"bufio"
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// liveEvent is one server-sent event of a live stream.
type liveEvent struct{ id, name, data string }

// liveStream is an open GET /live stream, read in the background.
type liveStream struct {
	t      *testing.T
	events chan liveEvent
	other  []liveEvent // events passed over while waiting for another
}

// openLive opens the stream of the "N new" slot of the page at path, as c, and checks that
// the slot's stream asks what the slot would poll.
func (c *client) openLive(path string) *liveStream {
	c.a.t.Helper()
	page := c.get(path).body
	slot := filterSlotRe.FindString(page)
	src, connect := html.UnescapeString(attr(slot, "hx-get")), html.UnescapeString(attr(slot, "sse-connect"))
	if src == "" || connect != "/live?src="+url.QueryEscape(src) || attr(slot, "sse-swap") != "pill,talk,recheck,unread" {
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

// event waits up to within for the next event named name, keeping the others it passes
// (other); ok is false when none came.
func (s *liveStream) event(name string, within time.Duration) (liveEvent, bool) {
	if i := slices.IndexFunc(s.other, func(ev liveEvent) bool { return ev.name == name }); i >= 0 {
		ev := s.other[i]
		s.other = slices.Delete(s.other, i, i+1)
		return ev, true
	}
	deadline := time.After(within)
	for {
		select {
		case ev := <-s.events:
			if ev.name == name {
				return ev, true
			}
			s.other = append(s.other, ev)
		case <-deadline:
			return liveEvent{}, false
		}
	}
}

// pill waits up to within for a notice event and returns the count it shows ("" for none).
func (s *liveStream) pill(within time.Duration) (string, bool) {
	ev, ok := s.event("pill", within)
	if m := livePillRe.FindStringSubmatch(ev.data); m != nil {
		return m[1], ok
	}
	return "", ok
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
