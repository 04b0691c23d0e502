package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A request whose client went away (a page load aborted) is logged as cancelled, at info
// level, not as an internal error; a real failure still is one.
func TestFailLogsCancelledRequestsAsInfo(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cancelled  bool
		err        error
		want, lack string
	}{
		{"client gone", true, fmt.Errorf("db: read feed: %w", context.Canceled), "level=INFO msg=\"request cancelled\"", "internal error"},
		{"failure", false, errors.New("db: read feed: broken"), "level=ERROR msg=\"internal error\"", "cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			s := &Server{log: slog.New(slog.NewTextHandler(&logs, nil)), now: time.Now}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancelled {
				cancel()
			}
			s.fail(httptest.NewRecorder(), httptest.NewRequestWithContext(ctx, "GET", "/", nil), tc.err)
			if got := logs.String(); !strings.Contains(got, tc.want) || strings.Contains(got, tc.lack) {
				t.Errorf("logged %q; want %q and no %q", got, tc.want, tc.lack)
			}
		})
	}
}
