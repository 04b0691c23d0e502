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
	// weigh and budget, when set, bound the entries' summed weight too (their bytes, say).
	weigh  func(V) int
	budget int
	weight int

	mu      sync.Mutex
	entries map[K]*list.Element
	order   *list.List // of *entry[K, V], most recently used first
}

type entry[K comparable, V any] struct {
	key     K
	val     V
	weight  int
	expires time.Time
}

// New makes a cache of at most max entries, each kept for ttl (now: the clock).
func New[K comparable, V any](ttl time.Duration, max int, now func() time.Time) *Cache[K, V] {
	return &Cache[K, V]{ttl: ttl, max: max, now: now, entries: map[K]*list.Element{}, order: list.New()}
}

// NewWeighed makes a cache of at most max entries whose weights (weigh) add up to at most
// budget: values as unlike in size as a follower of three people's set and one of thousands.
// An entry heavier than the whole budget is not kept.
func NewWeighed[K comparable, V any](ttl time.Duration, max int, budget int, weigh func(V) int, now func() time.Time) *Cache[K, V] {
	c := New[K, V](ttl, max, now)
	c.weigh, c.budget = weigh, budget
	return c
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
		c.remove(el)
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
		c.remove(el)
	}
	e := &entry[K, V]{key: key, val: val, expires: c.now().Add(c.ttl)}
	if c.weigh != nil {
		if e.weight = c.weigh(val); e.weight > c.budget {
			return
		}
	}
	c.entries[key] = c.order.PushFront(e)
	c.weight += e.weight
	for c.order.Len() > c.max || c.weigh != nil && c.weight > c.budget {
		c.remove(c.order.Back())
	}
}

func (c *Cache[K, V]) remove(el *list.Element) {
	e := el.Value.(*entry[K, V])
	c.order.Remove(el)
	delete(c.entries, e.key)
	c.weight -= e.weight
}

// Delete drops key's entry, if any.
func (c *Cache[K, V]) Delete(key K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.remove(el)
	}
}

// Clear drops every entry.
func (c *Cache[K, V]) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = map[K]*list.Element{}
	c.order.Init()
	c.weight = 0
}

// Len is the number of entries held, expired ones not yet dropped included.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
