package linkcard

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// FuzzParsePage feeds any bytes, under any Content-Type, through what a page
// goes through: charset decoding, the tokenizer, JSON-LD and the card.
// Nothing may panic, and the card's text is valid UTF-8.
func FuzzParsePage(f *testing.F) {
	files, _ := filepath.Glob("testdata/*")
	for _, name := range files {
		b, _ := os.ReadFile(name)
		f.Add(b, "text/html")
	}
	f.Add([]byte(`<script type="application/ld+json">[[[[{"@type":"Article","author":{"name":[1,{"x":2}]},"image":[{}]}]]]]</script>`), "text/html; charset=utf-8")
	f.Add([]byte(`<meta name=citation_author content=","><meta property=og:image content="javascript:alert(1)"><title><title></title>`), "text/html; charset=shift_jis")
	f.Add([]byte("\xff\xfe<\x00h\x00"), "")
	base, _ := url.Parse("https://example.com/a/b")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		p := parsePage(decodeHTML(body, contentType))
		c := buildCard(p, &oembed{Title: string(body[:min(len(body), 8)])}, parseJSONLD(p.jsonLD), base)
		for _, s := range append([]string{c.Title, c.Description, c.SiteName, c.Abstract, c.ImageAlt, c.Language}, c.Authors...) {
			if !utf8.ValidString(s) {
				t.Fatalf("card text %q is not UTF-8", s)
			}
		}
		if c.ImageURL != "" {
			if u, err := url.Parse(c.ImageURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
				t.Fatalf("image URL %q is not http(s)", c.ImageURL)
			}
		}
	})
}

// FuzzParseConnectTo checks the flag parser never panics and round-trips.
func FuzzParseConnectTo(f *testing.F) {
	for _, s := range []string{"arxiv.org:443:127.0.0.1:8443", "[::1]:80:[::1]:81", "::a:", "a:1:[b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseConnectTo(s)
		if err != nil {
			return
		}
		if back, err := ParseConnectTo(r.String()); err != nil || back != r {
			t.Fatalf("%q parsed to %+v, whose String %q parses to %+v, %v", s, r, r.String(), back, err)
		}
	})
}
