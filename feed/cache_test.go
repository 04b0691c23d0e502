package feed

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tributary"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestAnonCacheHitMissExpiry(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c := newAnonCache(60*time.Second, 10, clk.now)
	calls := 0
	compute := func(context.Context) (tributary.Timeline, error) {
		calls++
		return tributary.Timeline{Path: tributary.PathSnapshot, NextCursor: string(rune('a' + calls))}, nil
	}
	ctx := context.Background()
	for _, step := range []struct {
		name    string
		advance time.Duration
		key     string
		hit     bool
		calls   int
	}{
		{"first request misses", 0, "k", false, 1},
		{"second request hits", 10 * time.Second, "k", true, 1},
		{"another key misses", 0, "other", false, 2},
		{"59s later still hits", 49 * time.Second, "k", true, 2},
		{"60s after filling expires", time.Second, "k", false, 3},
		{"refilled entry hits", 0, "k", true, 3},
	} {
		clk.add(step.advance)
		_, hit, err := c.get(ctx, step.key, compute)
		if err != nil {
			t.Fatal(err)
		}
		if hit != step.hit || calls != step.calls {
			t.Fatalf("%s: hit=%v calls=%d, want hit=%v calls=%d", step.name, hit, calls, step.hit, step.calls)
		}
	}
}

func TestAnonCacheBounded(t *testing.T) {
	clk := &fakeClock{t: time.Now()}
	c := newAnonCache(time.Minute, 3, clk.now)
	ok := func(context.Context) (tributary.Timeline, error) { return tributary.Timeline{}, nil }
	for _, k := range []string{"a", "b", "c", "a", "d"} { // "a" is used again, so "b" is the oldest
		c.get(context.Background(), k, ok)
	}
	if got := c.entries.Len(); got != 3 {
		t.Fatalf("cache holds %d entries, want at most 3", got)
	}
	if _, hit := c.lookup("b"); hit {
		t.Fatal("least recently used entry was kept")
	}
	if _, hit := c.lookup("a"); !hit {
		t.Fatal("recently used entry was evicted")
	}
}

// Pages are kept by their items too: long pages of many cursors cannot fill the entries.
func TestAnonCacheBoundedByItems(t *testing.T) {
	c := newAnonCache(time.Minute, 100_000, time.Now)
	page := func(context.Context) (tributary.Timeline, error) {
		return tributary.Timeline{Items: make([]tributary.Item, 30)}, nil
	}
	for i := range 1000 {
		c.get(context.Background(), fmt.Sprintf("cursor-%d", i), page)
	}
	if got, most := c.entries.Len(), anonCacheItems/31; got > most || got < most/2 {
		t.Fatalf("the cache holds %d pages of 30 items; want at most %d (and not far fewer)", got, most)
	}
	if _, hit := c.lookup("cursor-999"); !hit {
		t.Fatal("the newest page was not kept")
	}
}

func TestAnonCacheSingleFlight(t *testing.T) {
	clk := &fakeClock{t: time.Now()}
	c := newAnonCache(time.Minute, 10, clk.now)
	var calls atomic.Int32
	release := make(chan struct{})
	started := make(chan struct{})
	compute := func(context.Context) (tributary.Timeline, error) {
		if calls.Add(1) == 1 {
			close(started)
		}
		<-release
		return tributary.Timeline{Path: tributary.PathSnapshot}, nil
	}
	var joined atomic.Int32
	c.beforeFlight = func() { joined.Add(1) }
	var wg sync.WaitGroup
	results := make(chan tributary.Timeline, 50)
	wg.Go(func() {
		tl, _, _ := c.get(context.Background(), "k", compute)
		results <- tl
	})
	<-started
	for range 49 {
		wg.Go(func() {
			tl, _, _ := c.get(context.Background(), "k", compute)
			results <- tl
		})
	}
	// Let the computation finish only once all 50 callers have missed and joined it.
	for joined.Load() < 50 {
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	close(results)
	if n := calls.Load(); n != 1 {
		t.Fatalf("50 concurrent misses ran the query %d times, want 1", n)
	}
	for tl := range results {
		if tl.Path != tributary.PathSnapshot {
			t.Fatalf("a caller got %+v", tl)
		}
	}
}

func TestAnonCacheErrorsAreNotCached(t *testing.T) {
	c := newAnonCache(time.Minute, 10, time.Now)
	boom := errors.New("boom")
	calls := 0
	fail := func(context.Context) (tributary.Timeline, error) { calls++; return tributary.Timeline{}, boom }
	c.get(context.Background(), "k", fail)
	c.get(context.Background(), "k", fail)
	if calls != 2 {
		t.Fatalf("a failed computation was cached: %d calls, want 2", calls)
	}
}
