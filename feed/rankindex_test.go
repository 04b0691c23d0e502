package feed

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"tributary"
	"tributary/db"
)

// TestRankStateAppliesChanges checks the copy against a plain sorted list through random
// rounds of rows redone, removed and added, as snapshot_dirty lists them.
func TestRankStateAppliesChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	row := func(id int64) db.RankRow {
		return db.NewRankRow(db.SnapshotMatch{AnchorID: id, Score: float64(rng.IntN(20)),
			Date: t0.Add(-time.Duration(rng.IntN(5)) * time.Hour)}, "", nil, tributary.PostAccess{})
	}
	want := map[int64]db.RankRow{}
	var base []db.RankRow
	for id := int64(1); id <= 200; id++ {
		r := row(id)
		want[id] = r
		base = append(base, r)
	}
	slices.SortFunc(base, compareRank)
	st := &rankState{cursor: 1, base: base, byID: map[int64]int{}, over: map[int64]*db.RankRow{}, applied: map[db.SnapshotChange]bool{}}
	for i, r := range base {
		st.byID[r.AnchorID] = i
	}
	next := int64(201)
	for round := range 50 {
		had := len(want)
		var ids []int64
		var rows []db.RankRow
		var changes []db.SnapshotChange
		for range 1 + rng.IntN(8) {
			id := int64(1 + rng.IntN(int(next)))
			if id == next {
				next++
			}
			if slices.Contains(ids, id) {
				continue
			}
			ids = append(ids, id)
			changes = append(changes, db.SnapshotChange{AnchorID: id, XID: int64(10 + round)})
			if rng.IntN(4) == 0 {
				delete(want, id) // the row is gone
				continue
			}
			r := row(id)
			want[id] = r
			rows = append(rows, r)
		}
		if !st.pending(changes) {
			t.Fatalf("round %d: changes not pending", round)
		}
		// Every few rounds the copy is folded, this round's changes applied while it folds.
		var folded, before *rankState
		if round%7 == 3 {
			folded, before = st.folded(), st
		}
		st = st.apply(ids, rows, changes, int64(10+round-rng.IntN(3))) // transactions may still run
		if folded != nil {
			if len(folded.over) > 0 || len(folded.base) != had {
				t.Fatalf("round %d: folded %d rows with %d still redone", round, len(folded.base), len(folded.over))
			}
			st = folded.caughtUp(before, st)
			if len(st.over) != len(ids) {
				t.Fatalf("round %d: %d rows redone on the folded copy, want this round's %d", round, len(st.over), len(ids))
			}
		}
		if st.pending(changes) {
			t.Fatalf("round %d: changes still pending once applied", round)
		}
		if round > 0 && (len(st.applied) == 0 || st.cursor < int64(10+round-3)) {
			t.Fatalf("round %d: cursor %d, %d changes remembered", round, st.cursor, len(st.applied))
		}
		var exp []db.RankRow
		for _, r := range want {
			exp = append(exp, r)
		}
		slices.SortFunc(exp, compareRank)
		var got []int64
		st.each(func(r *db.RankRow) bool { got = append(got, r.AnchorID); return true })
		var expIDs []int64
		for _, r := range exp {
			expIDs = append(expIDs, r.AnchorID)
		}
		if !slices.Equal(got, expIDs) {
			t.Fatalf("round %d: rows %v\nwant %v", round, got, expIDs)
		}
		for id := int64(1); id < next; id++ {
			r, ok := st.row(id)
			w, in := want[id]
			if ok != in || (ok && r.Score != w.Score) {
				t.Fatalf("round %d: row(%d) = %v, %v; want %v, %v", round, id, r, ok, w, in)
			}
		}
	}
}

// TestRankTopReadsSharersAsEveryRow checks that ranking through the sharers' rows gives what
// reading every row gives, with rows redone on top of the copy.
func TestRankTopReadsSharersAsEveryRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	row := func(id int64) db.RankRow {
		m := db.SnapshotMatch{AnchorID: id, Score: float64(rng.IntN(30)),
			Date: t0.Add(-time.Duration(rng.IntN(50)) * time.Hour), AllPublic: true}
		for range 1 + rng.IntN(4) {
			m.SharerIDs = append(m.SharerIDs, int64(1+rng.IntN(60)))
		}
		return db.NewRankRow(m, "", nil, tributary.PostAccess{Public: rng.IntN(10) > 0, ProtectedOwners: []int64{m.SharerIDs[0]}})
	}
	var base []db.RankRow
	for id := int64(1); id <= 400; id++ {
		base = append(base, row(id))
	}
	slices.SortFunc(base, compareRank)
	st := &rankState{base: base, byID: map[int64]int{}, sharedBy: map[int64][]int32{}, over: map[int64]*db.RankRow{},
		applied: map[db.SnapshotChange]bool{}}
	for i, r := range base {
		st.byID[r.AnchorID] = i
		for _, u := range r.SharerIDs {
			st.sharedBy[u] = append(st.sharedBy[u], int32(i))
		}
	}
	var ids []int64
	var rows []db.RankRow
	for range 30 {
		id := int64(1 + rng.IntN(450))
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
			if rng.IntN(3) > 0 {
				rows = append(rows, row(id))
			}
		}
	}
	st = st.apply(ids, rows, nil, 0)
	for round := range 100 {
		var followed []int64
		for range 1 + rng.IntN(12) {
			followed = append(followed, int64(1+rng.IntN(60)))
		}
		f := rankFilter{viewer: tributary.Viewer{ID: int64(1 + rng.IntN(60)), Blocked: []int64{int64(1 + rng.IntN(60))}}}
		limit := 1 + rng.IntN(40)
		var got [2][]int64
		set := tributary.NewIDSet(followed)
		for i, max := range []int{1 << 30, 0} { // through the sharers' rows, then every row
			st.sharedMax = max
			for _, m := range st.top(tributary.DefaultWeights, f, set, nil, limit) {
				got[i] = append(got[i], m.AnchorID)
				r, _ := st.row(m.AnchorID)
				if want := min(set.Count(r.SharerIDs), 4); m.FollowedSharers != want { // FolloweeCap 3, plus one
					t.Fatalf("round %d: row %d counted %d followed sharers, want %d", round, m.AnchorID, m.FollowedSharers, want)
				}
			}
		}
		if len(got[0]) == 0 && round == 0 {
			t.Fatal("nothing ranked")
		}
		if !slices.Equal(got[0], got[1]) {
			t.Fatalf("round %d: through sharers %v, every row %v", round, got[0], got[1])
		}
	}
}

