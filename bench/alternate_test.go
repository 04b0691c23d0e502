package bench

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Two scenarios measured in turns run one at a time, each alternateRounds times, their CPU
// meter bracketing each turn; each row counts its own requests only.
func TestRunAlternatingTakesTurns(t *testing.T) {
	var mu sync.Mutex
	var order []string // who ran, in turn order (a turn's repeated requests counted once)
	ran := func(name string) {
		mu.Lock()
		defer mu.Unlock()
		if len(order) == 0 || order[len(order)-1] != name {
			order = append(order, name)
		}
	}
	fake := func(name string, d time.Duration) scenario {
		return scenario{Name: name, Kind: "http", Concurrency: 2, worker: func(int) step {
			return func(ctx context.Context) (latency, error) {
				ran(name)
				return latency{client: d, server: d}, nil
			}
		}}
	}
	var turns []int
	measuring := func(i int) { turns = append(turns, i) }
	measured := func(i int) {
		if turns[len(turns)-1] != i {
			t.Errorf("turn of %d ended within the turn of %d", i, turns[len(turns)-1])
		}
	}
	a, b := runAlternating(context.Background(), fake("a", 2*time.Millisecond), fake("b", 5*time.Millisecond),
		loadLimits{Duration: time.Minute, MaxRequests: 50 * alternateRounds}, measuring, measured) // turns end at their count
	if len(turns) != 2*alternateRounds {
		t.Fatalf("%d turns, want %d", len(turns), 2*alternateRounds)
	}
	for k, i := range turns {
		if i != k%2 {
			t.Fatalf("turns %v: want a and b in turn", turns)
		}
	}
	if len(order) > 2*alternateRounds {
		t.Errorf("requests ran in %d stretches (%v), want at most %d: one per turn", len(order), order, 2*alternateRounds)
	}
	if a.Name != "a" || b.Name != "b" || a.Requests == 0 || b.Requests == 0 || a.ServerP50 != 2 || b.ServerP50 != 5 {
		t.Errorf("rows a %+v, b %+v: want each its own requests", a, b)
	}
}
