package feed

import (
	"cmp"
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
func (st *rankState) each(fn func(r *db.RankRow) bool) { st.eachOf(nil, fn) }

// eachOf is each over some rows only: those of the base at the positions in at (ascending;
// nil: all), and every redone row.
func (st *rankState) eachOf(at []int32, fn func(r *db.RankRow) bool) {
	n := len(st.base)
	if at != nil {
		n = len(at)
	}
	pos := func(k int) int {
		if at != nil {
			return int(at[k])
		}
		return k
	}
	i, j := 0, 0
	for i < n || j < len(st.delta) {
		if i < n {
			if _, redone := st.over[st.base[pos(i)].AnchorID]; redone {
				i++
				continue
			}
		}
		var r *db.RankRow
		if j >= len(st.delta) || (i < n && compareRank(st.base[pos(i)], st.delta[j]) <= 0) {
			r, i = &st.base[pos(i)], i+1
		} else {
			r, j = &st.delta[j], j+1
		}
		if !fn(r) {
			return
		}
	}
}

// sharedByAny returns the base positions of the rows some of ids shared, ascending, or nil
// when there are more than max of them (reading every row in order is then as cheap).
func (st *rankState) sharedByAny(ids []int64, max int) []int32 {
	total := 0
	for _, id := range ids {
		if total += len(st.sharedBy[id]); total > max {
			return nil
		}
	}
	at := make([]int32, 0, total)
	for _, id := range ids {
		at = append(at, st.sharedBy[id]...)
	}
	slices.Sort(at)
	return slices.Compact(at)
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
	type match struct {
		row *db.RankRow
		n   int // followed sharers
		eff float64
	}
	best := make([]match, 0, limit+1) // best first
	// A small followed set shared few rows: those are read (through sharedBy), not all.
	st.eachOf(st.sharedByAny(followed.IDs(), st.sharedMax), func(r *db.RankRow) bool {
		if len(best) == limit && best[limit-1].eff >= r.Score+margin {
			return false
		}
		n := followed.Count(r.SharerIDs)
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
	})
	out := make([]db.SnapshotMatch, 0, len(best)+len(fresh))
	for _, m := range best {
		out = append(out, m.row.Match(m.n))
	}
	for _, id := range fresh {
		if r, ok := st.row(id); ok && f.keeps(r) && !slices.ContainsFunc(out, func(x db.SnapshotMatch) bool { return x.AnchorID == id }) {
			out = append(out, r.Match(followed.Count(r.SharerIDs)))
		}
	}
	return out
}
