package tributary

import "math"

// Diversity are the constants of the author-diversity pass (seed 000's tuned values).
type Diversity struct {
	Decay    float64 // × prior_appearances^Exp
	Exp      float64
	Adjacent float64 // same primary author as the previous item
	Queue    int     // at most this many items are reordered; the rest follow unchanged
}

// DefaultDiversity is seed 000's tuning: a prolific author's 2nd item lands ~10 slots after
// their 1st, the 3rd ~30 slots later.
var DefaultDiversity = Diversity{Decay: 2.0, Exp: 1.3, Adjacent: 18.0, Queue: 400}

// Diversify reorders items (sorted by Score, best first) in place so one author does not
// bunch up: at each step it emits the item with the highest effective score
//
//	effective = score − Decay × prior_appearances^Exp − Adjacent (if same author as the previous item)
//
// Nothing is dropped, only moved; ties keep the input order, so the result is deterministic.
// It returns items.
func (d Diversity) Diversify(items []Item) []Item {
	n := min(len(items), d.Queue)
	// The choice reads an item's score and author alone: the queue holds those (authors
	// numbered in order of first appearance), not the items, and the penalty of an author's
	// k-th appearance is computed once (penalty[k]), not per item and step. The order chosen
	// is then applied to the items where they are: a page's candidates are a few hundred
	// items of half a kilobyte, and a copy of them was a quarter of a page's allocation.
	type queued struct {
		score  float64
		author int
		at     int // in items
	}
	queue := make([]queued, n)
	authors := make(map[int64]int, n)
	for i, it := range items[:n] {
		a, ok := authors[it.PrimaryUser.ID]
		if !ok {
			a = len(authors)
			authors[it.PrimaryUser.ID] = a
		}
		queue[i] = queued{score: it.Score, author: a, at: i}
	}
	penalty := make([]float64, n+1)
	for k := range penalty {
		penalty[k] = d.Decay * math.Pow(float64(k), d.Exp)
	}
	seen := make([]int, len(authors))
	from := make([]int, 0, n) // from[k]: where the k-th item chosen is in items
	prev := -1
	for len(queue) > 0 {
		best, bestScore := 0, math.Inf(-1)
		for i, q := range queue {
			eff := q.score - penalty[seen[q.author]]
			if q.author == prev {
				eff -= d.Adjacent
			}
			if eff > bestScore {
				best, bestScore = i, eff
			}
		}
		q := queue[best]
		queue = append(queue[:best], queue[best+1:]...)
		from = append(from, q.at)
		seen[q.author]++
		prev = q.author
	}
	permute(items[:n], from)
	return items
}

// permute reorders items so that items[k] becomes what items[from[k]] was, one cycle of the
// permutation at a time (from is used up: its entries are marked done).
func permute(items []Item, from []int) {
	for start := range from {
		if from[start] < 0 || from[start] == start {
			continue
		}
		kept := items[start]
		k := start
		for from[k] != start {
			items[k] = items[from[k]]
			k, from[k] = from[k], -1
		}
		items[k] = kept
		from[k] = -1
	}
}
