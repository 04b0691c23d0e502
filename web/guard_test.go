package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestSecurityHeadersAndBodyCap(t *testing.T) {
	a := newApp(t)
	c := a.client()
	for _, path := range []string{"/", "/login", "/api/timeline", "/nowhere"} {
		h := c.get(path).header
		csp := h.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-eval") ||
			strings.Contains(csp, "script-src 'self' 'unsafe-inline'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: Content-Security-Policy %q", path, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") == "" {
			t.Errorf("%s: X-Content-Type-Options %q, Referrer-Policy %q", path, h.Get("X-Content-Type-Options"), h.Get("Referrer-Policy"))
		}
	}
	if body := c.get("/login").body; strings.Contains(body, "<script>") || strings.Contains(body, " on") && strings.Contains(body, "=\"javascript") {
		t.Error("a page carries inline script")
	}
	c.signup("ada")
	cookie := ""
	r := a.client().post("/signup", url.Values{"handle": {"bob"}, "password": {"correct horse"}})
	for _, v := range r.header.Values("Set-Cookie") {
		if strings.HasPrefix(v, "tributary_session=") {
			cookie = v
		}
	}
	if !strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Lax") {
		t.Errorf("session cookie %q: want HttpOnly and SameSite=Lax", cookie)
	}
	big := strings.Repeat("x", 300<<10)
	if r := c.post("/share", url.Values{"url": {"https://example.com/big"}, "body": {big}}); r.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("a 300 KB share: status %d, want 413", r.status)
	}
	if r := c.get("/u/ada"); strings.Contains(r.body, "example.com/big") {
		t.Fatal("the oversized share was stored")
	}
}
