package tributary

import (
	"testing"
	"time"
)

func TestThreadCursorRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 28, 10, 0, 0, 123456000, time.UTC)
	for _, c := range []ThreadCursor{{}, {At: at, ID: 7}} {
		got, err := ParseThreadCursor(c.String())
		if err != nil || got != c {
			t.Errorf("ParseThreadCursor(%q) = %+v, %v; want %+v", c.String(), got, err, c)
		}
	}
	for _, bad := range []string{"x", "1", "1.", ".1", "1.0", "1.-2", "a.b"} {
		if _, err := ParseThreadCursor(bad); ErrorCode(err) != EInvalid {
			t.Errorf("ParseThreadCursor(%q): %v, want EInvalid", bad, err)
		}
	}
}
