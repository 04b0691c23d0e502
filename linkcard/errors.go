package linkcard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"code.dny.dev/ssrf"
)

// Reason says why a fetch failed, in a few words a job can store and back off on.
type Reason string

// The reasons a fetch fails.
const (
	ReasonBadURL      Reason = "bad url"            // not parseable, or not http(s)
	ReasonRefused     Reason = "refused address"    // the address policy refused the host, address or port
	ReasonTooLarge    Reason = "too large"          // the body passed its cap (after decompression)
	ReasonTimeout     Reason = "timeout"            // connect or overall deadline passed
	ReasonRedirects   Reason = "too many redirects" // more than Config.MaxRedirects
	ReasonLoop        Reason = "redirect loop"      // a redirect came back to a URL already visited
	ReasonStatus      Reason = "bad status"         // a non-2xx answer (see Error.Status)
	ReasonNotHTML     Reason = "not html"           // a page answered another content type
	ReasonBadBody     Reason = "bad body"           // undecodable JSON, unknown content encoding
	ReasonUnreachable Reason = "unreachable"        // DNS or connection failure
	ReasonCanceled    Reason = "canceled"           // the caller's context ended
)

// Error is every error the fetcher returns: a Reason to record, the URL it
// concerned and, for ReasonStatus, the HTTP status.
type Error struct {
	Reason Reason
	URL    string
	Status int
	// RetryAfter is the wait a 429 or 503 answer asked for, if any.
	RetryAfter time.Duration
	Err        error // the underlying error, if any
}

func (e *Error) Error() string {
	msg := "linkcard: " + string(e.Reason)
	if e.Status != 0 {
		msg += fmt.Sprintf(" %d", e.Status)
	}
	if e.URL != "" {
		msg += ": " + e.URL
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// ReasonOf returns the Reason of a fetcher error, or "" for nil and other errors.
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

func fail(r Reason, rawURL string, err error) *Error {
	return &Error{Reason: r, URL: rawURL, Err: err}
}

// classify turns an error from the HTTP client or a body read into an *Error.
// parent is the caller's context: its end is a cancellation, not our timeout.
func classify(parent context.Context, rawURL string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e // from CheckRedirect, the dialer or a capped reader
	}
	var ne net.Error
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, ssrf.ErrProhibitedIP), errors.Is(err, ssrf.ErrProhibitedPort),
		errors.Is(err, ssrf.ErrProhibitedNetwork), errors.Is(err, ssrf.ErrInvalidHostPort):
		return fail(ReasonRefused, rawURL, err)
	case parent.Err() != nil:
		return fail(ReasonCanceled, rawURL, err)
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return fail(ReasonTimeout, rawURL, err)
	case errors.As(err, &dnsErr):
		return fail(ReasonUnreachable, rawURL, err)
	}
	return fail(ReasonUnreachable, rawURL, err)
}
