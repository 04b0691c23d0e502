package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

type apiPage struct {
	Items []struct {
		ID   int64           `json:"id"`
		Talk json.RawMessage `json:"talk"`
	} `json:"items"`
	NextCursor string `json:"next_cursor"`
	Fencepost  string `json:"fencepost"`
	Refreshed  bool   `json:"refreshed"`
}

func (c *client) apiPage(query string) apiPage {
	c.a.t.Helper()
	r := c.get("/api/timeline?" + query)
	if r.status != http.StatusOK {
		c.a.t.Fatalf("GET /api/timeline?%s: status %d %s", query, r.status, r.body)
	}
	var p apiPage
	if err := json.Unmarshal([]byte(r.body), &p); err != nil {
		c.a.t.Fatal(err)
	}
	return p
}

func TestCursorWalkAndTampering(t *testing.T) {
	a := newApp(t)
	c := a.client()
	c.signup("ada")
	for i := range 45 {
		a.now = a.now.Add(time.Minute)
		c.post("/share", url.Values{"url": {fmt.Sprintf("https://example.com/post/%d", i)}})
	}
	a.now = a.now.Add(2 * time.Hour) // past the fresh-self hour

	seen := map[int64]bool{}
	p := c.apiPage("limit=10")
	pages := 1
	cursors := []string{}
	for {
		for _, it := range p.Items {
			if seen[it.ID] {
				t.Fatalf("item %d twice", it.ID)
			}
			seen[it.ID] = true
		}
		if p.NextCursor == "" {
			break
		}
		cursors = append(cursors, p.NextCursor)
		p = c.apiPage("limit=10&cursor=" + url.QueryEscape(p.NextCursor))
		pages++
	}
	if len(seen) != 45 || pages != 5 {
		t.Fatalf("walked %d items in %d pages, want 45 in 5", len(seen), pages)
	}
	// The same cursor gives the same page later (a committed fencepost never changes).
	again := c.apiPage("limit=10&cursor=" + url.QueryEscape(cursors[1]))
	first := c.apiPage("limit=10&cursor=" + url.QueryEscape(cursors[1]))
	if fmt.Sprint(again.Items) != fmt.Sprint(first.Items) {
		t.Fatalf("replaying a cursor changed the page")
	}

	tampered := cursors[0][:len(cursors[0])-3] + "AAA"
	for _, bad := range []string{tampered, "garbage", "v1.x.y", strings.Repeat("A", 500)} {
		r := c.get("/api/timeline?cursor=" + url.QueryEscape(bad))
		if r.status != http.StatusBadRequest || !strings.Contains(r.body, "'cursor'") {
			t.Fatalf("API with cursor %q: status %d %s, want 400 naming the cursor", bad, r.status, r.body)
		}
		h := c.get("/?cursor=" + url.QueryEscape(bad))
		if h.status != http.StatusBadRequest || !strings.Contains(h.body, "Your feed was refreshed") || !strings.Contains(h.body, `href="/?"`) {
			t.Fatalf("HTML with cursor %q: status %d, want 400 with the refreshed page", bad, h.status)
		}
	}
	// Another user's cursor is not valid for this user.
	other := a.client()
	other.signup("grace")
	if r := other.get("/api/timeline?limit=10&cursor=" + url.QueryEscape(cursors[0])); r.status != http.StatusBadRequest {
		t.Fatalf("another viewer's cursor: status %d, want 400", r.status)
	}
	// Fence state lost: the cursor yields a fresh first page that says so, not an error.
	if _, err := a.store.Pool.Exec(t.Context(), "TRUNCATE fences, fenceposts"); err != nil {
		t.Fatal(err)
	}
	reset := c.apiPage("limit=10&cursor=" + url.QueryEscape(cursors[2]))
	if !reset.Refreshed || len(reset.Items) != 10 {
		t.Fatalf("cursor into lost state: refreshed=%v with %d items, want a refreshed first page", reset.Refreshed, len(reset.Items))
	}
	if h := c.get("/?cursor=" + url.QueryEscape(cursors[2])); h.status != http.StatusOK {
		t.Fatalf("HTML cursor into lost state: status %d, want 200", h.status)
	}
}

func TestHTMXPageIsAFragment(t *testing.T) {
	a := newApp(t)
	c := a.client()
	c.signup("ada")
	for i := range 25 {
		a.now = a.now.Add(time.Minute)
		c.post("/share", url.Values{"url": {fmt.Sprintf("https://example.com/p/%d", i)}})
	}
	full := c.get("/").body
	var next string // the sentinel's (the header's badge and the new-items poll come first)
	for _, part := range strings.Split(full, `hx-get="`)[1:] {
		if next = strings.Split(part, `"`)[0]; strings.Contains(next, "cursor=") {
			break
		}
	}
	next = strings.ReplaceAll(next, "&amp;", "&")
	if !strings.Contains(next, "cursor=") {
		t.Fatalf("no sentinel with a cursor: %q", next)
	}
	frag := c.do("GET", next, nil, http.Header{"Hx-Request": {"true"}})
	if frag.status != http.StatusOK || strings.Contains(frag.body, "<html") || len(cards(frag.body)) != 5 {
		t.Fatalf("htmx page: status %d, %d cards, html=%v", frag.status, len(cards(frag.body)), strings.Contains(frag.body, "<html"))
	}
	if !strings.Contains(frag.body, `data-testid="end"`) {
		t.Fatal("the last page has no end marker")
	}
	noJS := c.get(next)
	if !strings.Contains(noJS.body, "<html") || len(cards(noJS.body)) != 5 {
		t.Fatal("the Older link without JavaScript does not render a full page")
	}
}
