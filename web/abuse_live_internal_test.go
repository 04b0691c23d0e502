package web

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"tributary/db/dbtest"
)

// An ask that cannot have a slot (every one held, as a stream nested in a stream held one
// for ever) gives up at its deadline: the stream goes on, and asks again later.
func TestLiveAskGivesUpWhenNoSlotFrees(t *testing.T) {
	s := NewServer(Config{Store: dbtest.Store(t), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), HashCost: bcrypt.MinCost})
	s.live.askTimeout = 50 * time.Millisecond
	for range cap(s.live.asking) {
		s.live.asking <- struct{}{}
	}
	n, err := rankedNotice(url.Values{"fencepost": {"2026-11-20T12:00:00Z"}})
	if err != nil {
		t.Fatal(err)
	}
	_, ok, gone := s.askLive(context.Background(), httptest.NewRequest("GET", "/live", nil), n, &liveReader{})
	if ok || gone {
		t.Fatalf("an ask without a slot: ok %v, gone %v; want it given up", ok, gone)
	}
}
