package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"tributary"
	"tributary/web"
)

func TestTimelineAPI(t *testing.T) {
	a := newApp(t)
	ada, grace := a.client(), a.client()
	ada.signup("ada")
	grace.signup("grace")
	ada.post("/share", url.Values{"url": {"https://arxiv.org/abs/2401.00001"}, "title": {"Paper"}})
	grace.post("/share", url.Values{"url": {"https://x.com/grace/status/1"}, "title": {"Look at this paper"}})
	grace.post("/u/ada/follow", url.Values{})

	r := grace.get("/api/timeline?limit=10")
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var env struct {
		Items      []map[string]any `json:"items"`
		NextCursor *string          `json:"next_cursor"`
		Path       string           `json:"path"`
		Fencepost  *string          `json:"fencepost"`
	}
	if err := json.Unmarshal([]byte(r.body), &env); err != nil {
		t.Fatal(err)
	}
	if env.Path != tributary.PathLive || env.NextCursor == nil || env.Fencepost == nil {
		t.Fatalf("envelope: path %q next_cursor %v fencepost %v", env.Path, env.NextCursor, env.Fencepost)
	}
	if len(env.Items) != 2 {
		t.Fatalf("%d items, want 2", len(env.Items))
	}
	for _, key := range []string{"id", "url", "canonical_url", "anchor_url", "title", "kind", "date", "score",
		"score_parts", "primary_user", "sharers", "already_seen", "images"} {
		if _, ok := env.Items[0][key]; !ok {
			t.Errorf("item lacks %q: %v", key, env.Items[0])
		}
	}
	if got := a.client().get("/api/timeline").body; !strings.Contains(got, `"items":[]`) {
		t.Errorf("anonymous timeline without VIPs: %s, want an empty items list", got)
	}
}

func TestTimelineBadInput(t *testing.T) {
	a := newApp(t)
	for _, tc := range []struct{ query, param string }{
		{"limit=ten", "limit"},
		{"limit=1000", "limit"},
		{"source=myspace", "source"},
		{"since=last+week", "since"},
		{"until=2026-99-01", "until"},
		{"since=2026-02-01&until=2026-01-01", "since"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			r := a.client().get("/api/timeline?" + tc.query)
			var body struct{ Error string }
			json.Unmarshal([]byte(r.body), &body)
			if r.status != http.StatusBadRequest || !strings.Contains(body.Error, "'"+tc.param+"'") {
				t.Fatalf("status %d body %s; want 400 naming %q", r.status, r.body, tc.param)
			}
			if h := a.client().get("/?" + tc.query); h.status != http.StatusBadRequest {
				t.Fatalf("HTML page: status %d, want 400", h.status)
			}
		})
	}
}

func TestServerTimingSaysHowLongTheServerWorked(t *testing.T) {
	// The bench reads the server-side latency from this header; a site says it only when
	// configured to (it tells anyone how long each answer took to make).
	for _, timing := range []bool{true, false} {
		a := newApp(t, func(c *web.Config) { c.ServerTiming = timing })
		c := a.client()
		c.signup("ada")
		for _, path := range []string{"/api/timeline", "/", "/api/timeline?limit=x"} {
			res := c.get(path)
			st := res.header.Get("Server-Timing")
			if ok := regexp.MustCompile(`^app;dur=\d+\.\d{3}$`).MatchString(st); ok != timing || !timing && st != "" {
				t.Errorf("ServerTiming %v: %s (%d): Server-Timing %q", timing, path, res.status, st)
			}
		}
	}
}
