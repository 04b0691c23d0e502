package web

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"tributary"
)

// limit is a rate limit: at most max hits of one subject per window, counted in PostgreSQL
// so that every instance counts into the same window.
type limit struct {
	name   string
	max    int
	window time.Duration
}

// The limits. Log-in is limited per client address and per handle from one address (whether
// or not the handle exists: the answer is the same): guessing one account's password is as
// slow as any, and nobody can lock another person out of theirs. Sign-up per address; shares
// and comments per user; so are the actions that wake open pages on every instance (follow
// and unfollow, ban and unban, like and unlike count together), at many times what a person
// does by hand. Addresses are the client's (clientKey), not a proxy's.
var (
	loginPerAddress  = limit{"login-addr", 30, 5 * time.Minute}
	loginPerHandle   = limit{"login-handle-addr", 10, 5 * time.Minute}
	signupPerAddress = limit{"signup-addr", 10, time.Hour}
	passwordPerUser  = limit{"password-user", 10, 5 * time.Minute} // a password change's current password
	sharesPerUser    = limit{"share-user", 60, 10 * time.Minute}
	commentsPerUser  = limit{"comment-user", 120, 10 * time.Minute}
	followsPerUser   = limit{"follow-user", 120, 10 * time.Minute}
	bansPerUser      = limit{"ban-user", 60, 10 * time.Minute}
	likesPerUser     = limit{"like-user", 300, 10 * time.Minute}
	previewsPerUser  = limit{"preview-user", 60, 10 * time.Minute} // a preview may fetch a page
)

// limited counts a hit of subject against l and, past the limit, answers 429 with
// Retry-After and returns true. A limit that cannot be counted (the database is down) lets
// the request through to fail on its own.
func (s *Server) limited(w http.ResponseWriter, r *http.Request, l limit, subject string) bool {
	return s.limitedBy(w, r, l, subject, 1)
}

// limitedBy is limited for n hits at once (a batch of events counts each of its events).
func (s *Server) limitedBy(w http.ResponseWriter, r *http.Request, l limit, subject string, n int) bool {
	max := int(float64(l.max) * s.rateScale)
	hits, retry, err := s.store.Hit(r.Context(), l.name+":"+subject, n, l.window)
	if err != nil || hits <= max {
		return false
	}
	w.Header().Set("Retry-After", fmt.Sprint(int(retry.Seconds())))
	s.fail(w, r, tributary.Errorf(tributary.ETooMany, "Too many attempts. Please wait %s and try again.", wait(retry)))
	return true
}

// wait says a duration as people do: "a minute", "4 minutes".
func wait(d time.Duration) string {
	switch m := int((d + time.Minute - 1) / time.Minute); {
	case d < time.Minute:
		return "a few seconds"
	case m == 1:
		return "a minute"
	default:
		return fmt.Sprintf("%d minutes", m)
	}
}

// handleKey is a handle as a rate-limit subject: case-insensitive, bounded.
func handleKey(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if len(h) > 64 {
		h = h[:64]
	}
	return h
}
