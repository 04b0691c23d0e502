package db

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"time"

	"tributary"
	"tributary/db/internal/dbq"
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

// SharersOf reads some sharers of some items (each item's authors), each by their newest
// share the viewer may read, by item; a sharer with none readable is left out.
func (s *Store) SharersOf(ctx context.Context, v tributary.Viewer, want map[int64][]int64) (map[int64][]tributary.Sharer, error) {
	var anchors, authors []int64
	for a, us := range want {
		for _, u := range us {
			anchors, authors = append(anchors, a), append(authors, u)
		}
	}
	out := map[int64][]tributary.Sharer{}
	if len(anchors) == 0 {
		return out, nil
	}
	rows, err := s.reads(ctx).SharersOf(ctx, dbq.SharersOfParams{AnchorIds: anchors, AuthorIds: authors, ViewerID: v.ID,
		Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	if err != nil {
		return nil, fmt.Errorf("db: sharers: %w", err)
	}
	for _, r := range rows {
		out[r.AnchorID] = append(out[r.AnchorID], tributary.Sharer{
			UserRef: tributary.UserRef{ID: r.ID, Handle: r.Handle, Name: r.DisplayName, VIP: r.Vip, Avatar: r.Avatar},
			At:      r.At, Public: r.Public})
	}
	return out, nil
}
