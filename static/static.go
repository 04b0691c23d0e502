// Package static serves Tributary's own CSS and JavaScript and the vendored front-end files
// the Makefile copies from npm packages (static/js/vendor, not committed).
package static

import (
	"embed"
	"net/http"
)

//go:embed css js
var files embed.FS

// Handler serves the embedded files with long-lived caching headers for vendored files.
func Handler() http.Handler {
	fs := http.FileServerFS(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		fs.ServeHTTP(w, r)
	})
}
