package feed

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// memFence is an in-memory FenceStore.
type memFence struct {
	latest map[FenceKey]time.Time
	posts  map[FenceKey]map[time.Time]Fencepost
	gets   int // calls of Get
}

func newMemFence() *memFence {
	return &memFence{latest: map[FenceKey]time.Time{}, posts: map[FenceKey]map[time.Time]Fencepost{}}
}

func (m *memFence) Latest(_ context.Context, k FenceKey) (Fencepost, bool, error) {
	at, ok := m.latest[k]
	if !ok {
		return Fencepost{}, false, nil
	}
	fp, ok := m.posts[k][at]
	return fp, ok, nil
}

func (m *memFence) Get(_ context.Context, k FenceKey, at time.Time) (Fencepost, bool, error) {
	m.gets++
	fp, ok := m.posts[k][at]
	return fp, ok, nil
}

func (m *memFence) Commit(_ context.Context, k FenceKey, fp Fencepost) error {
	if m.posts[k] == nil {
		m.posts[k] = map[time.Time]Fencepost{}
	}
	m.posts[k][fp.At] = fp
	if fp.At.After(m.latest[k]) {
		m.latest[k] = fp.At
	}
	return nil
}

// memSource: items arrive (and re-arrive) at times; the "ranker" orders by a hash.
type memSource struct {
	arrivals map[int64][]time.Time
	deleted  map[int64]bool // Keep finds out
	seen     map[int64]bool // Hidden says so
	keeps    int            // calls of Keep
}

func newMemSource() *memSource {
	return &memSource{arrivals: map[int64][]time.Time{}, deleted: map[int64]bool{}, seen: map[int64]bool{}}
}

// gone says the item is no longer shown: deleted or seen.
func (m *memSource) gone(id int64) bool { return m.deleted[id] || m.seen[id] }

func rankOf(id int64) uint32 {
	h := fnv.New32a()
	fmt.Fprint(h, id)
	return h.Sum32()
}

// arrivalIn is the item's newest arrival in (from, to].
func (m *memSource) arrivalIn(id int64, from, to time.Time) (time.Time, bool) {
	var best time.Time
	ok := false
	for _, a := range m.arrivals[id] {
		if a.After(from) && !a.After(to) && (!ok || a.After(best)) {
			best, ok = a, true
		}
	}
	return best, ok
}

func (m *memSource) Ranked(_ context.Context, after, upTo time.Time, limit int) ([]int64, bool, error) {
	var ids []int64
	for id := range m.arrivals {
		if _, ok := m.arrivalIn(id, after, upTo); ok {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b int64) int { return cmp.Or(cmp.Compare(rankOf(b), rankOf(a)), cmp.Compare(a, b)) })
	return ids[:min(limit, len(ids))], len(ids) <= limit, nil
}

func (m *memSource) Tail(_ context.Context, from, to time.Time, pos Pos, skip []int64, limit int) ([]Entry, error) {
	var es []Entry
	for id := range m.arrivals {
		if slices.Contains(skip, id) {
			continue
		}
		if a, ok := m.arrivalIn(id, from, to); ok {
			if pos.ID == 0 || a.Before(pos.Arrival) || a.Equal(pos.Arrival) && id < pos.ID {
				es = append(es, Entry{ID: id, Arrival: a})
			}
		}
	}
	slices.SortFunc(es, func(a, b Entry) int { return cmp.Or(b.Arrival.Compare(a.Arrival), cmp.Compare(b.ID, a.ID)) })
	return es[:min(limit, len(es))], nil
}

func (m *memSource) Keep(_ context.Context, ids []int64) ([]int64, error) {
	m.keeps++
	return slices.DeleteFunc(slices.Clone(ids), m.gone), nil
}

func (m *memSource) Hidden(id int64) bool { return m.seen[id] }

type scroll struct {
	pages [][]int64
	in    [][]time.Time
	curs  []*Cursor
}

// walk scrolls from the first page to the end.
func walk(t *testing.T, f Fence, k FenceKey, now time.Time, limit int) (Page, scroll) {
	t.Helper()
	ctx := context.Background()
	first, err := f.First(ctx, k, now, limit)
	if err != nil {
		t.Fatal(err)
	}
	s := scroll{pages: [][]int64{first.IDs}, in: [][]time.Time{first.In}, curs: []*Cursor{nil}}
	for c := first.Next; c != nil; {
		p, err := f.Next(ctx, k, *c, limit)
		if err != nil {
			t.Fatal(err)
		}
		s.pages, s.in, s.curs = append(s.pages, p.IDs), append(s.in, p.In), append(s.curs, c)
		c = p.Next
		if len(s.pages) > 10000 {
			t.Fatal("scrolling does not end")
		}
	}
	return first, s
}

