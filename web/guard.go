package web

import (
	"net/http"

	"tributary"
)

// maxBody caps request bodies: a share with its text, a batch of dwell events and every
// form fit many times over.
const maxBody = 256 << 10

// contentSecurityPolicy allows our own scripts only (no inline script, no eval), our own
// styles plus inline style attributes (avatar hues), images from our own origin only (a
// reader's browser never tells a linked site what it reads: cards' images are served from
// /img/), and no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self'; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; " +
	"form-action 'self'; frame-ancestors 'none'"

// hsts asks browsers to come back over HTTPS only, for a year (this host only: the
// operator's other subdomains may not all serve HTTPS).
const hsts = "max-age=31536000"

// guard sets the security headers of every answer and caps request bodies.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		h.Set("X-Frame-Options", "DENY")
		if s.isHTTPS(r) {
			h.Set("Strict-Transport-Security", hsts)
		}
		limit := int64(maxBody)
		if r.URL.Path == avatarPath {
			limit = maxAvatarBody
		}
		if r.ContentLength > limit {
			s.fail(w, r, tributary.Errorf(tributary.ETooLarge, "The request is too large (at most %d KB).", limit>>10))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		next.ServeHTTP(w, r)
	})
}
