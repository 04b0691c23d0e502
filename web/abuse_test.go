package web_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"tributary/web"
)

// Abuse: requests made to grow the server or slip past its limits get a bounded outcome.

// Made-up methods add no metric series: 50 requests with 2 KB methods add at most one
// ("other") per route they reach.
func TestAbuseLongMethodsAddNoMetricSeries(t *testing.T) {
	a := newApp(t)
	c := a.client()
	c.get("/")
	series := func() int { return strings.Count(a.metrics(), "tributary_http_request_duration_seconds_count{") }
	before := series()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		m := make([]byte, 2048)
		for i := range m {
			m[i] = byte('A' + rng.IntN(26))
		}
		c.do(string(m), "/", nil, nil)
	}
	body := a.metrics()
	if n := series() - before; n > 1 {
		t.Fatalf("50 made-up methods added %d metric series, want at most 1", n)
	}
	if !strings.Contains(body, `method="other"`) {
		t.Fatal(`no series counts them as method="other"`)
	}
}

// A huge query string is not kept in the anonymous page cache: the next anonymous visitor's
// page, made once for both, carries none of it, nor does the first visitor's.
func TestAbuseHugeQueryStringsStayOutOfCachedPages(t *testing.T) {
	a := newApp(t)
	ada := a.client()
	ada.signup("ada")
	if _, err := a.store.Pool.Exec(t.Context(), "UPDATE users SET vip = true WHERE handle = 'ada'"); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if r := ada.post("/share", url.Values{"url": {fmt.Sprintf("https://example.com/notes/%d", i)}}); r.status != http.StatusSeeOther {
			t.Fatalf("share: %d %s", r.status, r.body)
		}
	}
	junk := strings.Repeat("j", 200<<10)
	first := a.client().get("/?tag=&zzjunk=" + junk + "&_=" + junk)
	second := a.client().get("/")
	for name, r := range map[string]response{"the first visitor": first, "the next visitor": second} {
		if r.status != http.StatusOK {
			t.Fatalf("%s: status %d", name, r.status)
		}
		if strings.Contains(r.body, "zzjunk") || strings.Contains(r.body, "jjjjjjjj") || len(r.body) > 100<<10 {
			t.Errorf("%s's page (%d bytes) carries the first visitor's query string", name, len(r.body))
		}
	}
	if !strings.Contains(second.body, `/feed/new?fencepost=`) {
		t.Fatal("the page has no link to check (its new-items poll)")
	}
}

// Behind a trusted proxy, limits key on the client X-Forwarded-For names (IPv6 clients by
// their /64); from anyone else, X-Forwarded-For is ignored, so it cannot dodge a limit.
func TestAbuseForwardedForKeysLimits(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	trusted := newApp(t, func(c *web.Config) { c.TrustedProxies = proxies })
	untrusted := newApp(t)
	freshWindow(t, trusted, 5*time.Minute, time.Minute)
	login := func(t *testing.T, a *app, from string, i int) int {
		t.Helper()
		return a.client().do("POST", "/login", url.Values{"handle": {fmt.Sprintf("h%d", i)}, "password": {"x"}},
			http.Header{"X-Forwarded-For": {from}}).status
	}
	fill := func(t *testing.T, a *app, from func(i int) string) {
		t.Helper()
		for i := range 30 {
			if s := login(t, a, from(i), i); s != http.StatusBadRequest {
				t.Fatalf("attempt %d from %s: status %d, want 400", i+1, from(i), s)
			}
		}
	}
	for _, tc := range []struct {
		name         string
		a            *app
		from         func(i int) string
		same, others string // another client counted with the first, one counted apart
	}{
		{"trusted IPv4", trusted, func(int) string { return "198.51.100.1" }, "198.51.100.1", "198.51.100.2"},
		{"trusted IPv6 by /64", trusted, func(i int) string { return fmt.Sprintf("2001:db8:0:1::%x", i+1) }, "2001:db8:0:1:ffff::1", "2001:db8:0:2::1"},
		{"untrusted: spoofed headers change nothing", untrusted, func(i int) string { return fmt.Sprintf("203.0.113.%d", i+1) }, "203.0.113.200", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fill(t, tc.a, tc.from)
			if s := login(t, tc.a, tc.same, 99); s != http.StatusTooManyRequests {
				t.Errorf("31st attempt from %s: status %d, want 429", tc.same, s)
			}
			if tc.others != "" {
				if s := login(t, tc.a, tc.others, 99); s != http.StatusBadRequest {
					t.Errorf("first attempt from %s: status %d, want 400 (its own limit)", tc.others, s)
				}
			}
		})
	}
}
