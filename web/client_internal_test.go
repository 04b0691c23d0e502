package web

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The client of a request is the connection's, unless the connection comes from a trusted
// proxy: then the right-most address of X-Forwarded-For that is not itself a trusted proxy.
func TestPeerOfBelievesOnlyTrustedProxies(t *testing.T) {
	trusted, err := ParseTrustedProxies("10.0.0.0/8, 192.168.1.1,fd00::/8")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, remote, xff, proto string
		tls                      bool
		addr, key                string
		https                    bool
	}{
		{"direct", "203.0.113.9:5000", "", "", false, "203.0.113.9", "203.0.113.9", false},
		{"direct TLS", "203.0.113.9:5000", "", "", true, "203.0.113.9", "203.0.113.9", true},
		{"untrusted peer's headers are ignored", "203.0.113.9:5000", "198.51.100.1", "https", false, "203.0.113.9", "203.0.113.9", false},
		{"trusted proxy", "10.1.2.3:5000", "198.51.100.1", "https", false, "198.51.100.1", "198.51.100.1", true},
		{"a client's own X-Forwarded-For is left of the proxy's", "10.1.2.3:5000", "1.2.3.4, 198.51.100.1", "http", false, "198.51.100.1", "198.51.100.1", false},
		{"two trusted proxies", "10.1.2.3:5000", "198.51.100.1, 192.168.1.1", "", false, "198.51.100.1", "198.51.100.1", false},
		{"every hop trusted", "10.1.2.3:5000", "10.9.9.9", "", false, "10.9.9.9", "10.9.9.9", false},
		{"garbage after the client", "10.1.2.3:5000", "198.51.100.1, not-an-address", "", false, "10.1.2.3", "10.1.2.3", false},
		{"no header from a trusted proxy", "10.1.2.3:5000", "", "", false, "10.1.2.3", "10.1.2.3", false},
		{"nearest proxy's proto", "10.1.2.3:5000", "198.51.100.1", "http, https", false, "198.51.100.1", "198.51.100.1", true},
		{"IPv6 clients by their /64", "[2001:db8:1:2:aaaa::1]:5000", "", "", false, "2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64", false},
		{"IPv6 behind an IPv6 proxy", "[fd00::5]:443", "2001:db8:1:2::7", "https", false, "2001:db8:1:2::7", "2001:db8:1:2::/64", true},
		{"IPv4-mapped", "[::ffff:203.0.113.9]:5000", "", "", false, "203.0.113.9", "203.0.113.9", false},
		{"unreadable remote", "@", "198.51.100.1", "https", false, "invalid IP", "unknown", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.remote
			if tc.xff != "" {
				r.Header.Set("X-Forwarded-For", tc.xff)
			}
			if tc.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tc.proto)
			}
			if tc.tls {
				r.TLS = &tls.ConnectionState{}
			}
			p := peerOf(r, trusted)
			if p.addr.String() != tc.addr || p.key() != tc.key || p.https != tc.https {
				t.Fatalf("got %s (key %s, https %v), want %s (key %s, https %v)", p.addr, p.key(), p.https, tc.addr, tc.key, tc.https)
			}
		})
	}
	if _, err := ParseTrustedProxies("10.0.0.0/8,nonsense"); err == nil {
		t.Error("a range that does not parse was accepted")
	}
}

// Only a path on this site is a place to send a browser back to.
func TestLocalPathRefusesOtherSites(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/p/12", "/p/12"},
		{"/u/ada?tab=likes#c3", "/u/ada?tab=likes#c3"},
		{"/search?q=a%20b", "/search?q=a%20b"},
		{"", "/"},
		{"p/12", "/"},
		{"//evil.com", "/"},
		{"/\t/evil.com", "/"},
		{"/\n/evil.com", "/"},
		{"/\r\n/evil.com", "/"},
		{"/\\evil.com", "/"},
		{"/\\/evil.com", "/"},
		{"/%5Cevil.com", "/"},
		{"/%09/evil.com", "/"},
		{"https://evil.com/", "/"},
		{"javascript:alert(1)", "/"},
		{"/x\x00y", "/"},
		{"/" + strings.Repeat("a", 2001), "/"},
	} {
		if got := localPath(tc.in, "/"); got != tc.want {
			t.Errorf("localPath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMethodLabelsAreAFixedSet(t *testing.T) {
	for in, want := range map[string]string{"GET": "GET", "POST": "POST", "DELETE": "DELETE", "get": "other",
		"PROPFIND": "other", strings.Repeat("X", 20000): "other"} {
		if got := methodLabel(in); got != want {
			t.Errorf("methodLabel(%.20q) = %q, want %q", in, got, want)
		}
	}
}

// The site's http.Server bounds how long a client may take to send a request and how long
// an idle connection is kept.
func TestHTTPServerHasTimeouts(t *testing.T) {
	hs := (&Server{metrics: &Metrics{}}).httpServerFor(http.NotFoundHandler())
	if hs.ReadHeaderTimeout <= 0 || hs.ReadTimeout <= 0 || hs.IdleTimeout <= 0 {
		t.Fatalf("ReadHeaderTimeout %v, ReadTimeout %v, IdleTimeout %v: want all set", hs.ReadHeaderTimeout, hs.ReadTimeout, hs.IdleTimeout)
	}
}
