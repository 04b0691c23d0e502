package feed

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"tributary"
	"tributary/internal/lru"
)

// anonCache holds anonymous timelines for a TTL, keyed by the canonical query signature.
// It is bounded (least recently used entries go first) and runs concurrent misses for one
// key once.
type anonCache struct {
	entries *lru.Cache[string, *cacheEntry]
	group   singleflight.Group
	// gen counts the clears: a page computed across a clear may predate the change that
	// caused it, and is not kept.
	gen atomic.Uint64
	// hits and misses count lookups (for metrics).
	hits, misses atomic.Uint64

	// beforeFlight, when set (tests only), runs as a miss joins the in-flight computation.
	beforeFlight func()
}

type cacheEntry struct {
	val tributary.Timeline
	// Encoded answers of this timeline (JSON, HTML), made once and served as bytes: a hit
	// is then a map lookup and a write.
	mu      sync.Mutex
	renders map[string]*Encoded
}

// Encoded is an answer made once: its bytes, their gzip compression (made on first demand,
// once) and an entity tag naming them.
type Encoded struct {
	Body []byte
	ETag string // a weak tag: the identity and gzip forms are the same answer

	gzipOnce sync.Once
	gzip     []byte
}

// NewEncoded wraps an answer's bytes.
func NewEncoded(body []byte) *Encoded {
	h := sha256.Sum256(body)
	return &Encoded{Body: body, ETag: `W/"` + base64.RawURLEncoding.EncodeToString(h[:12]) + `"`}
}

// Gzip returns the answer compressed with gzip, compressing it the first time.
func (e *Encoded) Gzip() []byte {
	e.gzipOnce.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
		zw.Write(e.Body)
		zw.Close()
		e.gzip = buf.Bytes()
	})
	return e.gzip
}

func newAnonCache(ttl time.Duration, max int, now func() time.Time) *anonCache {
	return &anonCache{entries: lru.NewWeighed[string](ttl, max, anonCacheItems, func(e *cacheEntry) int { return 1 + len(e.val.Items) }, now)}
}

// anonCacheItems bounds the items of the anonymous pages kept (each with its encodings), not
// only their number: in a topology soak, where anonymous readers scroll many cursors, the
// kept pages were the largest part of a growing heap, some 4.2 KiB an item (17 MiB at 4,096
// items; 512 pages of 30 could hold 65 MiB). The front page's hot pages stay: the least
// recently used go first.
const anonCacheItems = 2048

// get returns the cached timeline for key, or computes, stores and returns it. hit says
// whether it came from the cache.
func (c *anonCache) get(ctx context.Context, key string, compute func(context.Context) (tributary.Timeline, error)) (t tributary.Timeline, hit bool, err error) {
	if t, ok := c.lookup(key); ok {
		c.hits.Add(1)
		return t, true, nil
	}
	c.misses.Add(1)
	if c.beforeFlight != nil {
		c.beforeFlight()
	}
	// A flight started before a clear is not joined: its page may predate the change.
	gen := c.gen.Load()
	v, err, _ := c.group.Do(strconv.FormatUint(gen, 10)+" "+key, func() (any, error) {
		if t, ok := c.lookup(key); ok { // filled while this caller waited for the lock
			return t, nil
		}
		// Detached from the first caller's cancellation: the others share the result.
		t, err := compute(context.WithoutCancel(ctx))
		if err != nil {
			return nil, err
		}
		if c.gen.Load() == gen {
			c.store(key, t)
		}
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
	e, _ := c.entries.Get(key)
	return e
}

// rendered returns the encoding kind of key's cached timeline (as a cache hit), making it
// once with render.
func (c *anonCache) rendered(key, kind string, render func(tributary.Timeline) ([]byte, error)) (*Encoded, bool, error) {
	e := c.entry(key)
	if e == nil {
		return nil, false, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if enc, ok := e.renders[kind]; ok {
		c.hits.Add(1)
		return enc, true, nil
	}
	t := e.val
	t.Path = tributary.PathCache
	b, err := render(t)
	if err != nil {
		return nil, false, err
	}
	if e.renders == nil {
		e.renders = map[string]*Encoded{}
	}
	enc := NewEncoded(b)
	e.renders[kind] = enc
	c.hits.Add(1)
	return enc, true, nil
}

func (c *anonCache) store(key string, t tributary.Timeline) {
	c.entries.Put(key, &cacheEntry{val: t})
}

// clear drops every entry (after an access change, so no stale page outlives it).
func (c *anonCache) clear() {
	c.gen.Add(1)
	c.entries.Clear()
}
