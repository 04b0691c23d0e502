package bench

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRawGetter(t *testing.T) {
	big := strings.Repeat("0123456789", 10_000)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/small":
			w.Header().Set("Content-Length", "5")
			w.Header().Set("Server-Timing", "app;dur=1.250")
			w.Write([]byte("hello"))
		case "/big": // no Content-Length and more than the server buffers: chunked
			w.Write([]byte(big))
		default:
			http.Error(w, "nope", http.StatusTeapot)
		}
	}))
	var conns atomic.Int64
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	ctx := context.Background()
	for _, tt := range []struct{ path, want string }{{"/small", "hello"}, {"/big", big}} {
		g, err := newRawGetter(srv.URL, tt.path)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 { // the same connection, three times
			body, d, err := g.get(ctx)
			if err != nil {
				t.Fatalf("GET %s #%d: %v", tt.path, i, err)
			}
			if string(body) != tt.want {
				t.Errorf("GET %s #%d: body of %d bytes, want %d", tt.path, i, len(body), len(tt.want))
			}
			if d.client <= 0 {
				t.Errorf("GET %s: latency %v", tt.path, d.client)
			}
			if want := map[string]time.Duration{"/small": 1250 * time.Microsecond}[tt.path]; d.server != want {
				t.Errorf("GET %s: server-side latency %v, want %v (Server-Timing)", tt.path, d.server, want)
			}
		}
		g.close()
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections for two getters of three requests each, want 2 (keep-alive)", n)
	}
	g, _ := newRawGetter(srv.URL, "/missing")
	if _, _, err := g.get(ctx); err == nil || !strings.Contains(err.Error(), "418") {
		t.Errorf("GET /missing: err = %v, want status 418", err)
	}
}
