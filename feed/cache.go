package feed

import (
	"container/list"
	"context"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"tributary"
)

// anonCache holds anonymous timelines for a TTL, keyed by the canonical query signature.
// It is bounded (least recently used entries go first) and runs concurrent misses for one
// key once.
type anonCache struct {
	ttl   time.Duration
	max   int
	now   func() time.Time
	group singleflight.Group

	// beforeFlight, when set (tests only), runs as a miss joins the in-flight computation.
	beforeFlight func()

	mu      sync.Mutex
	entries map[string]*list.Element
	lru     *list.List // of *cacheEntry, most recently used first
}

type cacheEntry struct {
	key     string
	val     tributary.Timeline
	expires time.Time
}

func newAnonCache(ttl time.Duration, max int, now func() time.Time) *anonCache {
	return &anonCache{ttl: ttl, max: max, now: now, entries: map[string]*list.Element{}, lru: list.New()}
}

// get returns the cached timeline for key, or computes, stores and returns it. hit says
// whether it came from the cache.
func (c *anonCache) get(ctx context.Context, key string, compute func(context.Context) (tributary.Timeline, error)) (t tributary.Timeline, hit bool, err error) {
	if t, ok := c.lookup(key); ok {
		return t, true, nil
	}
	if c.beforeFlight != nil {
		c.beforeFlight()
	}
	v, err, _ := c.group.Do(key, func() (any, error) {
		if t, ok := c.lookup(key); ok { // filled while this caller waited for the lock
			return t, nil
		}
		// Detached from the first caller's cancellation: the others share the result.
		t, err := compute(context.WithoutCancel(ctx))
		if err != nil {
			return nil, err
		}
		c.store(key, t)
		return t, nil
	})
	if err != nil {
		return tributary.Timeline{}, false, err
	}
	return v.(tributary.Timeline), false, nil
}

func (c *anonCache) lookup(key string) (tributary.Timeline, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return tributary.Timeline{}, false
	}
	e := el.Value.(*cacheEntry)
	if !c.now().Before(e.expires) {
		c.lru.Remove(el)
		delete(c.entries, key)
		return tributary.Timeline{}, false
	}
	c.lru.MoveToFront(el)
	return e.val, true
}

func (c *anonCache) store(key string, t tributary.Timeline) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.lru.Remove(el)
	}
	c.entries[key] = c.lru.PushFront(&cacheEntry{key: key, val: t, expires: c.now().Add(c.ttl)})
	for c.lru.Len() > c.max {
		old := c.lru.Back()
		c.lru.Remove(old)
		delete(c.entries, old.Value.(*cacheEntry).key)
	}
}

// clear drops every entry (after an access change, so no stale page outlives it).
func (c *anonCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = map[string]*list.Element{}
	c.lru.Init()
}
