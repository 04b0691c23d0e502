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

	"tributary"
	"tributary/db"
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
	_, ok, gone := s.askLive(context.Background(), httptest.NewRequest("GET", "/live", nil), n, &liveReader{}, false)
	if ok || gone {
		t.Fatalf("an ask without a slot: ok %v, gone %v; want it given up", ok, gone)
	}
}

// A client's streams count against its address; an IPv6 client's against its /64, which it
// may walk through.
func TestLiveClientOfAnIPv6AddressIsItsPrefix(t *testing.T) {
	for _, tc := range []struct{ remote, want string }{
		{"192.0.2.7:4000", "192.0.2.7"},
		{"[2001:db8:1:2::7]:4000", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:4001", "2001:db8:1:2::/64"},
		{"[::ffff:192.0.2.7]:4000", "192.0.2.7"}, // the IPv4 client it is
	} {
		r := httptest.NewRequest("GET", "/live", nil)
		r.RemoteAddr = tc.remote
		if got := (&Server{}).liveClient(r); got != tc.want {
			t.Errorf("the client of %s: %q, want %q", tc.remote, got, tc.want)
		}
	}
}

// A like/unlike loop on one post names its card to the streams whose readers may read it,
// once however long the loop: it neither wakes the others nor overflows a stream into
// checking every card it shows.
func TestLiveTalkLoopWakesOnlyItsReaders(t *testing.T) {
	h := newLiveHub(nil, slog.New(slog.NewTextHandler(io.Discard, nil)), DefaultLiveCaps)
	reader, stranger := h.mustJoin(t, 1), h.mustJoin(t, 2)
	reader.setReader(tributary.Viewer{ID: 1, PrivateFeeds: []int64{10}})
	stranger.setReader(tributary.Viewer{ID: 2})
	private := db.LivePost{ID: 7, AnchorID: 70, AuthorID: 3, Access: tributary.PostAccess{PrivateFeeds: []int64{10}}}
	for range 3 * liveTalkKept {
		h.notify(false, false, nil, []db.LivePost{private}, nil)
	}
	select {
	case <-stranger.wake:
		t.Error("talk of a post a stream's reader may not read woke the stream")
	default:
	}
	if n := stranger.taken(); len(n.talk) > 0 || n.lost || n.must {
		t.Errorf("a stranger's stream was told %+v", n)
	}
	select {
	case <-reader.wake:
	default:
		t.Error("talk of a post the reader may read did not wake the stream")
	}
	if n := reader.taken(); len(n.talk) != 1 || n.lost || n.must {
		t.Errorf("a reader's stream was told %d posts' talk (lost %v, must %v), want the post once", len(n.talk), n.lost, n.must)
	}
}

func (h *liveHub) mustJoin(t *testing.T, user int64) *liveConn {
	t.Helper()
	c, err := h.join("192.0.2.1", user)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.leave(c) })
	return c
}
