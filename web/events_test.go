package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
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

func TestEventsRateLimited(t *testing.T) {
	a := newApp(t)
	c := a.client()
	c.signup("ada")
	c.post("/share", url.Values{"url": {"https://arxiv.org/abs/2401.00001"}})
	var tl struct {
		Items []struct{ ID int64 } `json:"items"`
	}
	json.Unmarshal([]byte(c.get("/api/timeline").body), &tl)
	batch := `{"events":[` + strings.TrimSuffix(strings.Repeat(`{"item":`+itoa(tl.Items[0].ID)+`,"dwell_ms":500},`, 100), ",") + `]}`
	for i := range 6 {
		if r := c.postJSON("/events", batch); r.status != http.StatusNoContent {
			t.Fatalf("batch %d: status %d, want 204", i, r.status)
		}
	}
	if r := c.postJSON("/events", batch); r.status != http.StatusTooManyRequests {
		t.Fatalf("past 600 events a minute: status %d, want 429", r.status)
	}
	a.now = a.now.Add(61 * 1e9)
	if r := c.postJSON("/events", batch); r.status != http.StatusNoContent {
		t.Fatalf("a minute later: status %d, want 204", r.status)
	}
}
