package feed

import (
	"context"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"tributary/db"
)

// rankIndex is this process's copy of the snapshot's ranking columns, in score order.
// Logged-in viewers rank on it (rankState.top) instead of reading a few thousand of the
// snapshot's rows for every first page: the rows are the same for every viewer, only access,
// the followed set and what was seen differ, and those are applied here.
//
// The copy is made after each refresh (Warm; another instance's refresh is noticed by the
// refresh time every viewer state carries). Rows redone since (a share, a deletion, an access
// change) are listed in snapshot_dirty with their transaction: each viewer state read lists
// those of transactions from the copy's cursor on, and the copy reads them again before it
// ranks (past maxDelta of them, it folds them into a new copy of itself). The cursor is the
// oldest transaction still running when the copy last looked (its changes may commit
// later); changes listed again until then are remembered as applied.
//
// Ranking on a stale copy could only misorder or miss items, never show one the viewer may
// not read: the items a page shows are read in full and checked again (source.Keep).
type rankIndex struct {
	store *db.Store
	log   *slog.Logger

	cur     atomic.Pointer[rankState]
	mu      sync.Mutex  // serializes catching up
	loading atomic.Bool // a background copy is being made
}

// rankState is one version of the copy; it is never changed once published.
type rankState struct {
	refreshedAt time.Time // the snapshot it copies
	lineage     uint64    // the base this state redoes rows on (every new base has its own)
	cursor      int64     // changes of this transaction and later ones may be missing
	base        []db.RankRow
	byID        map[int64]int     // anchor -> index in base
	sharedBy    map[int64][]int32 // sharer -> indexes in base of the rows they shared, ascending
	// sharedMax bounds the rows shared by a followed set, times log2 of its size, that are
	// read through sharedBy; a followed set that shared more reads every row in order
	// (sharedRows).
	sharedMax int
	// Rows redone since the copy was made: the current row of each (nil when it is gone), and
	// the current ones again in score order.
	over    map[int64]*db.RankRow
	delta   []db.RankRow
	applied map[db.SnapshotChange]bool // changes from the cursor on already applied
	// redoneAt marks the rows of the base whose anchor is in over, by index (a bit each):
	// reading the rows in order asks it of each, where a lookup in over cost a third of the
	// read once a few thousand rows were redone.
	redoneAt []uint64
}

// markRedone marks the base's rows of ids as redone, in a copy of the marks (the state's
// earlier versions keep theirs).
func (st *rankState) markRedone(ids []int64) {
	marks := make([]uint64, (len(st.base)+63)/64)
	copy(marks, st.redoneAt)
	for _, id := range ids {
		if pos, ok := st.byID[id]; ok {
			marks[pos/64] |= 1 << (pos % 64)
		}
	}
	st.redoneAt = marks
}

// bigCopy is the size from which a stale copy's memory is collected before a new copy is
// made.
const bigCopy = 100_000

// maxDelta is how many redone rows the copy holds before it is folded into a new one.
const maxDelta = 5000

func newRankIndex(store *db.Store, log *slog.Logger) *rankIndex {
	return &rankIndex{store: store, log: log}
}

// cursor is the transaction from which the caller lists changes for the copy (0: no copy).
func (x *rankIndex) cursor() int64 {
	if st := x.cur.Load(); st != nil {
		return st.cursor
	}
	return 0
}

// warm makes a new copy of the snapshot.
func (x *rankIndex) warm(ctx context.Context) error {
	// A copy of an older refresh serves no viewer any more (their states name the new one):
	// let its memory go while the new copy is made, rather than hold two copies at once.
	// Collected at once: else the collector, paced by the heap the old copy left, lets the
	// new one grow beside its garbage (at 4M posts: 0.9 GB of resident memory, not 0.6).
	if meta, ok, err := x.store.Snapshot(ctx); err == nil && ok {
		x.mu.Lock()
		st := x.cur.Load()
		stale := st != nil && !st.refreshedAt.Equal(meta.RefreshedAt)
		if stale {
			x.cur.Store(nil)
		}
		x.mu.Unlock()
		if stale && len(st.base) >= bigCopy {
			st = nil
			runtime.GC()
		}
	}
	rows, refreshedAt, xmin, err := x.store.SnapshotRanking(ctx)
	if err != nil {
		return err
	}
	st := newRankState(refreshedAt, xmin, rows)
	x.mu.Lock()
	x.cur.Store(st)
	x.mu.Unlock()
	return nil
}

// lineages numbers the copy's bases (rankState.lineage).
var lineages atomic.Uint64

func newRankState(refreshedAt time.Time, cursor int64, rows []db.RankRow) *rankState {
	st := &rankState{refreshedAt: refreshedAt, lineage: lineages.Add(1), cursor: cursor, base: rows, byID: make(map[int64]int, len(rows)),
		sharedBy: map[int64][]int32{}, sharedMax: max(len(rows), 2048), over: map[int64]*db.RankRow{},
		applied: map[db.SnapshotChange]bool{}}
	for i, r := range rows {
		st.byID[r.AnchorID] = i
		for _, u := range r.SharerIDs {
			st.sharedBy[u] = append(st.sharedBy[u], int32(i))
		}
	}
	return st
}

// fold makes the copy again from itself, its redone rows in their places, when it holds too
// many of them. Reading the snapshot again would hold two whole copies at once (at 4M posts,
// 1.4 GB of resident memory, not 0.7); the folded copy shares every row's URL, sharers and
// extra with the old one. Changes applied while it folds stay redone on top of it.
func (x *rankIndex) fold() {
	old := x.cur.Load()
	if old == nil {
		return
	}
	st := old.folded()
	x.mu.Lock()
	defer x.mu.Unlock()
	if cur := x.cur.Load(); cur != nil && cur.refreshedAt.Equal(old.refreshedAt) { // else a new refresh's copy comes
		x.cur.Store(st.caughtUp(old, cur))
	}
}

