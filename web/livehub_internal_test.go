package web

import (
	"testing"
	"time"

	"tributary"
	"tributary/db"
)

// Streams opened together beat apart: each draws its period from 60 % of liveHeartbeat up
// to it (proxies see a comment at least every liveHeartbeat), and a thousand streams draw
// periods spread over that range.
func TestHeartbeatsOfStreamsOpenedTogetherDiffer(t *testing.T) {
	lo, hi := liveHeartbeat, time.Duration(0)
	seen := map[time.Duration]bool{}
	for range 1000 {
		d := heartbeatEvery(liveHeartbeat)
		if d < liveHeartbeat*3/5 || d > liveHeartbeat {
			t.Fatalf("period %s: want it from %s to %s", d, liveHeartbeat*3/5, liveHeartbeat)
		}
		lo, hi = min(lo, d), max(hi, d)
		seen[d.Truncate(time.Second)] = true
	}
	if hi-lo < liveHeartbeat/4 || len(seen) < 8 {
		t.Fatalf("1,000 streams beat at %s to %s (%d whole seconds): want them spread over %s", lo, hi, len(seen), liveHeartbeat*2/5)
	}
}

// A change of access to a reader, heard while the streams' wake-ups for access are held back
// (liveAccessEvery), leaves their stream not trusting the access it read: a post arriving
// meanwhile that the reader can read only with the new access still wakes the stream, and its
// ask reads the access again.
func TestStreamWakesForAPostItsNewAccessReads(t *testing.T) {
	h := newLiveHub(nil, nil, LiveCaps{})
	h.accessEvery = time.Hour
	bob := &liveConn{user: 2, wake: make(chan struct{}, 1), known: true, access: tributary.Viewer{ID: 2}}
	h.streams[bob] = struct{}{}
	h.accessOfChanged([]int64{7}) // someone else's change, told at once: the window opens
	h.accessOfChanged([]int64{2}) // bob may now read ada's private feed: held back
	private := db.LivePost{ID: 1, AuthorID: 1, Access: tributary.PostAccess{PrivateFeeds: []int64{9}}}
	h.notify(false, false, nil, nil, []db.LivePost{private})
	select {
	case <-bob.wake:
	default:
		t.Fatal("a private post arrived while bob's change of access was held back: his stream did not look")
	}
	if news := bob.taken(); !news.reread {
		t.Error("bob's stream looks with the access it read before the change")
	}
}

// A fetched link card changes nobody's access: the streams hear of it through the talk of its
// item's posts (recorded beside it), not by every stream reading its reader again and checking
// every card it shows.
func TestCardChangeIsNoChangeOfAccess(t *testing.T) {
	h := newLiveHub(nil, nil, LiveCaps{})
	bob := &liveConn{user: 2, wake: make(chan struct{}, 1), known: true, access: tributary.Viewer{ID: 2}}
	h.streams[bob] = struct{}{}
	h.siteChanged([]db.SiteChange{{Kind: "cards", IDs: []int64{5}}}, false)
	select {
	case <-bob.wake:
		t.Fatalf("a card's change woke a stream: %+v", bob.taken())
	default:
	}
	if news := bob.taken(); news.reread || news.must || news.lost {
		t.Errorf("a card's change: the stream was told %+v", news)
	}
}
