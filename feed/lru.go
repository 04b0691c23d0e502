package feed

import (
	"container/list"
	"sync"
	"time"
)

// lru is a bounded map whose entries expire after a TTL; when full, the least recently used
// entry goes first. It is safe for concurrent use.
type lru[K comparable, V any] struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu      sync.Mutex
	entries map[K]*list.Element
	order   *list.List // of *lruEntry[K, V], most recently used first
}

type lruEntry[K comparable, V any] struct {
	key     K
	val     V
	expires time.Time
}

func newLRU[K comparable, V any](ttl time.Duration, max int, now func() time.Time) *lru[K, V] {
	return &lru[K, V]{ttl: ttl, max: max, now: now, entries: map[K]*list.Element{}, order: list.New()}
}

// get returns key's value unless it is missing or expired.
func (c *lru[K, V]) get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		var zero V
		return zero, false
	}
	e := el.Value.(*lruEntry[K, V])
	if !c.now().Before(e.expires) {
		c.order.Remove(el)
		delete(c.entries, key)
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	return e.val, true
}

// put stores key's value for a TTL from now.
func (c *lru[K, V]) put(key K, val V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.order.Remove(el)
	}
	c.entries[key] = c.order.PushFront(&lruEntry[K, V]{key: key, val: val, expires: c.now().Add(c.ttl)})
	for c.order.Len() > c.max {
		old := c.order.Back()
		c.order.Remove(old)
		delete(c.entries, old.Value.(*lruEntry[K, V]).key)
	}
}

// clear drops every entry.
func (c *lru[K, V]) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = map[K]*list.Element{}
	c.order.Init()
}
