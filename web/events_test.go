package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func (c *client) postJSON(path, body string) response {
	return c.do("POST", path, nil, http.Header{"Content-Type": {"application/json"}}, body)
}

func TestEventsIngestion(t *testing.T) {
	a := newApp(t)
	c := a.client()
	c.signup("ada")
	c.post("/share", url.Values{"url": {"https://arxiv.org/abs/2401.00001"}})
	var tl struct {
		Items []struct{ ID int64 } `json:"items"`
	}
	json.Unmarshal([]byte(c.get("/api/timeline").body), &tl)
	if len(tl.Items) != 1 {
		t.Fatalf("timeline has %d items, want 1", len(tl.Items))
	}
	item := tl.Items[0].ID
	ok := `{"events":[{"item":` + itoa(item) + `,"dwell_ms":1800}]}`
	for _, tc := range []struct {
		name   string
		client *client
		body   string
		status int
		want   string
	}{
		{"accepted", c, ok, http.StatusNoContent, ""},
		{"anonymous", a.client(), ok, http.StatusUnauthorized, "Log in"},
		{"not json", c, `dwell please`, http.StatusBadRequest, "must be JSON"},
		{"empty batch", c, `{"events":[]}`, http.StatusBadRequest, "between 1 and 100"},
		{"zero dwell", c, `{"events":[{"item":` + itoa(item) + `,"dwell_ms":0}]}`, http.StatusBadRequest, "dwell_ms must be between"},
		{"huge dwell", c, `{"events":[{"item":` + itoa(item) + `,"dwell_ms":86400000}]}`, http.StatusBadRequest, "dwell_ms must be between"},
		{"unknown item", c, `{"events":[{"item":999999,"dwell_ms":1000}]}`, http.StatusBadRequest, "no item 999999"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.client.postJSON("/events", tc.body)
			if r.status != tc.status || !strings.Contains(r.body, tc.want) {
				t.Fatalf("status %d body %q; want %d containing %q", r.status, r.body, tc.status, tc.want)
			}
		})
	}
	var n int
	a.store.Pool.QueryRow(t.Context(), "SELECT count(*) FROM events").Scan(&n)
	if n != 1 {
		t.Fatalf("%d events stored, want only the accepted one", n)
	}
}

// The events limit is counted in the database, so it holds across instances, and it is
// checked before anything is read: a batch past it is refused without its items being looked up.
func TestEventsRateLimitedAcrossInstances(t *testing.T) {
	ts := newTestSite(t)
	a, _ := ts.instance()
	b, _ := ts.instance()
	freshWindow(t, a, time.Minute, 20*time.Second)
	c := a.client()
	c.signup("ada")
	c.post("/share", url.Values{"url": {"https://arxiv.org/abs/2401.00001"}})
	var tl struct {
		Items []struct{ ID int64 } `json:"items"`
	}
	json.Unmarshal([]byte(c.get("/api/timeline").body), &tl)
	if len(tl.Items) != 1 {
		t.Fatalf("timeline has %d items, want 1", len(tl.Items))
	}
	batchOf := func(item int64) string {
		return `{"events":[` + strings.TrimSuffix(strings.Repeat(`{"item":`+itoa(item)+`,"dwell_ms":500},`, 100), ",") + `]}`
	}
	batch := batchOf(tl.Items[0].ID)
	for i := range 6 { // half through each instance: one count for the site
		on := c
		if i%2 == 1 {
			on = c.on(b)
		}
		if r := on.postJSON("/events", batch); r.status != http.StatusNoContent {
			t.Fatalf("batch %d: status %d, want 204", i, r.status)
		}
	}
	for _, on := range []*client{c, c.on(b)} {
		if r := on.postJSON("/events", batch); r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
			t.Fatalf("past 600 events a minute on %s: status %d, want 429 with Retry-After", on.a.srv.URL, r.status)
		}
	}
	if r := c.postJSON("/events", batchOf(999999)); r.status != http.StatusTooManyRequests {
		t.Fatalf("past the limit, a batch of unknown items: status %d, want 429 before its items are read", r.status)
	}
	bob := b.client()
	bob.signup("bob")
	if r := bob.postJSON("/events", batch); r.status != http.StatusNoContent {
		t.Fatalf("another user: status %d, want 204", r.status)
	}
}
