package web_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"tributary/db/dbtest"
	"tributary/web"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestMetricsAndRequestIDs(t *testing.T) {
	store := dbtest.Store(t)
	logs := &syncBuffer{}
	s := web.NewServer(web.Config{Store: store, Log: slog.New(slog.NewTextHandler(logs, nil)), HashCost: bcrypt.MinCost})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	a := &app{t: t, srv: srv, store: store, web: s}
	c := a.client()
	c.get("/")
	c.get("/")
	c.get("/u/nobody")
	if r := c.get("/metrics"); r.status != http.StatusNotFound || strings.Contains(r.body, "tributary_") {
		t.Errorf("/metrics on the site: status %d, want 404 (metrics have a listener of their own)", r.status)
	}
	r := response{body: a.metrics()}
	for _, want := range []string{
		`tributary_http_request_duration_seconds_count{method="GET",route="GET /{$}",status="200"} 2`,
		`tributary_http_request_duration_seconds_count{method="GET",route="GET /u/{handle}",status="404"} 1`,
		`tributary_db_pool_connections{state="idle"}`, `tributary_db_pool_acquires_total`,
		`tributary_anon_cache_hits_total 1`, `tributary_anon_cache_misses_total 1`,
		`tributary_river_hits_total 0`, `tributary_river_misses_total 0`,
		`tributary_snapshot_refresh_duration_seconds_count`, `go_goroutines`, `go_gc_heap_live_bytes`, `go_memstats_stack_inuse_bytes`, `process_resident_memory_bytes`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if id := c.get("/").header.Get("X-Request-Id"); len(id) != 16 {
		t.Errorf("X-Request-Id %q", id)
	}
	// A 5xx page names its request, and so does the log line of the failure.
	store.Pool.Close()
	res := c.do("GET", "/u/ada", nil, http.Header{"X-Request-Id": {"report-me-123"}})
	if res.status < 500 || !strings.Contains(res.body, "report-me-123") {
		t.Fatalf("5xx page: status %d, body %.300q; want the request id", res.status, res.body)
	}
	if !strings.Contains(logs.String(), "request_id=report-me-123") {
		t.Fatalf("no log line names the failed request:\n%s", logs.String())
	}
	if r := c.get("/api/timeline?limit=7"); !strings.Contains(r.body, `"request_id":"`) {
		t.Fatalf("5xx JSON without a request id: %s", r.body)
	}
}
