package db

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"time"

	"tributary"
	"tributary/internal/lru"
)

// cardCache keeps the decoded JSON of snapshot rows (links and sharer stacks), keyed by a
// hash of the JSON itself and checked against it on a hit: the same bytes always decode the
// same, so an entry never goes stale, and a row redone with other sharers simply has another
// key. Decoding that JSON was about half of the Go time of a page (encoding/json); the rows
// a page shows are mostly the same from one request to the next.
type cardCache struct {
	seed  maphash.Seed
	cards *lru.Cache[uint64, *card]
}

type card struct {
	raw     []byte // links, then sharers: what the key was made of, compared on a hit
	split   int
	links   []tributary.Link
	sharers []sharerJSON
}

func newCardCache(max int) *cardCache {
	return &cardCache{seed: maphash.MakeSeed(), cards: lru.New[uint64, *card](time.Hour, max, time.Now)}
}

// decode returns the decoded links and sharers of a row. The slices are shared between
// callers: they must not be changed.
func (c *cardCache) decode(links, sharers []byte) ([]tributary.Link, []sharerJSON, error) {
	var h maphash.Hash
	h.SetSeed(c.seed)
	h.Write(links)
	h.WriteByte(0)
	h.Write(sharers)
	key := h.Sum64()
	if e, ok := c.cards.Get(key); ok && e.split == len(links) && bytes.Equal(e.raw[:e.split], links) &&
		bytes.Equal(e.raw[e.split:], sharers) {
		return e.links, e.sharers, nil
	}
	e := &card{raw: append(append(make([]byte, 0, len(links)+len(sharers)), links...), sharers...), split: len(links)}
	if err := json.Unmarshal(links, &e.links); err != nil {
		return nil, nil, err
	}
	if err := json.Unmarshal(sharers, &e.sharers); err != nil {
		return nil, nil, err
	}
	c.cards.Put(key, e)
	return e.links, e.sharers, nil
}