// folded is the state with its redone rows in the base.
func (st *rankState) folded() *rankState {
	rows := make([]db.RankRow, 0, len(st.base)+len(st.delta))
	st.each(func(r *db.RankRow) bool { rows = append(rows, *r); return true })
	return newRankState(st.refreshedAt, st.cursor, rows)
}

// caughtUp is the folded copy of old with what cur, a later state of old, applied since.
func (st *rankState) caughtUp(old, cur *rankState) *rankState {
	st.cursor, st.applied = cur.cursor, cur.applied
	var again []int64
	for id, r := range cur.over {
		if was, ok := old.over[id]; !ok || was != r { // redone again since old: not folded
			st.over[id] = r
			again = append(again, id)
		}
	}
	st.markRedone(again)
	for _, r := range st.over {
		if r != nil {
			st.delta = append(st.delta, *r)
		}
	}
	slices.SortFunc(st.delta, compareRank)
	return st
}

// later runs work in the background, one at a time: a new copy or a fold.
func (x *rankIndex) later(work func(context.Context) error) {
	if !x.loading.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer x.loading.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := work(ctx); err != nil {
			x.log.Error("snapshot copy", "err", err)
		}
	}()
}

// current returns the copy of the snapshot refreshed at refreshedAt with the changes applied
// (upTo: where to look from next time), or nil when there is no such copy yet (one is then
// made in the background).
func (x *rankIndex) current(ctx context.Context, refreshedAt time.Time, changes []db.SnapshotChange, upTo int64) (*rankState, error) {
	st := x.cur.Load()
	if st == nil || !st.refreshedAt.Equal(refreshedAt) {
		if !refreshedAt.IsZero() {
			x.later(x.warm)
		}
		return nil, nil
	}
	if !st.pending(changes) && upTo <= st.cursor {
		return st, nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if st = x.cur.Load(); st == nil || !st.refreshedAt.Equal(refreshedAt) {
		return nil, nil
	}
	var ids []int64
	for _, c := range changes {
		if !st.applied[c] && !slices.Contains(ids, c.AnchorID) {
			ids = append(ids, c.AnchorID)
		}
	}
	var rows []db.RankRow
	if len(ids) > 0 {
		var err error
		if rows, err = x.store.SnapshotRankingOf(ctx, ids); err != nil {
			return nil, err
		}
	}
	next := st.apply(ids, rows, changes, upTo)
	if len(next.over) > maxDelta {
		x.later(func(context.Context) error { x.fold(); return nil })
	}
	x.cur.Store(next)
	return next, nil
}

// ready is the copy when it already holds the snapshot and the changes a viewer's state
// names (nothing to read to catch up), or nil; the copy's cursor then moves to the state's.
func (x *rankIndex) ready(v viewerState) *rankState {
	st := x.cur.Load()
	if st == nil || !st.refreshedAt.Equal(v.snapshot) || st.pending(v.changes) {
		return nil
	}
	if v.changesUpTo > st.cursor {
		// Nothing the state lists is pending, so the copy is current as the state sees it:
		// its cursor moves on without a read. (Else, on an instance where no page ranks, the
		// copy would not be ready again, and every page would read its items' sharers.)
		x.mu.Lock()
		if x.cur.Load() == st {
			st = st.apply(nil, nil, v.changes, v.changesUpTo)
			x.cur.Store(st)
		}
		x.mu.Unlock()
	}
	return st
}

// sharers gives the sharers of an item whose row is all public (db.Sharers): those of a row
// with other shares are rolled up again as each viewer may read them.
func (st *rankState) sharers(id int64) ([]int64, bool) {
	if r, ok := st.row(id); ok && r.AllPublic {
		return r.SharerIDs, true
	}
	return nil, false
}

// pending reports whether some change is not applied yet.
func (st *rankState) pending(changes []db.SnapshotChange) bool {
	for _, c := range changes {
		if !st.applied[c] {
			return true
		}
	}
	return false
}

// apply returns the state with the rows of ids replaced by rows (ids without a row are gone),
// the changes applied, and the cursor moved to upTo.
func (st *rankState) apply(ids []int64, rows []db.RankRow, changes []db.SnapshotChange, upTo int64) *rankState {
	next := &rankState{refreshedAt: st.refreshedAt, lineage: st.lineage, base: st.base, byID: st.byID, sharedBy: st.sharedBy,
		sharedMax: st.sharedMax, over: st.over, delta: st.delta, redoneAt: st.redoneAt,
		applied: map[db.SnapshotChange]bool{}}
	if len(ids) > 0 {
		next.markRedone(ids)
		next.over = make(map[int64]*db.RankRow, len(st.over)+len(ids))
		for id, r := range st.over {
			next.over[id] = r
		}
		for _, id := range ids {
			next.over[id] = nil
		}
		for i := range rows {
			next.over[rows[i].AnchorID] = &rows[i]
		}
		next.delta = make([]db.RankRow, 0, len(next.over))
		for _, r := range next.over {
			if r != nil {
				next.delta = append(next.delta, *r)
			}
		}
		slices.SortFunc(next.delta, compareRank)
	}
	next.cursor = max(st.cursor, upTo)
	for _, set := range []map[db.SnapshotChange]bool{st.applied, changeSet(changes)} {
		for c := range set {
			if c.XID >= next.cursor { // listed again until no older transaction runs
				next.applied[c] = true
			}
		}
	}
	return next
}

func changeSet(changes []db.SnapshotChange) map[db.SnapshotChange]bool {
	m := make(map[db.SnapshotChange]bool, len(changes))
	for _, c := range changes {
		m[c] = true
	}
	return m
}
