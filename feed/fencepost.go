package feed

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"time"
)

// Fencepost ranking (seed 001): a fence per (viewer, template) records first-page loads as
// fenceposts. A fencepost covers the items that arrived in (PrevAt, At]: a ranked Head of at
// most H items, never empty, then a Tail of the rest of that interval in arrival order; after
// it comes the fencepost at PrevAt. Committed fenceposts never change, so scrolling is stable.

// Fencepost is one committed first-page load.
type Fencepost struct {
	At     time.Time
	PrevAt time.Time // zero: no older fencepost (the interval is unbounded below)
	Head   []int64
	// Snap is the database snapshot the request that made it read in (empty: not known): the
	// next fencepost's arrivals include the shares it could not see (issue 44.17).
	Snap string
	// tailEmpty is known only in the request that committed the fencepost: everything that
	// arrived is in the head, so listing the tail can be skipped.
	tailEmpty bool
}

// FenceKey names one fence: a viewer (0 for anonymous) and a feed template.
type FenceKey struct {
	Viewer   int64
	Template string
}

// Pos is a position in a tail: after the item that arrived at Arrival with id ID.
type Pos struct {
	Arrival time.Time
	ID      int64
}

// Entry is an item with its arrival time in the interval being listed.
type Entry struct {
	ID      int64
	Arrival time.Time
}

// FenceStore keeps fences and fenceposts. State may be lost at any time (transient storage).
type FenceStore interface {
	Latest(ctx context.Context, k FenceKey) (Fencepost, bool, error)
	Get(ctx context.Context, k FenceKey, at time.Time) (Fencepost, bool, error)
	Commit(ctx context.Context, k FenceKey, fp Fencepost) error
}

// Source supplies a feed's items.
type Source interface {
	// Ranked returns up to limit items that arrived in (after, upTo], best first; after zero
	// means no lower bound. all says they are every item of the interval.
	Ranked(ctx context.Context, after, upTo time.Time, limit int) (ids []int64, all bool, err error)
	// Tail lists items that arrived in (from, to] strictly after pos in (arrival desc, id
	// desc) order, leaving out skip, up to limit.
	Tail(ctx context.Context, from, to time.Time, pos Pos, skip []int64, limit int) ([]Entry, error)
	// Keep drops the items the viewer may not see now (deleted, unreadable, seen), in order.
	Keep(ctx context.Context, ids []int64) ([]int64, error)
	// Hidden reports that Keep would drop an item, known without reading it (the viewer has
	// seen it): a page passes over it rather than read it and come back for more.
	Hidden(id int64) bool
}

// Segment kinds of a cursor.
const (
	segHead = 1
	segTail = 2
)

// Cursor is a position in a fence: inside fencepost At, either at offset Off of its head or
// at Pos in its tail.
type Cursor struct {
	At  time.Time
	Sum uint64 // checksum of the fencepost's head: a fencepost re-made at the same time is another one
	Seg int
	Off int
	Pos Pos
}

// headSum identifies a fencepost's head.
func headSum(head []int64) uint64 {
	h := fnv.New64a()
	for _, id := range head {
		binary.Write(h, binary.BigEndian, id)
	}
	return h.Sum64()
}

// Page is one page of ids and the cursor of the next (nil at the end of the feed).
type Page struct {
	IDs       []int64
	In        []time.Time // the fencepost each id comes from
	Next      *Cursor
	Fencepost time.Time
	Head      []int64 // that fencepost's head (first pages)
	New       bool    // a new fencepost was committed for this page ...
	Started   bool    // ... and it is its fence's first
}

func (p *Page) add(id int64, at time.Time) {
	p.IDs = append(p.IDs, id)
	p.In = append(p.In, at)
}

// ErrReset means the fence state a cursor points into is gone: the caller serves a fresh
// first page and says the feed was refreshed.
var ErrReset = errors.New("feed: fence state lost")

// Fence paginates one feed over fenceposts.
type Fence struct {
	Store    FenceStore
	Source   Source
	HeadSize int
	// known is a fencepost this request has read already: the latest, when First commits a
	// new one in front of it. The page that crosses into it takes it from here, whatever the
	// Store (the site's, fenceStore, keeps what it read as well).
	known *Fencepost
}

// First serves a first page (no cursor): it commits a new fencepost when items arrived since
// the latest one, and serves the latest fencepost again otherwise.
func (f Fence) First(ctx context.Context, k FenceKey, now time.Time, limit int) (Page, error) {
	now = now.UTC().Truncate(time.Microsecond) // what PostgreSQL keeps: cursors find the fencepost again
	latest, ok, err := f.Store.Latest(ctx, k)
	if err != nil {
		return Page{}, err
	}
	var after time.Time
	if ok {
		after = latest.At
	}
	fp := latest
	created := false
	if !ok || now.After(latest.At) {
		head, all, err := f.Source.Ranked(ctx, after, now, f.HeadSize)
		if err != nil {
			return Page{}, err
		}
		if len(head) == 0 && !all {
			// The ranker knows nothing (a snapshot still catching up): items that arrived
			// still make a fencepost, headed by the newest.
			entries, err := f.Source.Tail(ctx, after, now, Pos{}, nil, f.HeadSize)
			if err != nil {
				return Page{}, err
			}
			for _, e := range entries {
				head = append(head, e.ID)
			}
		}
		if len(head) > 0 {
			fp = Fencepost{At: now, PrevAt: after, Head: head, tailEmpty: all}
			if err := f.Store.Commit(ctx, k, fp); err != nil {
				return Page{}, err
			}
			created, ok = true, true
		}
	}
	if !ok { // nothing has ever arrived
		return Page{IDs: []int64{}}, nil
	}
	if created && !after.IsZero() {
		f.known = &latest
	}
	p, err := f.fill(ctx, k, fp, Cursor{At: fp.At, Seg: segHead}, limit)
	p.New, p.Started, p.Head = created, created && after.IsZero(), fp.Head
	return p, err
}

