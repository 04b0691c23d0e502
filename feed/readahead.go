package feed

import (
	"slices"

	"tributary/internal/lru"
)

// readAhead lists the tail named key after pos, up to limit entries, from the batch kept
// for it when that batch holds them, else by listing at least tailReadAhead entries (list
// lists up to n entries after a position) and keeping them.
func readAhead(tails *lru.Cache[tailKey, *tailBatch], key tailKey, pos Pos, limit int, list func(at Pos, n int) ([]Entry, error)) ([]Entry, error) {
	b, ok := tails.Get(key)
	var rest []Entry
	if ok {
		rest, ok = b.after(pos)
	}
	if ok && (len(rest) >= limit || b.complete) {
		return rest[:min(limit, len(rest))], nil
	}
	// Read on from the batch's last entry when it holds pos, from pos otherwise.
	at, start, kept := pos, pos, []Entry(nil)
	if ok && len(b.entries) < maxTailBatch {
		start, kept = b.start, b.entries
		if len(kept) > 0 {
			last := kept[len(kept)-1]
			at = Pos{Arrival: last.Arrival, ID: last.ID}
		}
	} else {
		rest = nil
	}
	n := max(limit-len(rest), tailReadAhead)
	listed, err := list(at, n)
	if err != nil {
		return nil, err
	}
	nb := &tailBatch{start: start, entries: append(slices.Clip(kept), listed...), complete: len(listed) < n}
	tails.Put(key, nb)
	rest, _ = nb.after(pos)
	return rest[:min(limit, len(rest))], nil
}

// Read-ahead of tails: a query lists tailReadAhead items (about ten pages), and a kept batch
// grows up to maxTailBatch before a new one starts at the position asked for.
const (
	tailReadAhead = 200
	maxTailBatch  = 2000
)

// tailKey names one fencepost's tail as one viewer lists it.
type tailKey struct {
	viewer   int64
	activity bool // with the followees' likes and comments
	template string
	from, to int64  // the fencepost's interval, in microseconds (as PostgreSQL keeps times)
	skip     uint64 // the fencepost's head, left out of its tail
}

// tailBatch is a run of a tail in arrival order, listed from start on. A tail is made of the
// posts up to its fencepost's time, so its listing stays the same while a batch is kept (10
// minutes at most), but for items deleted, made unreadable or no longer followed since:
// Keep checks each item against the current data before it is shown. A batch is never
// changed once stored (a longer one replaces it).
type tailBatch struct {
	start    Pos
	entries  []Entry
	complete bool // the tail ends with the last entry
}

// after returns the entries that follow pos, if the batch knows where pos is.
func (b *tailBatch) after(pos Pos) ([]Entry, bool) {
	if pos.ID == b.start.ID && pos.Arrival.Equal(b.start.Arrival) {
		return b.entries, true
	}
	for i, e := range b.entries {
		if e.ID == pos.ID && e.Arrival.Equal(pos.Arrival) {
			return b.entries[i+1:], true
		}
	}
	return nil, false
}
