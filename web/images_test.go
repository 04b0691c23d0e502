package web_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"tributary/images"
)

// TestImageServing checks a stored image is served from /img/ with its type, for good
// (immutable, ETag the hash, 304 on revalidation) and never sniffed; unknown images are
// 404 and malformed names 400.
func TestImageServing(t *testing.T) {
	a := newApp(t)
	src := image.NewNRGBA(image.Rect(0, 0, 90, 60))
	for i := range src.Pix {
		src.Pix[i] = 255
	}
	var in bytes.Buffer
	png.Encode(&in, src)
	card, err := images.Card(in.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	clear := image.NewNRGBA(image.Rect(0, 0, 10, 10))
	clear.Set(1, 1, color.NRGBA{1, 2, 3, 4})
	in.Reset()
	png.Encode(&in, clear)
	see, err := images.Card(in.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := a.store.PutImages(context.Background(), card, see); err != nil {
		t.Fatal(err)
	}
	if card.Path() != "/img/"+card.Hash+".jpg" || see.Path() != "/img/"+see.Hash+".png" {
		t.Fatalf("paths %s, %s", card.Path(), see.Path())
	}

	c := a.client()
	for _, tt := range []struct {
		path, ctype string
		body        []byte
	}{
		{card.Path(), "image/jpeg", card.Bytes},
		{"/img/" + card.Hash, "image/jpeg", card.Bytes},
		{see.Path(), "image/png", see.Bytes},
	} {
		r := c.get(tt.path)
		h := r.header
		if r.status != http.StatusOK || r.body != string(tt.body) {
			t.Errorf("%s: status %d, %d bytes; want 200 and the stored %d bytes", tt.path, r.status, len(r.body), len(tt.body))
		}
		if got := h.Get("Content-Type"); got != tt.ctype {
			t.Errorf("%s: Content-Type %q, want %q", tt.path, got, tt.ctype)
		}
		if got := h.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("%s: Cache-Control %q", tt.path, got)
		}
		hash := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(tt.path, "/img/"), ".jpg"), ".png")
		if got := h.Get("ETag"); got != `"`+hash+`"` {
			t.Errorf("%s: ETag %q", tt.path, got)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Content-Encoding") != "" {
			t.Errorf("%s: X-Content-Type-Options %q, Content-Encoding %q", tt.path, h.Get("X-Content-Type-Options"), h.Get("Content-Encoding"))
		}
	}
	if r := c.do("GET", card.Path(), nil, http.Header{"If-None-Match": {`"` + card.Hash + `"`}}); r.status != http.StatusNotModified || r.body != "" {
		t.Errorf("revalidation: status %d with %d bytes, want 304 and none", r.status, len(r.body))
	}

	for _, tt := range []struct {
		path   string
		status int
	}{
		{"/img/" + strings.Repeat("0", 64) + ".jpg", http.StatusNotFound}, // no such image
		{"/img/" + strings.Repeat("0", 64), http.StatusNotFound},
		{"/img/" + card.Hash + ".png", http.StatusNotFound}, // it is a JPEG
		{"/img/" + strings.ToUpper(card.Hash) + ".jpg", http.StatusBadRequest},
		{"/img/" + card.Hash[:63] + ".jpg", http.StatusBadRequest},
		{"/img/" + card.Hash + "0.jpg", http.StatusBadRequest},
		{"/img/" + card.Hash + ".svg", http.StatusBadRequest},
		{"/img/" + card.Hash + ".jpg.png", http.StatusBadRequest},
		{"/img/not-a-hash", http.StatusBadRequest},
		{"/img/" + strings.Repeat("g", 64), http.StatusBadRequest},
	} {
		r := c.get(tt.path)
		if r.status != tt.status {
			t.Errorf("%s: status %d, want %d", tt.path, r.status, tt.status)
		}
		if strings.Contains(r.header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: an error is cached for good: %q", tt.path, r.header.Get("Cache-Control"))
		}
	}
}

// TestImagesOnlyFromOurOrigin checks every answer's Content-Security-Policy lets images
// come from our own origin only: no https: of anywhere, no data:.
func TestImagesOnlyFromOurOrigin(t *testing.T) {
	a := newApp(t)
	c := a.client()
	c.signup("ada")
	for _, path := range []string{"/", "/login", "/u/ada", "/settings", "/api/timeline", "/nowhere", "/img/x", "/preview/a.svg"} {
		csp := c.get(path).header.Get("Content-Security-Policy")
		var imgSrc []string
		for _, d := range strings.Split(csp, ";") {
			if f := strings.Fields(d); len(f) > 0 && f[0] == "img-src" {
				imgSrc = f[1:]
			}
		}
		if strings.Join(imgSrc, " ") != "'self'" {
			t.Errorf("%s: img-src %q in %q, want 'self' alone", path, imgSrc, csp)
		}
	}
}