// TestRankIndexReadyMovesItsCursor: a copy with nothing pending for a viewer state is ready
// for it even when transactions ran since the copy last looked (no page ranked since), and
// its cursor moves on; one with a change pending is not, until it is applied.
func TestRankIndexReadyMovesItsCursor(t *testing.T) {
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	x := &rankIndex{}
	x.cur.Store(newRankState(at, 100, []db.RankRow{db.NewRankRow(db.SnapshotMatch{AnchorID: 1}, "", nil, tributary.PostAccess{})}))
	if x.ready(viewerState{snapshot: at.Add(time.Hour)}) != nil {
		t.Fatal("ready for a state of another refresh")
	}
	if st := x.ready(viewerState{snapshot: at, changesUpTo: 150}); st == nil || st.cursor != 150 || x.cursor() != 150 {
		t.Fatalf("nothing pending: ready %v, cursor %d; want ready, cursor 150", st != nil, x.cursor())
	}
	change := db.SnapshotChange{AnchorID: 1, XID: 160}
	if x.ready(viewerState{snapshot: at, changes: []db.SnapshotChange{change}, changesUpTo: 170}) != nil || x.cursor() != 150 {
		t.Fatalf("ready with a change pending, or cursor moved to %d", x.cursor())
	}
	x.cur.Store(x.cur.Load().apply([]int64{1}, nil, []db.SnapshotChange{change}, 155))
	if st := x.ready(viewerState{snapshot: at, changes: []db.SnapshotChange{change}, changesUpTo: 170}); st == nil || x.cursor() != 170 {
		t.Fatalf("change applied: ready %v, cursor %d; want ready, cursor 170", st != nil, x.cursor())
	}
}

// BenchmarkRankTopHeavyFollower ranks a copy of 200,000 rows shared by 40,000 users for a
// reader who follows 2,000 of them, through the sharers' rows (as a set that size reads at
// 4M posts).
func BenchmarkRankTopHeavyFollower(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	base := make([]db.RankRow, 0, 200_000)
	for id := int64(1); id <= 200_000; id++ {
		m := db.SnapshotMatch{AnchorID: id, Score: rng.Float64() * 30, Date: t0.Add(-time.Duration(rng.IntN(180*24)) * time.Hour), AllPublic: true}
		for range 1 + rng.IntN(3) {
			m.SharerIDs = append(m.SharerIDs, int64(1+rng.IntN(40_000)))
		}
		base = append(base, db.NewRankRow(m, "", nil, tributary.PostAccess{Public: true}))
	}
	slices.SortFunc(base, compareRank)
	st := newRankState(t0, 0, base)
	st.sharedMax = 1 << 30
	var followed []int64
	for len(followed) < 2000 {
		followed = append(followed, int64(1+rng.IntN(40_000)))
	}
	set := tributary.NewIDSet(followed)
	f := rankFilter{viewer: tributary.Viewer{ID: 40_001}}
	b.ResetTimer()
	for range b.N {
		if len(st.top(tributary.DefaultWeights, f, set, nil, 30)) != 30 {
			b.Fatal("not 30 rows")
		}
	}
}

// TestPosMergeMerges checks the window merge against counting every position of every list,
// on lists of every density, with positions shared by more than 255 lists.
func TestPosMergeMerges(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for round := range 300 {
		positions := 1 + rng.IntN(1<<rng.IntN(18))
		lists := make([][]int32, rng.IntN(300))
		want := map[int32]int{}
		for i := range lists {
			k := rng.IntN(1 + min(positions, 1<<rng.IntN(12)))
			seen := map[int32]bool{}
			for range k {
				p := int32(rng.IntN(positions))
				if round%10 == 0 {
					p = int32(rng.IntN(min(positions, 3))) // many lists on a few positions
				}
				if !seen[p] {
					seen[p] = true
					lists[i] = append(lists[i], p)
					want[p]++
				}
			}
			slices.Sort(lists[i])
			if len(lists[i]) == 0 {
				lists[i] = nil
			}
		}
		lists = slices.DeleteFunc(lists, func(l []int32) bool { return len(l) == 0 })
		m := newPosMerge(slices.Clone(lists), positions)
		last := int32(-1)
		got := 0
		for {
			p, n := m.next()
			if n == 0 {
				break
			}
			if p <= last {
				t.Fatalf("round %d: position %d after %d", round, p, last)
			}
			if w := min(want[p], 255); n != w {
				t.Fatalf("round %d: position %d in %d lists, want %d", round, p, n, w)
			}
			last = p
			got++
		}
		if got != len(want) {
			t.Fatalf("round %d: %d positions, want %d", round, got, len(want))
		}
	}
}
