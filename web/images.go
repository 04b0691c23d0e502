package web

import (
	"bytes"
	"net/http"
	"time"

	"tributary"
)

// immutable is the cache lifetime of what never changes at its URL: an image is named by
// the hash of its bytes.
const immutable = "public, max-age=31536000, immutable"

// image serves a stored image (a link card's thumbnail, an avatar) from our own origin, so
// a reader's browser never asks another site for it. /img/{hash}.{ext} or /img/{hash}.
func (s *Server) image(w http.ResponseWriter, r *http.Request) {
	hash, ext, err := tributary.ParseImageName(r.PathValue("name"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	img, err := s.store.Image(r.Context(), hash)
	if err == nil && ext != "" && ext != img.Ext() {
		err = tributary.Errorf(tributary.ENotFound, "No such image.")
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", img.ContentType)
	h.Set("Cache-Control", immutable)
	h.Set("ETag", `"`+img.Hash+`"`)
	h.Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(img.Bytes)) // answers If-None-Match with 304
}
