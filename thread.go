package tributary

import (
	"strconv"
	"strings"
	"time"
)

// ThreadPageSize is how many comments a post page shows at once, and an item page under
// each share; the rest are a link away.
const ThreadPageSize = 50

// ThreadCursor is where a page of a thread starts: the comment at (At, ID), in the thread's
// order (oldest first, ties by id). The zero cursor is the thread's start.
type ThreadCursor struct {
	At time.Time
	ID int64
}

// CursorOf is the cursor of a page starting at comment c.
func CursorOf(c Comment) ThreadCursor { return ThreadCursor{At: c.CreatedAt, ID: c.ID} }

// IsZero says the cursor is the thread's start.
func (c ThreadCursor) IsZero() bool { return c.ID == 0 }

// String spells the cursor for a URL: "<unix microseconds>.<id>" ("" for the start).
func (c ThreadCursor) String() string {
	if c.IsZero() {
		return ""
	}
	return strconv.FormatInt(c.At.UnixMicro(), 10) + "." + strconv.FormatInt(c.ID, 10)
}

// ParseThreadCursor reads String's spelling; "" is the start.
func ParseThreadCursor(s string) (ThreadCursor, error) {
	if s == "" {
		return ThreadCursor{}, nil
	}
	at, id, ok := strings.Cut(s, ".")
	us, err1 := strconv.ParseInt(at, 10, 64)
	n, err2 := strconv.ParseInt(id, 10, 64)
	if !ok || err1 != nil || err2 != nil || n <= 0 {
		return ThreadCursor{}, Errorf(EInvalid, "Parameter 'from' must be a comments cursor.")
	}
	return ThreadCursor{At: time.UnixMicro(us).UTC(), ID: n}, nil
}

// Thread is a page of a post's comments that a viewer sees, and where the next page starts
// (zero: this is the last).
type Thread struct {
	Comments []Comment
	Next     ThreadCursor
}
