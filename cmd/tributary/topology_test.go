package main

import (
	"context"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"tributary/cluster"
)

// While the database is down every instance fails /healthz and haproxy has none to send a
// request to: it answers itself, and must answer as the instances do, 503 with Retry-After.
func TestHAProxyNoInstanceRetryAfter(t *testing.T) {
	if _, err := exec.LookPath("haproxy"); err != nil {
		if _, err := exec.LookPath("/usr/sbin/haproxy"); err != nil {
			t.Skip("haproxy is not installed (Debian: apt-get install haproxy)")
		}
	}
	port, err := cluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	// Its one instance's port is nobody's: haproxy finds it down.
	tp := &topology{dir: t.TempDir(), port: port, instances: 1}
	if err := tp.startHAProxy(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopPid(tp.pidFile("haproxy"), 5*time.Second) })
	res, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Errorf("no instance: %d, Retry-After %q, %q; want 503 with Retry-After", res.StatusCode, res.Header.Get("Retry-After"), body)
	}
}
