// Package tributary holds Tributary's domain types and pure logic: errors, account rules,
// anchor canonicalization, scoring and cursors. It does no I/O.
package tributary

import (
	"errors"
	"fmt"
)

// Error codes, mapped to HTTP statuses in one place (web.statusOf).
const (
	EInvalid      = "invalid"      // bad input: 400
	EUnauthorized = "unauthorized" // not logged in: 401
	EForbidden    = "forbidden"    // logged in but not allowed: 403
	ENotFound     = "not_found"    // 404
	EConflict     = "conflict"     // 409
	ETooMany      = "too_many"     // rate limited: 429
	ETooLarge     = "too_large"    // request body over the cap: 413
	EInternal     = "internal"     // 500, message never shown
)

// Error is Tributary's one application error: a code and a message safe to show a user.
type Error struct {
	Code    string
	Message string
	Field   string // the input field or parameter at fault, when there is one
}

func (e *Error) Error() string { return fmt.Sprintf("tributary: %s: %s", e.Code, e.Message) }

// Errorf returns an *Error with a formatted, user-safe message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldErrorf returns an EInvalid *Error about one input field.
func FieldErrorf(field, format string, args ...any) *Error {
	return &Error{Code: EInvalid, Field: field, Message: fmt.Sprintf(format, args...)}
}

// ErrorField returns the field an application error is about, or "".
func ErrorField(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}

// ErrorCode returns the code of an application error anywhere in err's chain, or EInternal.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// ErrorMessage returns the user-safe message of err; internal errors read "Internal error".
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Code != EInternal {
		return e.Message
	}
	return "Internal error"
}