// Next serves the page at a cursor.
func (f Fence) Next(ctx context.Context, k FenceKey, c Cursor, limit int) (Page, error) {
	fp, ok, err := f.Store.Get(ctx, k, c.At)
	if err != nil {
		return Page{}, err
	}
	if !ok || c.Sum != headSum(fp.Head) || c.Off > len(fp.Head) {
		return Page{}, ErrReset
	}
	return f.fill(ctx, k, fp, c, limit)
}

// fill collects up to limit visible items from c onwards, crossing into older fenceposts.
// It gathers the ids a page would show and checks them with one Keep (one read of their
// current data); only when Keep drops some does it gather and check more.
func (f Fence) fill(ctx context.Context, k FenceKey, fp Fencepost, c Cursor, limit int) (Page, error) {
	page := Page{IDs: make([]int64, 0, limit), In: make([]time.Time, 0, limit), Fencepost: fp.At}
	for len(page.IDs) < limit {
		run, end, err := f.gather(ctx, k, &fp, &c, limit-len(page.IDs))
		if err != nil {
			return Page{}, err
		}
		kept, err := f.Source.Keep(ctx, run.IDs)
		if err != nil {
			return Page{}, err
		}
		// kept is run.IDs in order, less some: walk both to find each kept id's fencepost.
		i := 0
		for _, id := range kept {
			for i < len(run.IDs) && run.IDs[i] != id {
				i++
			}
			if i == len(run.IDs) {
				return Page{}, fmt.Errorf("feed: Keep returned %d, which it was not given (or out of order)", id)
			}
			// An item that arrived again (re-shared, bumped) is in a newer fencepost and still
			// in the older one it first came in: one page shows it once, where it is newest.
			if !slices.Contains(page.IDs, id) {
				page.add(id, run.In[i])
			}
			i++
		}
		if end {
			return page, nil // the end of the feed
		}
	}
	c.Sum = headSum(fp.Head)
	page.Next = &c
	return page, nil
}

// gather lists up to need ids from c onwards (a page's IDs and In, not yet checked by Keep;
// hidden ones passed over) and moves fp and c past them; end says the fence ends after them.
func (f Fence) gather(ctx context.Context, k FenceKey, fp *Fencepost, c *Cursor, need int) (Page, bool, error) {
	r := Page{IDs: make([]int64, 0, need), In: make([]time.Time, 0, need)}
	add := func(id int64) {
		if !f.Source.Hidden(id) {
			r.add(id, fp.At)
		}
	}
	for len(r.IDs) < need {
		n := need - len(r.IDs)
		if c.Seg == segHead {
			end := min(c.Off+n, len(fp.Head))
			for _, id := range fp.Head[c.Off:end] {
				add(id)
			}
			c.Off = end
			if c.Off >= len(fp.Head) {
				*c = Cursor{At: fp.At, Seg: segTail}
			}
			continue
		}
		var entries []Entry
		if !fp.tailEmpty {
			var err error
			if entries, err = f.Source.Tail(ctx, fp.PrevAt, fp.At, c.Pos, fp.Head, n); err != nil {
				return Page{}, false, err
			}
		}
		for _, e := range entries {
			add(e.ID)
		}
		if len(entries) == n {
			last := entries[len(entries)-1]
			c.Pos = Pos{Arrival: last.Arrival, ID: last.ID}
			continue
		}
		// This fencepost is done: go on to the older one.
		if fp.PrevAt.IsZero() {
			return r, true, nil
		}
		older, ok, err := f.older(ctx, k, fp.PrevAt)
		if err != nil {
			return Page{}, false, err
		}
		if !ok {
			// The older fencepost was evicted: its history continues as one plain tail.
			older = Fencepost{At: fp.PrevAt}
			if err := f.Store.Commit(ctx, k, older); err != nil {
				return Page{}, false, err
			}
		}
		*fp, *c = older, Cursor{At: older.At, Seg: segHead}
		if len(fp.Head) == 0 {
			c.Seg = segTail
		}
	}
	return r, false, nil
}

// older returns the fencepost at at: the one the request knows, or the stored one.
func (f Fence) older(ctx context.Context, k FenceKey, at time.Time) (Fencepost, bool, error) {
	if f.known != nil && f.known.At.Equal(at) {
		return *f.known, true, nil
	}
	return f.Store.Get(ctx, k, at)
}
