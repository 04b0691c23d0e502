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

// Diversify reorders items (sorted by Score, best first) so one author does not bunch up:
// at each step it emits the item with the highest effective score
//
//	effective = score − Decay × prior_appearances^Exp − Adjacent (if same author as the previous item)
//
// Nothing is dropped, only moved; ties keep the input order, so the result is deterministic.
func (d Diversity) Diversify(items []Item) []Item {
	n := min(len(items), d.Queue)
	queue := append([]Item(nil), items[:n]...)
	out := make([]Item, 0, len(items))
	seen := map[int64]int{}
	var prev int64 = -1
	for len(queue) > 0 {
		best, bestScore := 0, math.Inf(-1)
		for i, it := range queue {
			eff := it.Score - d.Decay*math.Pow(float64(seen[it.PrimaryUser.ID]), d.Exp)
			if it.PrimaryUser.ID == prev {
				eff -= d.Adjacent
			}
			if eff > bestScore {
				best, bestScore = i, eff
			}
		}
		it := queue[best]
		queue = append(queue[:best], queue[best+1:]...)
		out = append(out, it)
		seen[it.PrimaryUser.ID]++
		prev = it.PrimaryUser.ID
	}
	return append(out, items[n:]...)
}
