package feed

import (
	"cmp"
	"container/heap"
	"math"
	"math/bits"
	"slices"
	"time"

	"tributary"
	"tributary/db"
)

// Reading one version of the ranking copy (rankindex.go): its rows in score order, all or a
// followed set's, and the best of them for a viewer.

// compareRank is the snapshot's score order: score, then newest, then anchor id.
func compareRank(a, b db.RankRow) int {
	return cmp.Or(cmp.Compare(b.Score, a.Score), b.Date().Compare(a.Date()), cmp.Compare(a.AnchorID, b.AnchorID))
}

// each calls fn with the current rows in score order until fn returns false.
func (st *rankState) each(fn func(r *db.RankRow) bool) {
	i, j := 0, 0
	for i < len(st.base) || j < len(st.delta) {
		if i < len(st.base) && st.redone(st.base[i].AnchorID) {
			i++
			continue
		}
		var r *db.RankRow
		if j >= len(st.delta) || (i < len(st.base) && compareRank(st.base[i], st.delta[j]) <= 0) {
			r, i = &st.base[i], i+1
		} else {
			r, j = &st.delta[j], j+1
		}
		if !fn(r) {
			return
		}
	}
}

// redone reports whether an anchor's row of the base was redone (or removed) since the copy.
func (st *rankState) redone(id int64) bool {
	_, ok := st.over[id]
	return ok
}

// sharedRows reports whether the rows a followed set shared are few enough to be read
// through sharedBy rather than by reading every row in order: merging the sharers' lists
// costs about log2(lists) per row read, the scan a probe of the set per row of the copy down
// to the same place, which lies 1/p rows further for a set that shared a fraction p of the
// rows. So the merge wins while the rows shared times log2(lists) stay under the rows of the
// copy (max).
func (st *rankState) sharedRows(ids []int64, max int) bool {
	total, per := 0, bits.Len(uint(len(ids)))
	for _, id := range ids {
		if total += len(st.sharedBy[id]); total*per > max {
			return false
		}
	}
	return true
}

// eachShared calls fn with the current rows that some of ids shared, in score order, and
// how many of ids shared each (up to most), until fn returns false. It merges the sharers'
// lists of rows as it goes (each is in score order), so it reads no further than fn does,
// and a row's count is the number of lists it comes up in. A redone row is counted with
// IDSet.CountUpTo.
func (st *rankState) eachShared(ids []int64, followed tributary.IDSet, most int, fn func(r *db.RankRow, n int) bool) {
	h := make(posHeap, 0, len(ids))
	for _, id := range ids {
		if at := st.sharedBy[id]; len(at) > 0 {
			h = append(h, at)
		}
	}
	heap.Init(&h)
	// next is the next row of the base that some of ids shared and that is not redone, with
	// the number of lists it is in (nil: none left).
	next := func() (*db.RankRow, int) {
		for h.Len() > 0 {
			pos, n := h[0][0], 0
			for h.Len() > 0 && h[0][0] == pos {
				n++
				if h[0] = h[0][1:]; len(h[0]) == 0 {
					heap.Pop(&h)
				} else {
					heap.Fix(&h, 0)
				}
			}
			if r := &st.base[pos]; !st.redone(r.AnchorID) {
				return r, n
			}
		}
		return nil, 0
	}
	r, n := next()
	for j := 0; r != nil || j < len(st.delta); {
		if j < len(st.delta) && (r == nil || compareRank(st.delta[j], *r) < 0) {
			d := &st.delta[j]
			j++
			if c := followed.CountUpTo(d.SharerIDs, most); c > 0 && !fn(d, c) {
				return
			}
			continue
		}
		if !fn(r, min(n, most)) {
			return
		}
		r, n = next()
	}
}

// posHeap merges ascending lists of positions: the list with the smallest head first.
type posHeap [][]int32

func (h posHeap) Len() int           { return len(h) }
func (h posHeap) Less(i, j int) bool { return h[i][0] < h[j][0] }
func (h posHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *posHeap) Push(x any)        { *h = append(*h, x.([]int32)) }
func (h *posHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// row returns the current row of an anchor.
func (st *rankState) row(id int64) (*db.RankRow, bool) {
	if r, ok := st.over[id]; ok {
		return r, r != nil
	}
	if i, ok := st.byID[id]; ok {
		return &st.base[i], true
	}
	return nil, false
}

// rankFilter is what a logged-in snapshot request keeps of the copy's rows.
type rankFilter struct {
	db.FeedFilter
	viewer tributary.Viewer
	hidden []int64 // sorted
}

func (f rankFilter) keeps(r *db.RankRow) bool {
	since, until := f.Since, f.Until
	date := r.Date()
	return f.viewer.CanRead(r.Access()) &&
		(f.Source == "" || r.Kind() == f.Source) &&
		(f.Tag == "" || slices.Contains(r.Tags(), f.Tag)) &&
		!date.Before(since) && (until.IsZero() || date.Before(until)) &&
		!containsSorted(f.hidden, r.AnchorID)
}

func containsSorted(ids []int64, id int64) bool {
	_, ok := slices.BinarySearch(ids, id)
	return ok
}

// top ranks the copy as db.Store.SnapshotFeed ranks the snapshot: the limit best rows with
// a followee among their sharers by stored score plus followee bonus, and the fresh ones,
// in no particular order. Rows are read in score order until none further down could
// overtake the limit-th by the largest followee bonus.
func (st *rankState) top(w tributary.Weights, f rankFilter, followed tributary.IDSet, fresh []int64, limit int) []db.SnapshotMatch {
	margin := w.FolloweeCap * w.FolloweeShare
	// Followed sharers past the cap add nothing: a row's are counted up to most.
	most := int(math.Ceil(w.FolloweeCap)) + 1
	type match struct {
		row *db.RankRow
		n   int // followed sharers, up to most
		eff float64
	}
	best := make([]match, 0, limit+1) // best first
	visit := func(r *db.RankRow, n int) bool {
		if len(best) == limit && best[limit-1].eff >= r.Score+margin {
			return false
		}
		if n == 0 || !f.keeps(r) {
			return true
		}
		m := match{r, n, r.Score + w.Score(tributary.ScoreInputs{FolloweeShare: n}, time.Time{}).FolloweeShare}
		// After the rows of higher eff, and after those of equal eff read before (stable).
		i, _ := slices.BinarySearchFunc(best, m.eff, func(x match, eff float64) int {
			if x.eff >= eff {
				return -1
			}
			return 1
		})
		if i < limit {
			best = slices.Insert(best, i, m)
			best = best[:min(len(best), limit)]
		}
		return true
	}
	// A small followed set shared few rows: those are read (through sharedBy), not all.
	if ids := followed.IDs(); st.sharedRows(ids, st.sharedMax) {
		st.eachShared(ids, followed, most, visit)
	} else {
		st.each(func(r *db.RankRow) bool { return visit(r, followed.CountUpTo(r.SharerIDs, most)) })
	}
	out := make([]db.SnapshotMatch, 0, len(best)+len(fresh))
	for _, m := range best {
		out = append(out, m.row.Match(m.n))
	}
	for _, id := range fresh {
		if r, ok := st.row(id); ok && f.keeps(r) && !slices.ContainsFunc(out, func(x db.SnapshotMatch) bool { return x.AnchorID == id }) {
			out = append(out, r.Match(followed.CountUpTo(r.SharerIDs, most)))
		}
	}
	return out
}
