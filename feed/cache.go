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
	// Encoded answers of this timeline (JSON, HTML), made once and served as bytes: a hit
	// is then a map lookup and a write.
	mu      sync.Mutex
	renders map[string][]byte
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
	e := c.entry(key)
	if e == nil {
		return tributary.Timeline{}, false
	}
	return e.val, true
}

// entry returns the live entry of key, or nil.
func (c *anonCache) entry(key string) *cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil
	}
	e := el.Value.(*cacheEntry)
	if !c.now().Before(e.expires) {
		c.lru.Remove(el)
		delete(c.entries, key)
		return nil
	}
	c.lru.MoveToFront(el)
	return e
}

// rendered returns the encoding kind of key's cached timeline (as a cache hit), making it
// once with render.
func (c *anonCache) rendered(key, kind string, render func(tributary.Timeline) ([]byte, error)) ([]byte, bool, error) {
	e := c.entry(key)
	if e == nil {
		return nil, false, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if b, ok := e.renders[kind]; ok {
		return b, true, nil
	}
	t := e.val
	t.Path = tributary.PathCache
	b, err := render(t)
	if err != nil {
		return nil, false, err
	}
	if e.renders == nil {
		e.renders = map[string][]byte{}
	}
	e.renders[kind] = b
	return b, true, nil
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
