package web

import (
	"compress/gzip"
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"

	"tributary/feed"
	"tributary/static"
)

// Cache lifetimes. Pages made for one reader are private and revalidated on every use
// ("no-cache", never "no-store": that would keep them out of the browser's back-forward
// cache, and going back to a long-scrolled feed must restore it at once). The anonymous
// front page may be kept briefly by shared caches: as briefly as a change of access may take
// to reach them.
const (
	privatePages = "private, no-cache"
	anonPages    = "public, max-age=10"
)

// serveAnon writes an anonymous page made once: 304 when the client holds it already, the
// gzip form (compressed once) when the client accepts it. It varies on Cookie, so no shared
// cache hands it to a signed-in reader, and on HX-Request (a fragment and the page of one
// URL differ).
func serveAnon(w http.ResponseWriter, r *http.Request, ctype string, enc *feed.Encoded) {
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Cache-Control", anonPages)
	h.Set("ETag", enc.ETag)
	h["Vary"] = []string{"Cookie, HX-Request, Accept-Encoding"}
	if static.ETagMatches(r.Header.Get("If-None-Match"), enc.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if static.AcceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		w.Write(enc.Gzip())
		return
	}
	w.Write(enc.Body)
}

// compressible lists what is compressed on the way out; never text/event-stream, which must
// reach the reader event by event.
var compressible = []string{"text/html", "application/json", "text/css", "text/javascript", "application/javascript",
	"image/svg+xml", "text/plain"}

// onePacket is about what one TCP segment carries on an Ethernet path (1,500 bytes less
// headers): a smaller answer arrives in one packet compressed or not.
const onePacket = 1400

// compress gzips answers of the types above when the client accepts it (answers that are
// compressed already, like cached pages and static files, pass as they are), and marks
// every answer private and revalidated unless its handler says otherwise.
func compress(next http.Handler) http.Handler {
	// The fastest level: answers made per request are compressed per request (measured: the
	// default level added 0.2-0.4 ms of CPU to a 30 KB page of JSON); cached anonymous pages
	// and static files are compressed once, harder, and pass through as they are. An answer
	// that fits one packet goes as it is: compressing it saves no round trip (measured: the
	// unread badge's 600 bytes spent a tenth of the request's CPU in gzip).
	gz, err := gzhttp.NewWrapper(gzhttp.ContentTypes(compressible), gzhttp.MinSize(onePacket), gzhttp.CompressionLevel(gzip.BestSpeed))
	if err != nil {
		panic(err)
	}
	wrapped := gz(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, static.Prefix) {
			w.Header().Set("Cache-Control", privatePages)
		}
		wrapped.ServeHTTP(w, r)
	})
}