func TestFencepostProperties(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for seed := range uint64(150) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 99))
			src := newMemSource()
			store := newMemFence()
			f := Fence{Store: store, Source: src, HeadSize: 1 + r.IntN(8)}
			k := FenceKey{Viewer: 1, Template: "home"}
			limit := 1 + r.IntN(7)
			now := base
			nextID := int64(1)
			var loads []struct {
				at   time.Time
				walk scroll
			}
			for step := range 12 {
				// Some items arrive (new ones, and re-shares of old ones); sometimes none.
				for range r.IntN(6) {
					now = now.Add(time.Duration(1+r.IntN(60)) * time.Second)
					id := nextID
					if nextID > 1 && r.IntN(4) == 0 {
						id = 1 + r.Int64N(nextID-1) // re-shared
					} else {
						nextID++
					}
					src.arrivals[id] = append(src.arrivals[id], now)
				}
				now = now.Add(time.Second)
				prev, hadFence, _ := store.Latest(context.Background(), k)
				first, s := walk(t, f, k, now, limit)

				// A fencepost is committed exactly when items arrived since the latest one.
				arrived := false
				for id := range src.arrivals {
					if _, ok := src.arrivalIn(id, prev.At, now); ok {
						arrived = true
					}
				}
				if first.New != arrived {
					t.Fatalf("step %d: new fencepost %v, want %v", step, first.New, arrived)
				}
				if !first.New && hadFence && !first.Fencepost.Equal(prev.At) {
					t.Fatalf("step %d: no new items but served fencepost %v, not the latest %v", step, first.Fencepost, prev.At)
				}
				// Scrolling to the end shows every live item that ever arrived, and within
				// each fencepost each item once.
				all := slices.Concat(s.pages...)
				for id := range src.arrivals {
					if !src.gone(id) && !slices.Contains(all, id) {
						t.Fatalf("step %d: item %d never shown (pages %v)", step, id, s.pages)
					}
				}
				if counts := perFencepost(s); counts != "" {
					t.Fatalf("step %d: %s", step, counts)
				}
				loads = append(loads, struct {
					at   time.Time
					walk scroll
				}{now, s})
				// Delete an item now and then, or see it: it drops out of every page, nothing
				// else moves.
				if r.IntN(3) == 0 && nextID > 1 {
					src.deleted[1+r.Int64N(nextID-1)] = true
				}
				if r.IntN(3) == 0 && nextID > 1 {
					src.seen[1+r.Int64N(nextID-1)] = true
				}
				// Earlier walks replay identically from their cursors (immutability), minus deletions.
				for _, l := range loads {
					for i, c := range l.walk.curs {
						if c == nil {
							continue
						}
						p, err := f.Next(context.Background(), k, *c, limit)
						if err != nil {
							t.Fatal(err)
						}
						want := slices.DeleteFunc(slices.Clone(l.walk.pages[i]), src.gone)
						if !slices.Equal(p.IDs[:min(len(p.IDs), len(want))], want) {
							t.Fatalf("step %d: replaying page %d of the walk at %v gave %v, want %v", step, i, l.at, p.IDs, want)
						}
					}
				}
			}
		})
	}
}

// perFencepost checks that no item appears twice within one fencepost of a walk.
func perFencepost(s scroll) string {
	seen := map[time.Time]map[int64]bool{}
	for i := range s.pages {
		for j, id := range s.pages[i] {
			at := s.in[i][j]
			if seen[at] == nil {
				seen[at] = map[int64]bool{}
			}
			if seen[at][id] {
				return fmt.Sprintf("item %d twice within fencepost %v", id, at)
			}
			seen[at][id] = true
		}
	}
	return ""
}

