package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"tributary/cluster"
	"tributary/db"
	"tributary/db/dbtest"
	"tributary/seed"
)

// TestPreviousBinaryOnNewSchema runs the previous release's binary (TRIBUTARY_COMPAT_BINARY:
// `make compat` builds HEAD~1's) on a database this commit's migrations made and seeded, and
// drives its main paths: a rolling deploy has the old instances serve the new schema until
// they are replaced, so migrations must only expand (contract in a later release).
func TestPreviousBinaryOnNewSchema(t *testing.T) {
	old := os.Getenv("TRIBUTARY_COMPAT_BINARY")
	if old == "" {
		t.Skip("TRIBUTARY_COMPAT_BINARY is not set: `make compat` builds the previous commit's binary and runs this test with it")
	}
	ctx := context.Background()
	dsn := dbtest.DSN(t) // migrated by this commit
	pool, err := db.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	hash, err := bcrypt.GenerateFromPassword([]byte("tributary"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	res, err := seed.Fill(ctx, db.NewStore(pool), seed.Config{Users: 40, Posts: 200, Seed: 7,
		End: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), DemoPasswordHash: string(hash), DemoPassword: "tributary"})
	if err != nil {
		t.Fatal(err)
	}
	var post int64
	if err := pool.QueryRow(ctx, "SELECT id FROM posts WHERE is_public AND deleted_at IS NULL ORDER BY id DESC LIMIT 1").Scan(&post); err != nil {
		t.Fatal(err)
	}

	port, err := cluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	var log strings.Builder
	cmd := exec.Command(old, "serve", "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--database-url", dsn, "--poll-seconds", "-1")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("the previous binary's log:\n%s", log.String())
		}
	})
	// It migrates on start (nothing to do for it) and answers /healthz once ready.
	for {
		if r, err := http.Get(base + "/healthz"); err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("the previous binary exited on the new schema: %v\n%s", err, log.String())
		case <-time.After(100 * time.Millisecond):
		}
	}

	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: time.Minute, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path string, form url.Values) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(form.Encode()))
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		r, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return r.StatusCode, string(b)
	}
	handle := res.Logins[0].Handle
	title := "Shared by the previous binary"
	for _, tc := range []struct {
		method, path string
		form         url.Values
		want         int
		contains     string
	}{
		{"GET", "/", nil, 200, ""},
		{"POST", "/login", url.Values{"handle": {handle}, "password": {"tributary"}}, 303, ""},
		{"GET", "/", nil, 200, ""},
		{"GET", "/api/timeline", nil, 200, "next_cursor"},
		{"POST", "/share", url.Values{"url": {"https://example.com/compat"}, "title": {title}}, 303, ""},
		{"GET", "/u/" + handle, nil, 200, title},
		{"POST", fmt.Sprintf("/p/%d/like", post), url.Values{}, 303, ""},
		{"POST", fmt.Sprintf("/p/%d/comments", post), url.Values{"body": {"A comment from the previous binary"}}, 303, ""},
		{"GET", fmt.Sprintf("/p/%d", post), nil, 200, "A comment from the previous binary"},
		{"GET", "/search?q=compat", nil, 200, ""},
		{"GET", "/settings", nil, 200, ""},
	} {
		status, body := do(tc.method, tc.path, tc.form)
		if status != tc.want || !strings.Contains(body, tc.contains) {
			t.Errorf("%s %s: %d (want %d)%s\n%.300s", tc.method, tc.path, status, tc.want,
				map[bool]string{true: "", false: ", without " + tc.contains}[strings.Contains(body, tc.contains)], body)
		}
	}
}
