package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCompressionSkipsEventStreams(t *testing.T) {
	body := strings.Repeat("data: hello\n\n", 500)
	for ctype, want := range map[string]string{"text/event-stream": "", "text/html; charset=utf-8": "gzip", "application/json": "gzip", "image/png": ""} {
		h := compress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.Write([]byte(body))
		}))
		req := httptest.NewRequest("GET", "/stream", nil)
		req.Header.Set("Accept-Encoding", "gzip")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if got := rec.Header().Get("Content-Encoding"); got != want {
			t.Errorf("%s: Content-Encoding %q, want %q", ctype, got, want)
		}
	}
}
