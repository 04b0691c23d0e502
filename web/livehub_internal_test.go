package web

import (
	"testing"
	"time"
)

// Streams opened together beat apart: each draws its period from 60 % of liveHeartbeat up
// to it (proxies see a comment at least every liveHeartbeat), and a thousand streams draw
// periods spread over that range.
func TestHeartbeatsOfStreamsOpenedTogetherDiffer(t *testing.T) {
	lo, hi := liveHeartbeat, time.Duration(0)
	seen := map[time.Duration]bool{}
	for range 1000 {
		d := heartbeatEvery()
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
