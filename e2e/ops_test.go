package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// The real binary serves its metrics on --metrics-addr only, says Server-Timing only with
// --server-timing, and believes X-Forwarded-Proto from --trusted-proxies only.
func TestOperatorSettings(t *testing.T) {
	get := func(url string, h http.Header) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", url, nil)
		for k, v := range h {
			req.Header[k] = v
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	https := http.Header{"X-Forwarded-Proto": {"https"}}

	s := startServer(t, "--metrics-addr", "127.0.0.1:0", "--trusted-proxies", "127.0.0.0/8,::1")
	if res, _ := get(s.URL+"/metrics", nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("/metrics on the site: status %d, want 404", res.StatusCode)
	}
	if s.Metrics == "" {
		t.Fatal("no metrics listener logged")
	}
	get(s.URL+"/", nil)
	if res, body := get(s.Metrics, nil); res.StatusCode != http.StatusOK || !strings.Contains(body, "tributary_http_request_duration_seconds") {
		t.Errorf("metrics listener: status %d, body %.200q", res.StatusCode, body)
	}
	res, _ := get(s.URL+"/", https)
	if res.Header.Get("Server-Timing") != "" || res.Header.Get("Strict-Transport-Security") == "" {
		t.Errorf("behind a trusted proxy saying https: Server-Timing %q, Strict-Transport-Security %q; want none and some",
			res.Header.Get("Server-Timing"), res.Header.Get("Strict-Transport-Security"))
	}

	plain := startServer(t, "--server-timing")
	if plain.Metrics != "" {
		t.Errorf("metrics served at %s without --metrics-addr", plain.Metrics)
	}
	res, _ = get(plain.URL+"/", https)
	if res.Header.Get("Server-Timing") == "" || res.Header.Get("Strict-Transport-Security") != "" {
		t.Errorf("no trusted proxies, --server-timing: Server-Timing %q, Strict-Transport-Security %q; want some and none",
			res.Header.Get("Server-Timing"), res.Header.Get("Strict-Transport-Security"))
	}
}
