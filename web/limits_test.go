package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// freshWindow waits, when the database's clock is less than margin before the end of a
// rate-limit window of length window (windows are fixed, aligned on the epoch), for the next
// one: a test that counts hits must not see its count start again half way.
func freshWindow(t *testing.T, a *app, window, margin time.Duration) {
	t.Helper()
	var epoch float64
	if err := a.store.Pool.QueryRow(t.Context(), "SELECT extract(epoch FROM clock_timestamp())::float8").Scan(&epoch); err != nil {
		t.Fatal(err)
	}
	into := time.Duration(epoch*float64(time.Second)) % window
	if left := window - into; left < margin {
		time.Sleep(left + 100*time.Millisecond)
	}
}

// Log-in attempts are limited per handle and per address, counted across instances, with
// the same answer whether or not the handle exists.
func TestLoginIsRateLimitedWithoutTellingWhoExists(t *testing.T) {
	ts := newTestSite(t)
	a, _ := ts.instance()
	b, _ := ts.instance()
	freshWindow(t, a, 5*time.Minute, time.Minute)
	a.client().signup("ada")
	bodies := map[string]string{}
	for _, handle := range []string{"ada", "nobody"} {
		c := a.client()
		for i := range 10 { // half through each instance: one count for the site
			on := c
			if i%2 == 1 {
				on = c.on(b)
			}
			if r := on.post("/login", url.Values{"handle": {handle}, "password": {"wrong password"}}); r.status != http.StatusBadRequest {
				t.Fatalf("%s attempt %d: status %d, want 400", handle, i+1, r.status)
			}
		}
		r := c.post("/login", url.Values{"handle": {handle}, "password": {"correct horse"}})
		if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
			t.Fatalf("%s, 11th attempt: status %d, Retry-After %q; want 429 with Retry-After", handle, r.status, r.header.Get("Retry-After"))
		}
		bodies[handle] = r.body
	}
	if bodies["ada"] != bodies["nobody"] || !strings.Contains(bodies["ada"], "Too many attempts") {
		t.Fatal("the 429 for an existing handle differs from the one for a handle that does not exist")
	}
	// Another handle from the same address is still allowed until the address's own limit.
	c := a.client()
	n := 0
	for ; n < 40; n++ {
		r := c.post("/login", url.Values{"handle": {fmt.Sprintf("h%d", n)}, "password": {"x"}})
		if r.status == http.StatusTooManyRequests {
			break
		}
	}
	if n != 30-22 { // 22 attempts so far from this address
		t.Fatalf("the address limit stopped attempts after %d more, want %d", n, 30-22)
	}
}

func TestSharesAreRateLimitedPerUser(t *testing.T) {
	a := newApp(t)
	freshWindow(t, a, 10*time.Minute, time.Minute)
	c := a.client()
	c.signup("ada")
	for i := range 60 {
		if r := c.post("/share", url.Values{"url": {fmt.Sprintf("https://example.com/%d", i)}}); r.status != http.StatusSeeOther {
			t.Fatalf("share %d: status %d", i+1, r.status)
		}
	}
	r := c.post("/share", url.Values{"url": {"https://example.com/one-more"}})
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Fatalf("61st share in ten minutes: status %d, want 429 with Retry-After", r.status)
	}
	other := a.client()
	other.signup("bob")
	if r := other.post("/share", url.Values{"url": {"https://example.com/bob"}}); r.status != http.StatusSeeOther {
		t.Fatalf("another user's share: status %d", r.status)
	}
}
