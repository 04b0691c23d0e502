package lru

import (
	"testing"
	"time"
)

func TestCacheBoundsEntriesAndTime(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	c := New[int, string](time.Minute, 2, func() time.Time { return now })
	c.Put(1, "a")
	c.Put(2, "b")
	if _, ok := c.Get(1); !ok { // 1 is now the most recently used
		t.Fatal("1 missing")
	}
	c.Put(3, "c")
	if _, ok := c.Get(2); ok || c.Len() != 2 {
		t.Fatalf("the least recently used entry stayed (len %d)", c.Len())
	}
	now = now.Add(time.Minute)
	if _, ok := c.Get(1); ok {
		t.Fatal("an expired entry was returned")
	}
	c.Clear()
	if c.Len() != 0 {
		t.Fatal("Clear left entries")
	}
}

func TestWeighedCacheKeepsItsBudget(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	c := NewWeighed[int, []byte](time.Hour, 100, 10, func(v []byte) int { return len(v) }, func() time.Time { return now })
	c.Put(1, make([]byte, 4))
	c.Put(2, make([]byte, 4))
	c.Put(1, make([]byte, 2)) // replaced: its old weight goes
	c.Put(3, make([]byte, 4))
	if c.Len() != 3 || c.weight != 10 {
		t.Fatalf("len %d, weight %d; want 3 and 10", c.Len(), c.weight)
	}
	c.Put(4, make([]byte, 5)) // 2 (least recently used), then 1 make room
	for key, want := range map[int]bool{1: false, 2: false, 3: true, 4: true} {
		if _, ok := c.Get(key); ok != want {
			t.Errorf("key %d kept %v, want %v", key, ok, want)
		}
	}
	if c.weight != 9 {
		t.Fatalf("weight %d, want 9", c.weight)
	}
	c.Put(5, make([]byte, 11)) // heavier than the budget: not kept, nothing evicted for it
	if _, ok := c.Get(5); ok || c.Len() != 2 {
		t.Fatalf("an entry over the budget was kept (len %d)", c.Len())
	}
	now = now.Add(time.Hour)
	c.Get(3) // expired: dropped with its weight
	c.Clear()
	if c.weight != 0 {
		t.Fatalf("weight %d after Clear", c.weight)
	}
}
