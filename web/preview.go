package web

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"strings"
)

// preview draws a deterministic placeholder preview image for demo and seeded posts, so the
// app shows images without reaching the internet.
func (s *Server) preview(w http.ResponseWriter, r *http.Request) {
	key := strings.TrimSuffix(r.PathValue("key"), ".svg")
	if key == "" || len(key) > 64 {
		s.notFound(w, r)
		return
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	v := h.Sum32()
	hue1, hue2 := v%360, (v/360)%360
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200" viewBox="0 0 320 200">`+
		`<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(%d,60%%,55%%)"/>`+
		`<stop offset="1" stop-color="hsl(%d,60%%,35%%)"/></linearGradient></defs>`+
		`<rect width="320" height="200" fill="url(#g)"/><circle cx="%d" cy="%d" r="%d" fill="rgba(255,255,255,.18)"/></svg>`,
		hue1, hue2, 60+v%200, 40+v%120, 30+v%50)
}
