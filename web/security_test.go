package web_test

import (
	"bufio"
	"errors"
	"html"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"tributary/web"
)

var loopbackProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// Failed log-ins from one address do not lock the account's owner out: the handle's limit
// counts per address.
func TestNobodyCanLockAnotherOutOfTheirAccount(t *testing.T) {
	a := newApp(t, func(c *web.Config) { c.TrustedProxies = loopbackProxies })
	freshWindow(t, a, 5*time.Minute, time.Minute)
	a.client().signup("ada")
	from := func(addr string) http.Header { return http.Header{"X-Forwarded-For": {addr}} }
	attacker := a.client()
	for i := range 10 {
		if r := attacker.do("POST", "/login", url.Values{"handle": {"ada"}, "password": {"guess"}}, from("203.0.113.66")); r.status != http.StatusBadRequest {
			t.Fatalf("guess %d: status %d, want 400", i+1, r.status)
		}
	}
	if r := attacker.do("POST", "/login", url.Values{"handle": {"ada"}, "password": {"guess"}}, from("203.0.113.66")); r.status != http.StatusTooManyRequests {
		t.Fatalf("11th guess from one address: status %d, want 429", r.status)
	}
	if r := a.client().do("POST", "/login", url.Values{"handle": {"ada"}, "password": {"correct horse"}}, from("198.51.100.7")); r.status != http.StatusSeeOther {
		t.Fatalf("ada logging in from her own address: status %d, want 303 (not locked out)", r.status)
	}
}

// Over HTTPS (here: a trusted proxy's X-Forwarded-Proto) answers carry HSTS and the session
// cookie is a Secure __Host- cookie; the plain name is not read there. Over plain HTTP, or
// when the header comes from anyone else, nothing changes.
func TestHTTPSAnswersAndCookies(t *testing.T) {
	https := http.Header{"X-Forwarded-Proto": {"https"}}
	signup := func(a *app) response {
		t.Helper()
		r := a.client().do("POST", "/signup", url.Values{"handle": {"ada"}, "password": {"correct horse"}}, https)
		if r.status != http.StatusSeeOther {
			t.Fatalf("signup: status %d", r.status)
		}
		return r
	}
	cookieValue := func(r response, name string) string {
		for _, c := range (&http.Response{Header: r.header}).Cookies() {
			if c.Name == name {
				return c.Value
			}
		}
		return ""
	}

	a := newApp(t, func(c *web.Config) { c.TrustedProxies = loopbackProxies })
	r := signup(a)
	set := r.header.Get("Set-Cookie")
	if !strings.HasPrefix(set, "__Host-tributary_session=") || !strings.Contains(set, "; Secure") ||
		!strings.Contains(set, "; Path=/") || strings.Contains(set, "Domain=") {
		t.Fatalf("session cookie over HTTPS: %q, want a Secure __Host- cookie on Path=/ without Domain", set)
	}
	if h := r.header.Get("Strict-Transport-Security"); !strings.Contains(h, "max-age=") {
		t.Fatalf("Strict-Transport-Security %q over HTTPS", h)
	}
	token := cookieValue(r, "__Host-tributary_session")
	feed := func(cookie string, h http.Header) string {
		h = h.Clone()
		h.Set("Cookie", cookie)
		return a.client().do("GET", "/", nil, h).body
	}
	if b := feed("__Host-tributary_session="+token, https); !strings.Contains(b, "Your feed") {
		t.Fatal("the __Host- session cookie does not sign in over HTTPS")
	}
	if b := feed("tributary_session="+token, https); strings.Contains(b, "Your feed") {
		t.Fatal("a plain session cookie (which any subdomain or plain-HTTP answer could plant) signs in over HTTPS")
	}

	// Plain HTTP, and the header from a proxy that is not trusted: as before.
	for name, a := range map[string]*app{"untrusted proxy": newApp(t), "plain HTTP": newApp(t, func(c *web.Config) { c.TrustedProxies = loopbackProxies })} {
		h := https
		if name == "plain HTTP" {
			h = http.Header{}
		}
		r := a.client().do("POST", "/signup", url.Values{"handle": {"ada"}, "password": {"correct horse"}}, h)
		set := r.header.Get("Set-Cookie")
		if r.status != http.StatusSeeOther || !strings.HasPrefix(set, "tributary_session=") || strings.Contains(set, "Secure") {
			t.Errorf("%s: status %d, cookie %q; want a plain session cookie", name, r.status, set)
		}
		if hs := r.header.Get("Strict-Transport-Security"); hs != "" {
			t.Errorf("%s: Strict-Transport-Security %q", name, hs)
		}
		if b := a.client().do("GET", "/", nil, http.Header{"Cookie": {"tributary_session=" + cookieValue(r, "tributary_session")}}).body; !strings.Contains(b, "Your feed") {
			t.Errorf("%s: the session cookie does not sign in", name)
		}
	}
}

// After log-in, next= sends the browser only to a path on this site.
func TestLoginNextStaysOnTheSite(t *testing.T) {
	a := newApp(t)
	a.client().signup("ada")
	for next, want := range map[string]string{"/p/1": "/p/1", "/\t/evil.com": "/", "/\\evil.com": "/", "//evil.com": "/",
		"https://evil.com": "/", "/%09/evil.com": "/"} {
		r := a.client().post("/login", url.Values{"handle": {"ada"}, "password": {"correct horse"}, "next": {next}})
		if r.status != http.StatusSeeOther || r.location != want {
			t.Errorf("next=%q: status %d, Location %q; want 303 to %q", next, r.status, r.location, want)
		}
	}
}

// A client's X-Request-Id is kept only when it is a short token; anything else is replaced.
func TestRequestIDsAreTokens(t *testing.T) {
	a := newApp(t)
	for id, kept := range map[string]bool{"abc-123_x.y": true, "<script>alert(1)</script>": false,
		strings.Repeat("a", 65): false, "a\"b'c;d=e": false, "short": false} {
		got := a.client().do("GET", "/healthz", nil, http.Header{"X-Request-Id": {id}}).header.Get("X-Request-Id")
		if (got == id) != kept || len(got) < 8 || len(got) > 64 {
			t.Errorf("X-Request-Id %q answered as %q; kept %v, want %v", id, got, got == id, kept)
		}
	}
}

// A live stream, once detached from net/http, reads its connection only to notice the page
// go: a page sends nothing after its request, so anything it sends ends the stream.
func TestDetachedStreamEndsWhenThePageSendsMore(t *testing.T) {
	a := newApp(t)
	slot := filterSlotRe.FindString(a.client().get("/").body)
	connect := html.UnescapeString(attr(slot, "sse-connect"))
	if connect == "" {
		t.Fatalf("the front page has no live stream: %q", slot)
	}
	conn, err := net.Dial("tcp", a.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second)) // a failure, not a measure: the stream would go on
	io.WriteString(conn, "GET "+connect+" HTTP/1.1\r\nHost: tributary\r\n\r\n")
	br := bufio.NewReader(conn)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended before its first event: %v", err)
		}
		if strings.HasPrefix(line, "retry:") {
			break
		}
	}
	io.WriteString(conn, strings.Repeat("x", 4096))
	if _, err := io.Copy(io.Discard, br); err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatal("the stream goes on after its page sent more bytes")
		}
	}
}
