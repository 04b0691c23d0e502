// Package lru is a bounded map whose entries expire, shared by the caches of the feed
// service and the store.
package lru

import (
	"container/list"
	"sync"
	"time"
)

// Cache is a bounded map whose entries expire after a TTL; when full, the least recently used
// entry goes first. It is safe for concurrent use.
type Cache[K comparable, V any] struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu      sync.Mutex
	entries map[K]*list.Element
	order   *list.List // of *entry[K, V], most recently used first
}

type entry[K comparable, V any] struct {
	key     K
	val     V
	expires time.Time
}

// New makes a cache of at most max entries, each kept for ttl (now: the clock).
func New[K comparable, V any](ttl time.Duration, max int, now func() time.Time) *Cache[K, V] {
	return &Cache[K, V]{ttl: ttl, max: max, now: now, entries: map[K]*list.Element{}, order: list.New()}
}

// Get returns key's value unless it is missing or expired.
func (c *Cache[K, V]) Get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		var zero V
		return zero, false
	}
	e := el.Value.(*entry[K, V])
	if !c.now().Before(e.expires) {
		c.order.Remove(el)
		delete(c.entries, key)
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	return e.val, true
}

// Put stores key's value for a TTL from now.
func (c *Cache[K, V]) Put(key K, val V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.order.Remove(el)
	}
	c.entries[key] = c.order.PushFront(&entry[K, V]{key: key, val: val, expires: c.now().Add(c.ttl)})
	for c.order.Len() > c.max {
		old := c.order.Back()
		c.order.Remove(old)
		delete(c.entries, old.Value.(*entry[K, V]).key)
	}
}

// Clear drops every entry.
func (c *Cache[K, V]) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = map[K]*list.Element{}
	c.order.Init()
}

// Len is the number of entries held, expired ones not yet dropped included.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
