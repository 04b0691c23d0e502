package seed

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// seedEvent is one card_seen event; it gets its id when it is written.
type seedEvent struct {
	t      int64
	viewer int32
	anchor int32
	dwell  int32
}

// seedCardSeen is the event type of a card a viewer looked at (seed 000).
const seedCardSeen = 7

// eventBudgets splits total events among the viewers by how much each reads and how
// much their followees shared after being followed. The budgets add up to total.
func (w *seedWorld) eventBudgets(total int) []int {
	n := len(w.users)
	weights := make([]float64, n)
	sum := 0.0
	for v := range n {
		if c := w.candidateCount(v); c > 0 {
			weights[v] = w.users[v].viewRate * math.Pow(float64(min(c, 3000)), 0.6)
		}
		sum += weights[v]
	}
	budgets := make([]int, n)
	if sum == 0 {
		return budgets
	}
	cum, prev := 0.0, 0
	for v := range n {
		cum += weights[v] // the same additions as sum, so the last step lands on total
		next := int(math.Round(cum / sum * float64(total)))
		budgets[v], prev = next-prev, next
	}
	return budgets
}

// followeePosts calls fn with the posts of each of v's followees made after v followed them.
func (w *seedWorld) followeePosts(v int, fn func(posts []int32)) {
	dst, at := w.followees(v)
	for k, f := range dst {
		posts := w.authorPosts[w.authorOff[f]:w.authorOff[f+1]]
		j := sort.Search(len(posts), func(i int) bool { return w.shares[posts[i]].t > at[k] })
		fn(posts[j:])
	}
}

func (w *seedWorld) candidateCount(v int) int {
	c := 0
	w.followeePosts(v, func(posts []int32) { c += len(posts) })
	return c
}

// viewerEvents makes viewer v's card_seen events: cards their followees shared, seen a
// while after the share (minutes to days), a quarter of them seen again, with lognormal
// dwell (median 1.4 s). They are ordered by anchor and time, the order of the hide-seen
// index, which keeps loading fast.
func (w *seedWorld) viewerEvents(v, budget int) []seedEvent {
	if budget == 0 {
		return nil
	}
	var cands []int32
	w.followeePosts(v, func(posts []int32) { cands = append(cands, posts...) })
	r := seedRNG(w.cfg.Seed, seedStageEvents, v)
	evs := make([]seedEvent, 0, budget)
	seen := make([]int32, 0, budget)
	for range budget {
		p := cands[r.IntN(len(cands))]
		if len(seen) > 0 && r.Float64() < 0.25 {
			p = seen[r.IntN(len(seen))]
		}
		seen = append(seen, p)
		pt := w.shares[p].t
		t := pt + seedSecond + int64(seedLogNormal(r, float64(3*seedHour), 1.8))
		if t >= w.end {
			t = pt + seedSecond + int64(r.Float64()*float64(w.end-pt-2*seedSecond))
		}
		dwell := min(600_000, max(80, seedLogNormal(r, 1400, 1.0)))
		evs = append(evs, seedEvent{t: t, viewer: int32(v), anchor: w.postAnchor[p], dwell: int32(dwell)})
	}
	slices.SortFunc(evs, func(a, b seedEvent) int {
		return cmp.Or(cmp.Compare(a.anchor, b.anchor), cmp.Compare(a.t, b.t), cmp.Compare(a.dwell, b.dwell))
	})
	return evs
}

// seedEventBatches groups viewers into runs of about 20k events, the unit of parallel work.
func seedEventBatches(budgets []int) [][2]int {
	var out [][2]int
	first, acc := 0, 0
	for v, b := range budgets {
		acc += b
		if acc >= 20_000 || v+1-first >= 2_000 {
			out = append(out, [2]int{first, v + 1})
			first, acc = v+1, 0
		}
	}
	if first < len(budgets) {
		out = append(out, [2]int{first, len(budgets)})
	}
	return out
}
