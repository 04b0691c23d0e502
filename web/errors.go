package web

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"tributary"
	"tributary/db"
	"tributary/views"
)

// While the database cannot be reached, pages answer 503 with this message and ask to be
// retried after a moment.
const (
	unavailableMessage = "Tributary is briefly unavailable: it is reconnecting to its database. Please try again in a moment."
	retryAfter         = "2"
)

// outageLog logs a database outage once a second, with how many requests it refused,
// rather than once per request.
type outageLog struct {
	mu      sync.Mutex
	last    time.Time
	refused int
}

func (o *outageLog) note(ctx context.Context, log *slog.Logger, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.refused++
	if time.Since(o.last) >= time.Second {
		log.WarnContext(ctx, "database unavailable: answering 503", "refused", o.refused, "err", err)
		o.last, o.refused = time.Now(), 0
	}
}

// statusClientClosed is what a request whose client went away is counted as.
const statusClientClosed = 499

var errCSRF = tributary.Errorf(tributary.EForbidden, "This request came from another site and was refused.")

// statusOf maps an application error code to its HTTP status: the one place that does.
func statusOf(code string) int {
	switch code {
	case tributary.EInvalid:
		return http.StatusBadRequest
	case tributary.EUnauthorized:
		return http.StatusUnauthorized
	case tributary.EForbidden:
		return http.StatusForbidden
	case tributary.ENotFound:
		return http.StatusNotFound
	case tributary.EConflict:
		return http.StatusConflict
	case tributary.ETooMany:
		return http.StatusTooManyRequests
	case tributary.ETooLarge:
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusInternalServerError
}

// fail answers a request with err: internal errors are logged once here and shown as
// "Internal error"; application errors show their safe message.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := tributary.ErrorCode(err)
	status := statusOf(code)
	msg := tributary.ErrorMessage(err)
	if status == http.StatusInternalServerError && r.Context().Err() != nil && errors.Is(err, context.Canceled) {
		// Not a bug: the client went away (a page load aborted); nobody reads the answer,
		// and metrics count it as nginx's 499 "client closed request", not as a 500.
		s.log.InfoContext(r.Context(), "request cancelled", "method", r.Method, "path", r.URL.Path)
		w.WriteHeader(statusClientClosed)
		return
	}
	if status == http.StatusInternalServerError && db.Unavailable(err) {
		// Not a bug: the database is restarting or unreachable. Say so, and when to retry.
		status, msg = http.StatusServiceUnavailable, unavailableMessage
		w.Header().Set("Retry-After", retryAfter)
		s.outage.note(r.Context(), s.log, err)
	} else if status == http.StatusInternalServerError {
		s.log.ErrorContext(r.Context(), "internal error", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	if wantsJSON(r) {
		body := map[string]string{"error": msg}
		if status >= 500 {
			body["request_id"] = requestID(r.Context())
		}
		writeJSON(w, status, body)
		return
	}
	if isHTMX(r) && status == http.StatusBadRequest { // htmx swaps 400s in place (see the layout's htmx-config)
		s.render(w, r, status, views.InlineError(msg))
		return
	}
	p := views.Page{Title: views.StatusTitle(status), User: currentUser(r.Context()), Now: s.now()}
	if status >= 500 {
		p.RequestID = requestID(r.Context())
	}
	s.render(w, r, status, views.ErrorPage(p, status, msg))
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.fail(w, r, tributary.Errorf(tributary.ENotFound, "There is no page at %s.", r.URL.Path))
}

func wantsJSON(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/api/") || strings.Contains(r.Header.Get("Accept"), "application/json")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
