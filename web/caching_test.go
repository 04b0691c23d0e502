package web_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

func gunzip(t *testing.T, s string) string {
	t.Helper()
	zr, err := gzip.NewReader(strings.NewReader(s))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var gzipAccepted = http.Header{"Accept-Encoding": {"gzip, deflate, br"}}

func TestAnonymousFrontPageIsCompressedOnceAndRevalidated(t *testing.T) {
	a := newApp(t)
	c := a.client()
	c.get("/") // the first answer is computed; from then on the page is served from the cache
	plain := c.do("GET", "/", nil, http.Header{"Accept-Encoding": {"identity"}})
	if plain.status != 200 || plain.header.Get("Content-Encoding") != "" || !strings.HasPrefix(plain.body, "<!doctype html>") {
		t.Fatalf("identity: status %d, encoding %q, body %.40q", plain.status, plain.header.Get("Content-Encoding"), plain.body)
	}
	zipped := c.do("GET", "/", nil, gzipAccepted)
	if zipped.header.Get("Content-Encoding") != "gzip" || gunzip(t, zipped.body) != plain.body {
		t.Fatalf("gzip: encoding %q; the gzip body is not the page", zipped.header.Get("Content-Encoding"))
	}
	if len(zipped.body) >= len(plain.body) {
		t.Errorf("gzip body %d bytes for a %d-byte page", len(zipped.body), len(plain.body))
	}
	etag := zipped.header.Get("ETag")
	if etag == "" || plain.header.Get("ETag") != etag {
		t.Fatalf("ETag %q (gzip) and %q (identity): want one tag for both forms", etag, plain.header.Get("ETag"))
	}
	if cc := zipped.header.Get("Cache-Control"); !strings.HasPrefix(cc, "public, max-age=") {
		t.Errorf("anonymous page Cache-Control %q, want a short public lifetime", cc)
	}
	if v := strings.Join(zipped.header.Values("Vary"), ","); !strings.Contains(v, "Cookie") || !strings.Contains(v, "Accept-Encoding") {
		t.Errorf("Vary %q: want Cookie and Accept-Encoding", v)
	}
	again := c.do("GET", "/", nil, http.Header{"If-None-Match": {etag}, "Accept-Encoding": {"gzip"}})
	if again.status != http.StatusNotModified || again.body != "" {
		t.Fatalf("If-None-Match with the page's tag: status %d, %d bytes; want 304 and nothing", again.status, len(again.body))
	}
	if r := c.do("GET", "/", nil, http.Header{"If-None-Match": {`W/"other"`}}); r.status != 200 {
		t.Fatalf("If-None-Match with another tag: status %d, want 200", r.status)
	}
	if r := c.do("GET", "/", nil, http.Header{"Accept-Encoding": {"gzip;q=0, identity"}}); r.header.Get("Content-Encoding") != "" {
		t.Fatal("gzip;q=0 got gzip")
	}
	js := c.do("GET", "/api/timeline", nil, gzipAccepted)
	if js.header.Get("Content-Encoding") != "gzip" || !strings.HasPrefix(gunzip(t, js.body), `{"items"`) {
		t.Fatalf("anonymous JSON: encoding %q", js.header.Get("Content-Encoding"))
	}
}

func TestLoggedInPagesArePrivateAndCompressed(t *testing.T) {
	a := newApp(t)
	c := a.client()
	c.signup("ada")
	for _, path := range []string{"/", "/settings", "/u/ada"} {
		r := c.do("GET", path, nil, gzipAccepted)
		if r.status != 200 {
			t.Fatalf("%s: status %d", path, r.status)
		}
		if cc := r.header.Get("Cache-Control"); cc != "private, no-cache" {
			t.Errorf("%s: Cache-Control %q, want private, no-cache (never no-store: the back-forward cache)", path, cc)
		}
		if r.header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s: not compressed for a client that accepts gzip", path)
		} else {
			gunzip(t, r.body)
		}
	}
}

func TestStaticFilesUnderContentHashes(t *testing.T) {
	a := newApp(t)
	c := a.client()
	page := c.get("/login").body
	css := regexp.MustCompile(`href="(/static/css/app\.[0-9a-f]{10}\.css)"`).FindStringSubmatch(page)
	js := regexp.MustCompile(`src="(/static/js/vendor/htmx\.min\.[0-9a-f]{10}\.js)"`).FindStringSubmatch(page)
	icon := regexp.MustCompile(`href="(/static/img/favicon\.[0-9a-f]{10}\.svg)"`).FindStringSubmatch(page)
	if css == nil || js == nil || icon == nil {
		t.Fatalf("the page does not link hashed static files: %v %v %v", css, js, icon)
	}
	for _, u := range []string{css[1], js[1], icon[1]} {
		r := c.do("GET", u, nil, gzipAccepted)
		if r.status != 200 || r.header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("%s: status %d, Cache-Control %q; want 200, immutable", u, r.status, r.header.Get("Cache-Control"))
		}
		if r.header.Get("Content-Encoding") != "gzip" && u != icon[1] { // the icon is too small to gain
			t.Errorf("%s: not compressed", u)
		}
	}
	// A page rendered by another version of the site names another hash: still served, not
	// for a year.
	stale := regexp.MustCompile(`\.[0-9a-f]{10}\.css$`).ReplaceAllString(css[1], ".0123456789.css")
	r := c.do("GET", stale, nil, http.Header{"Accept-Encoding": {"identity"}})
	if r.status != 200 || strings.Contains(r.header.Get("Cache-Control"), "immutable") || !strings.Contains(r.body, ".card") {
		t.Fatalf("stale hash: status %d, Cache-Control %q", r.status, r.header.Get("Cache-Control"))
	}
	if r := c.get("/static/css/nothing.0123456789.css"); r.status != 404 {
		t.Fatalf("unknown static file: status %d", r.status)
	}
	ico := c.get("/favicon.ico")
	if ico.status != 200 || ico.header.Get("Content-Type") != "image/x-icon" || !bytes.HasPrefix([]byte(ico.body), []byte{0, 0, 1, 0}) {
		t.Fatalf("/favicon.ico: status %d, type %q", ico.status, ico.header.Get("Content-Type"))
	}
}

func TestPagesCarryTheirDescriptionAndPreviewTags(t *testing.T) {
	a := newApp(t)
	c := a.client()
	c.signup("ada")
	c.post("/groups", url.Values{"name": {"lab"}, "title": {"The Lab"}, "access": {"public"}})
	home := c.get("/").body
	if !strings.Contains(home, `<meta name="description" content="`) || !strings.Contains(home, `name="theme-color"`) ||
		!strings.Contains(home, `<html lang="en">`) {
		t.Fatal("the home page lacks its description, theme color or language")
	}
	for path, title := range map[string]string{"/u/ada": "ada (@ada)", "/g/lab": "The Lab"} {
		b := a.client().get(path).body
		for _, tag := range []string{`property="og:title" content="` + title, `property="og:url" content="http://`,
			`name="twitter:card" content="summary"`, `property="og:description"`} {
			if !strings.Contains(b, tag) {
				t.Errorf("%s: no %s", path, tag)
			}
		}
	}
}
