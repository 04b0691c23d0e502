package seed

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"sync"
)

// seedShare is one post-to-be: who shares which resource when. Post i+1 is shares[i].
type seedShare struct {
	t      int64 // ms; unique, so (author, canonical_url, created_at) never collides
	res    int32
	author int32
}

// genShares decides who shares each resource when. A resource's first share is when it
// came out; later ones follow with a decaying delay (classics are shared throughout the
// window). Almost half the later sharers are followers of an earlier sharer, as on any
// social site, so a viewer often sees the same paper from several followees.
func (w *seedWorld) genShares() {
	n := len(w.users)
	rates := make([]float64, n)
	for i, u := range w.users {
		rates[i] = u.postRate
		if u.vip {
			rates[i] *= 2.5
		}
	}
	posters := newSeedPicker(rates)
	// Each resource's shares depend on its own random stream alone: blocks of resources are
	// drawn on all CPUs and joined in order, the same shares as one by one.
	const perBlock = 4096
	blocks := (len(w.resources) + perBlock - 1) / perBlock
	stamps := sync.Pool{New: func() any { return make([]int32, n) }} // stamp[a] == res+1: a shared res already
	w.shares = make([]seedShare, 0, w.cfg.Posts)
	for part := range seedOrdered(context.Background(), blocks, func(b int) []seedShare {
		stamp := stamps.Get().([]int32)
		defer stamps.Put(stamp)
		var out []seedShare
		for ri := b * perBlock; ri < min(len(w.resources), (b+1)*perBlock); ri++ {
			out = w.resourceShares(ri, posters, rates, stamp, out)
		}
		return out
	}) {
		w.shares = append(w.shares, part...)
	}
	slices.SortFunc(w.shares, func(a, b seedShare) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.res, b.res), cmp.Compare(a.author, b.author))
	})
	for i := 1; i < len(w.shares); i++ {
		w.shares[i].t = max(w.shares[i].t, w.shares[i-1].t+1)
	}
	// Each author's posts, in time order: authorPosts[authorOff[a]:authorOff[a+1]].
	w.authorOff, w.authorPosts = seedGroup(n, len(w.shares), func(i int) int32 { return w.shares[i].author })
}

// resourceShares appends the shares of resource ri to out: when, and by whom (often a
// follower of an earlier sharer). stamp[a] == ri+1 says a shared it already.
func (w *seedWorld) resourceShares(ri int, posters seedPicker, rates []float64, stamp []int32, out []seedShare) []seedShare {
	res := &w.resources[ri]
	r := seedRNG(w.cfg.Seed, seedStageShares, ri)
	times := make([]int64, 0, res.shares)
	for k := range res.shares {
		times = append(times, w.shareTime(r, res, k))
	}
	slices.Sort(times)
	sharers := make([]int32, 0, res.shares)
	for _, t := range times {
		a := int32(posters.pick(r))
		for try := 0; try < 12; try++ {
			if len(sharers) > 0 && r.Float64() < 0.45 {
				if fs := w.followers(int(sharers[r.IntN(len(sharers))])); len(fs) > 0 {
					a = fs[r.IntN(len(fs))]
					if r.Float64() > 0.2+rates[a] { // lurkers rarely reshare
						a = int32(posters.pick(r))
					}
				}
			}
			if stamp[a] != int32(ri+1) {
				break
			}
			a = int32(posters.pick(r))
		}
		stamp[a] = int32(ri + 1)
		sharers = append(sharers, a)
		out = append(out, seedShare{t: t, res: int32(ri), author: a})
	}
	return out
}

// shareTime draws the time of the k-th share of res.
func (w *seedWorld) shareTime(r *rand.Rand, res *seedResource, k int) int64 {
	if res.classic {
		return w.skewedTime(r)
	}
	if k == 0 {
		return res.t0
	}
	for range 8 {
		mean := 1.5 * float64(seedDay)
		if r.Float64() < 0.25 { // rediscovered weeks later
			mean = 20 * float64(seedDay)
		}
		t := res.t0 + seedMinute + int64(r.ExpFloat64()*mean)
		if t < w.last && seedInRhythm(r, t) {
			return t
		}
	}
	return res.t0 + seedMinute + int64(r.Float64()*float64(max(0, w.last-res.t0-seedMinute)))
}
