// Package static serves Tributary's own CSS, JavaScript and images and the vendored
// front-end files the Makefile copies from npm packages (static/js/vendor, not committed).
//
// Every file is served under a name carrying a hash of its content, computed at start
// (URL("css/app.css") is "/static/css/app.1a2b3c4d5e.css"), with a year-long immutable
// lifetime: a changed file gets a new name. A request for a name with another hash (a page
// rendered by an older or newer instance during a rolling deploy) still gets the file, for
// a short while only. Compressible files are gzipped once, at start.
package static

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed css js img
var files embed.FS

// Vendored are the third-party files every page loads. The Makefile copies them from npm
// packages before it builds (make build), so a binary from a plain `go build` lacks them.
var Vendored = []string{"js/vendor/htmx.min.js", "js/vendor/sse.min.js"}

// Check tells whether this binary holds every file its pages load; without them every page
// would fail, so the server refuses to start instead.
func Check() error { return check(byName) }

func check(have map[string]*file) error {
	var missing []string
	for _, name := range Vendored {
		if have[name] == nil {
			missing = append(missing, "static/"+name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("this binary lacks %s: build it with `make build`, which copies them from npm first", strings.Join(missing, " and "))
	}
	return nil
}

// Prefix is where the handler is mounted.
const Prefix = "/static/"

const (
	immutable = "public, max-age=31536000, immutable"
	shortLife = "public, max-age=300" // unhashed or stale names: revalidated soon
)

type file struct {
	name    string // "css/app.css"
	hashed  string // "css/app.1a2b3c4d5e.css"
	ctype   string
	body    []byte
	gzipped []byte // nil: not worth compressing
	etag    string
	modtime time.Time
}

var byName, byHashed = load()

func load() (map[string]*file, map[string]*file) {
	names, hashed := map[string]*file{}, map[string]*file{}
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(files, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		h := hex.EncodeToString(sum[:5])
		ext := path.Ext(p)
		f := &file{name: p, hashed: strings.TrimSuffix(p, ext) + "." + h + ext, ctype: mime.TypeByExtension(ext),
			body: b, etag: `"` + h + `"`}
		if f.ctype == "" {
			f.ctype = "application/octet-stream"
		}
		if compressible(f.ctype) && len(b) > 512 {
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			zw.Write(b)
			zw.Close()
			if buf.Len() < len(b) {
				f.gzipped = buf.Bytes()
			}
		}
		names[p], hashed[f.hashed] = f, f
		return nil
	})
	if err != nil {
		panic("static: " + err.Error())
	}
	return names, hashed
}

func compressible(ctype string) bool {
	for _, t := range []string{"text/", "application/javascript", "application/json", "image/svg+xml"} {
		if strings.HasPrefix(ctype, t) {
			return true
		}
	}
	return false
}

// URL is the content-hashed URL of a file ("css/app.css"); it panics on a name that is not
// embedded, so a typo fails the first render in tests rather than a browser's request.
func URL(name string) string {
	f, ok := byName[name]
	if !ok {
		panic("static: no file " + name)
	}
	return Prefix + f.hashed
}

// Handler serves the files under Prefix (mount it there, prefix included).
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, Prefix)
		f, life := byHashed[name], immutable
		if f == nil {
			f, life = byName[unhash(name)], shortLife
		}
		if f == nil {
			http.NotFound(w, r)
			return
		}
		serve(w, r, f, life)
	})
}

// Favicon serves /favicon.ico: the SVG icon's picture as an ICO file, for the clients that
// ask for it by that name.
func Favicon() http.Handler {
	ico := &file{name: "favicon.ico", ctype: "image/x-icon", body: faviconICO()}
	sum := sha256.Sum256(ico.body)
	ico.etag = `"` + hex.EncodeToString(sum[:5]) + `"`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { serve(w, r, ico, "public, max-age=86400") })
}

func serve(w http.ResponseWriter, r *http.Request, f *file, life string) {
	h := w.Header()
	h.Set("Cache-Control", life)
	h.Set("ETag", f.etag)
	h.Set("Content-Type", f.ctype)
	h.Set("X-Content-Type-Options", "nosniff")
	body := f.body
	if f.gzipped != nil {
		h.Add("Vary", "Accept-Encoding")
		if AcceptsGzip(r) {
			h.Set("Content-Encoding", "gzip")
			body = f.gzipped
		}
	}
	if ETagMatches(r.Header.Get("If-None-Match"), f.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
}

// unhash drops a hash from a file name: "css/app.0123456789.css" is "css/app.css".
func unhash(name string) string {
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	if i := strings.LastIndexByte(stem, '.'); i >= 0 && len(stem)-i-1 == 10 {
		return stem[:i] + ext
	}
	return name
}

// AcceptsGzip reports whether the request's Accept-Encoding admits gzip.
func AcceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}

// ETagMatches reports whether an If-None-Match header names etag (weakly compared).
func ETagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	if strings.TrimSpace(header) == "*" {
		return true
	}
	want := strings.TrimPrefix(etag, "W/")
	for _, t := range strings.Split(header, ",") {
		if strings.TrimPrefix(strings.TrimSpace(t), "W/") == want {
			return true
		}
	}
	return false
}
