package feed

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"tributary"
	"tributary/db"
	"tributary/internal/lru"
)

// linkCards keeps items' fetched link cards on each instance. A card changes only when a
// fetch job saves it, which records a "cards" change naming the item: every instance hears
// of it and drops the item (nothing is kept while this instance is not listening), so a page
// reads, in one query, only the cards of items it has not seen. Items with no card yet are
// kept as such.
type linkCards struct {
	mu   sync.Mutex
	gen  uint64 // moves with every drop: a read begun before one keeps nothing
	kept *lru.Cache[int64, *tributary.LinkCard]
	// fresh are the items whose cards arrived in the last minutes: open pages showing them
	// fill them in (web's /talk), the others need not be read.
	fresh *lru.Cache[int64, bool]
}

const (
	linkCardsKept = 20_000
	linkCardsTTL  = time.Hour
	// linkCardsFresh is how long open pages are told of a card that arrived: a page hears
	// of it within a wake-up, or asks after a reconnect.
	linkCardsFresh = 2 * time.Minute
)

func newLinkCards(now func() time.Time) *linkCards {
	return &linkCards{kept: lru.New[int64, *tributary.LinkCard](linkCardsTTL, linkCardsKept, now),
		fresh: lru.New[int64, bool](linkCardsFresh, linkCardsKept, now)}
}

// heard drops the cards the changes name (every card after a reset).
func (c *linkCards) heard(changes []db.SiteChange, reset bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if reset { // a reset names no change: anything may have been missed
		c.gen++
		c.kept.Clear()
		return
	}
	for _, ch := range changes {
		if ch.Kind != "cards" {
			continue
		}
		c.gen++
		if len(ch.IDs) == 0 {
			c.kept.Clear()
			return
		}
		for _, id := range ch.IDs {
			c.kept.Delete(id)
			c.fresh.Put(id, true)
		}
	}
}

// linkCardsOf returns the cards of some items, reading those not kept.
func (s *Service) linkCardsOf(ctx context.Context, ids []int64) map[int64]*tributary.LinkCard {
	out := make(map[int64]*tributary.LinkCard, len(ids))
	c := s.linkCards
	useKept := s.cacheable()
	var missing []int64
	c.mu.Lock()
	gen := c.gen
	for _, id := range ids {
		if card, ok := c.kept.Get(id); ok && useKept {
			out[id] = card
		} else if _, seen := out[id]; !seen {
			missing = append(missing, id)
			out[id] = nil
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return out
	}
	read, err := s.store.CardsOf(ctx, missing)
	if err != nil { // a card is the link's description: the page goes on without it
		slog.Default().Warn("feed: link cards", "err", err)
		return out
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range missing {
		var card *tributary.LinkCard
		if r, ok := read[id]; ok {
			card = &r
		}
		out[id] = card
		if useKept && c.gen == gen {
			c.kept.Put(id, card)
		}
	}
	return out
}

// withCards gives items their link cards.
func (s *Service) withCards(ctx context.Context, items []tributary.Item) {
	fill(s, ctx, items, func(it *tributary.Item) (int64, **tributary.LinkCard) { return it.ID, &it.Card })
}

// withPostCards gives posts their items' link cards.
func (s *Service) withPostCards(ctx context.Context, posts []tributary.Post) {
	fill(s, ctx, posts, func(p *tributary.Post) (int64, **tributary.LinkCard) { return p.AnchorID, &p.Card })
}

// fill gives each of xs the card of its item (of names its item and its card's place).
func fill[T any](s *Service, ctx context.Context, xs []T, of func(*T) (int64, **tributary.LinkCard)) {
	if len(xs) == 0 {
		return
	}
	ids := make([]int64, len(xs))
	for i := range xs {
		ids[i], _ = of(&xs[i])
	}
	cards := s.linkCardsOf(ctx, ids)
	for i := range xs {
		id, card := of(&xs[i])
		*card = cards[id]
	}
}

// PostCards gives posts read outside the feeds (a post page, an item page, search results)
// their items' link cards.
func (s *Service) PostCards(ctx context.Context, posts []tributary.Post) { s.withPostCards(ctx, posts) }

// FreshCards returns those of the items whose link cards arrived in the last minutes.
func (s *Service) FreshCards(anchors []int64) []int64 {
	var out []int64
	for _, a := range anchors {
		if _, ok := s.linkCards.fresh.Get(a); ok {
			out = append(out, a)
		}
	}
	return out
}