func TestFencepostLostState(t *testing.T) {
	ctx := context.Background()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	src := newMemSource()
	for id := int64(1); id <= 30; id++ {
		src.arrivals[id] = []time.Time{base.Add(time.Duration(id) * time.Minute)}
	}
	store := newMemFence()
	f := Fence{Store: store, Source: src, HeadSize: 5}
	k := FenceKey{Viewer: 7, Template: "home"}
	first, err := f.First(ctx, k, base.Add(time.Hour), 10)
	if err != nil || first.Next == nil {
		t.Fatalf("first page: %v, %v", first, err)
	}
	// The fence state is lost (restart of a cache, eviction): the cursor resets, no error.
	f.Store = newMemFence()
	if _, err := f.Next(ctx, k, *first.Next, 10); err != ErrReset {
		t.Fatalf("cursor into lost state: %v, want ErrReset", err)
	}
	// An older fencepost evicted while a newer one survives: scrolling continues through
	// the older interval in arrival order, each item once.
	f.Store = store
	for id := int64(31); id <= 40; id++ {
		src.arrivals[id] = []time.Time{base.Add(time.Hour + time.Duration(id)*time.Minute)}
	}
	second, err := f.First(ctx, k, base.Add(3*time.Hour), 10)
	if err != nil || !second.New {
		t.Fatalf("second first page: %+v, %v", second, err)
	}
	delete(store.posts[k], base.Add(time.Hour))
	_, s := walk(t, f, k, base.Add(3*time.Hour), 10)
	all := slices.Concat(s.pages...)
	if len(all) != 40 {
		t.Fatalf("walk after eviction shows %d items, want 40: %v", len(all), all)
	}
	if msg := perFencepost(s); msg != "" {
		t.Fatal(msg)
	}
}

// A page checks its items with one Keep (one read of their data) however many fenceposts
// and segments it spans, and with more only when Keep dropped some.
func TestFencepostOneKeepPerPage(t *testing.T) {
	ctx := context.Background()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	src := newMemSource()
	store := newMemFence()
	f := Fence{Store: store, Source: src, HeadSize: 3}
	k := FenceKey{Viewer: 7, Template: "home"}
	// Three fenceposts of 7 items each: a page of 5 crosses a head, a tail and fenceposts.
	id := int64(0)
	for load := range 3 {
		for range 7 {
			id++
			src.arrivals[id] = []time.Time{base.Add(time.Duration(id) * time.Minute)}
		}
		if _, err := f.First(ctx, k, base.Add(time.Duration(load+1)*time.Hour), 5); err != nil {
			t.Fatal(err)
		}
	}
	check := func(gone int, wantExtra int) {
		t.Helper()
		src.keeps = 0
		_, s := walk(t, f, k, base.Add(3*time.Hour), 5)
		if got := len(slices.Concat(s.pages...)); got != 21-gone {
			t.Fatalf("walk shows %d items, want %d", got, 21-gone)
		}
		if src.keeps != len(s.pages)+wantExtra {
			t.Fatalf("%d pages called Keep %d times, want %d", len(s.pages), src.keeps, len(s.pages)+wantExtra)
		}
	}
	check(0, 0)
	// An item of the first page is deleted: that page reads on, with one more Keep.
	first, err := f.First(ctx, k, base.Add(3*time.Hour), 5)
	if err != nil {
		t.Fatal(err)
	}
	src.deleted[first.IDs[1]] = true
	check(1, 1)
	// Items the viewer has seen (Hidden) are passed over without a read: no more Keeps.
	src.seen = map[int64]bool{first.IDs[2]: true, 5: true, 12: true}
	check(4, 1)
}

// A first page that commits a fencepost in front of the latest one crosses into that one
// without reading it again: First read it already.
func TestFencepostFirstCrossesIntoTheLatestItRead(t *testing.T) {
	ctx := context.Background()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	src := newMemSource()
	store := newMemFence()
	f := Fence{Store: store, Source: src, HeadSize: 5}
	k := FenceKey{Viewer: 7, Template: "home"}
	for id := int64(1); id <= 8; id++ {
		src.arrivals[id] = []time.Time{base.Add(time.Duration(id) * time.Minute)}
	}
	old, err := f.First(ctx, k, base.Add(time.Hour), 5)
	if err != nil {
		t.Fatal(err)
	}
	src.arrivals[9] = []time.Time{base.Add(61 * time.Minute)}
	store.gets = 0
	p, err := f.First(ctx, k, base.Add(2*time.Hour), 4)
	if err != nil {
		t.Fatal(err)
	}
	if want := append([]int64{9}, old.IDs[:3]...); !slices.Equal(p.IDs, want) || !p.New {
		t.Fatalf("page %v (new %v), want %v in a new fencepost", p.IDs, p.New, want)
	}
	if store.gets != 0 {
		t.Errorf("the page read the fencepost it crossed into %d times", store.gets)
	}
	// Its next page, from the older fencepost's head, reads it from the store.
	next, err := f.Next(ctx, k, *p.Next, 4)
	if err != nil {
		t.Fatal(err)
	}
	if want := old.IDs[3:5]; !slices.Equal(next.IDs[:2], want) || store.gets != 1 {
		t.Fatalf("next page %v after %d reads, want it to start %v after 1", next.IDs, store.gets, want)
	}
}
