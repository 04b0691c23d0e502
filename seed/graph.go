package seed

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"tributary"
)

// seedUser is one generated member. User i has id i+1, and so has their posts feed.
type seedUser struct {
	handle, name string
	vip          bool
	notability   int64
	created      int64   // ms
	postRate     float64 // relative chance of being the one who shares something
	viewRate     float64 // relative share of the card_seen events
	follows      int     // how many people they mean to follow
}

// seedDemo is a well-known login for trying the app.
type seedDemo struct {
	handle, name string
	vip          bool
	notability   int64
	follows      int
	postRate     float64
	viewRate     float64
	note         string // %d is the number of people they follow
}

var seedDemos = []seedDemo{
	{"ada", "Ada Lindqvist", true, 184_000, 140, 6, 1.5, "VIP: her shares make the anonymous front page; follows %d people"},
	{"grace", "Grace Okafor", false, 2_300, 650, 2, 4, "heavy follower: follows %d people, a busy home feed"},
	{"alan", "Alan Moreau", false, 640, 60, 1.5, 2, "an ordinary member; follows %d people"},
	{"vera", "Vera Castellanos", false, 90, 14, 0.6, 1, "follows %d people: a small, quiet home feed"},
}

// genUsers makes the members: lognormal notability (median ~500, a tail into the
// millions), a few percent VIPs who tend to be the notable ones, and skewed activity.
func (w *seedWorld) genUsers() {
	n := w.cfg.Users
	w.users = make([]seedUser, n)
	taken := map[string]bool{}
	for _, d := range seedDemos {
		taken[d.handle] = true
	}
	for i := range n {
		r := seedRNG(w.cfg.Seed, seedStageUsers, i)
		u := &w.users[i]
		// Everyone joined before the window, up to two years earlier.
		u.created = w.start - seedDay - int64(r.Float64()*float64(730*seedDay))
		u.notability = int64(seedLogNormal(r, 500, 1.9))
		u.postRate = seedLogNormal(r, 1, 1.1)
		if r.Float64() < 0.25 { // lurkers read far more than they share
			u.postRate *= 0.05
		}
		u.viewRate = seedLogNormal(r, 1, 0.9)
		if r.Float64() < 0.003 {
			u.follows = 1200 + r.IntN(1300)
		} else {
			u.follows = max(1, int(math.Round(seedLogNormal(r, 18, 1.15))))
		}
		first, last := seedPick(r, seedFirstNames), seedPick(r, seedLastNames)
		u.name = first + " " + last
		if i < len(seedDemos) {
			d := seedDemos[i]
			u.handle, u.name, u.notability, u.follows, u.postRate, u.viewRate = d.handle, d.name, d.notability, d.follows, d.postRate, d.viewRate
			u.created -= 365 * seedDay // early members
			continue
		}
		u.handle = seedHandle(r, first, last, taken)
	}
	w.pickVIPs()
}

// seedHandle makes a unique, valid handle in one of the styles people pick.
func seedHandle(r *rand.Rand, first, last string, taken map[string]bool) string {
	f, l := strings.ToLower(first), strings.ToLower(last)
	var h string
	switch r.IntN(8) {
	case 0:
		h = f + l
	case 1:
		h = f + "_" + l
	case 2:
		h = f[:1] + l
	case 3:
		h = f + fmt.Sprint(r.IntN(100))
	case 4:
		h = f + "-" + l
	case 5:
		h = l + f[:1]
	case 6:
		h = seedPick(r, seedNickWords) + "_" + seedPick(r, seedNickSuffixes)
	default:
		h = seedPick(r, seedNickWords) + seedPick(r, seedNickWords)
	}
	base := h
	for taken[h] || tributary.ValidateHandle(h) != nil {
		h = base + fmt.Sprint(r.IntN(10_000))
	}
	taken[h] = true
	return h
}

// pickVIPs marks 2.5 % of the members VIP, preferring notable ones; ada always is.
func (w *seedWorld) pickVIPs() {
	n := len(w.users)
	k := max(1, int(math.Round(float64(n)*0.025)))
	score := make([]float64, n)
	for i := range n {
		r := seedRNG(w.cfg.Seed, seedStageVIP, i)
		score[i] = math.Log1p(float64(w.users[i].notability)) + 1.2*r.NormFloat64()
		if i < len(seedDemos) {
			score[i] = math.Inf(-1)
			if seedDemos[i].vip {
				score[i] = math.Inf(1)
			}
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(score[b], score[a]), cmp.Compare(a, b))
	})
	for _, i := range order[:k] {
		w.users[i].vip = true
	}
}

// genFollows draws everyone's followees: out-degrees are lognormal with a few heavy
// followers, and followees are drawn by notability, VIP status and activity, so
// in-degrees are heavy-tailed too. Edges are stored as CSR arrays, both directions.
func (w *seedWorld) genFollows() {
	n := len(w.users)
	weights := make([]float64, n)
	for j, u := range w.users {
		weights[j] = math.Pow(float64(u.notability)+50, 0.4) * math.Sqrt(0.3+u.postRate)
		if u.vip {
			weights[j] *= 8
		}
	}
	picker := newSeedPicker(weights)
	// Each user's follows depend on their own random stream alone, so blocks of users are
	// drawn on all CPUs and joined in order: the same graph as one by one.
	type block struct {
		counts []int32 // follows of each user of the block
		dst    []int32
		at     []int64
	}
	const usersPerBlock = 4096
	blocks := (n + usersPerBlock - 1) / usersPerBlock
	marks := sync.Pool{New: func() any { return make([]int32, n) }} // mark[j] == i+1: user i follows j already
	w.outOff = make([]int32, n+1)
	w.outDst = make([]int32, 0, n*40)
	w.outAt = make([]int64, 0, n*40)
	i := 0
	for b := range seedOrdered(context.Background(), blocks, func(b int) block {
		mark := marks.Get().([]int32)
		defer marks.Put(mark)
		var out block
		for i := b * usersPerBlock; i < min(n, (b+1)*usersPerBlock); i++ {
			first := len(out.dst)
			out.dst, out.at = w.userFollows(i, picker, mark, out.dst, out.at)
			out.counts = append(out.counts, int32(len(out.dst)-first))
		}
		return out
	}) {
		w.outDst = append(w.outDst, b.dst...)
		w.outAt = append(w.outAt, b.at...)
		for _, c := range b.counts {
			w.outOff[i+1] = w.outOff[i] + c
			i++
		}
	}
	// Followers of j: inSrc[inOff[j]:inOff[j+1]], ascending (the follows are by follower).
	from := make([]int32, len(w.outDst))
	for i := range n {
		for e := w.outOff[i]; e < w.outOff[i+1]; e++ {
			from[e] = int32(i)
		}
	}
	w.inOff, w.inSrc = seedGroup(n, len(w.outDst), func(e int) int32 { return w.outDst[e] })
	for k, e := range w.inSrc { // edges grouped by followee, each turned into its follower
		w.inSrc[k] = from[e]
	}
}

// userFollows appends whom user i follows (ascending) to dst and when each follow was made
// to at. mark[j] == i+1 says i follows j already.
func (w *seedWorld) userFollows(i int, picker seedPicker, mark []int32, dst []int32, at []int64) ([]int32, []int64) {
	n := len(w.users)
	r := seedRNG(w.cfg.Seed, seedStageFollows, i)
	d := min(w.users[i].follows, (n-1)/2)
	if i < len(seedDemos) {
		d = min(w.users[i].follows, (n-1)*3/4)
	}
	first := len(dst)
	stamp := int32(i + 1)
	mark[i] = stamp
	if i > 0 && i < len(seedDemos) && d > 0 { // the demo logins all follow ada
		mark[0] = stamp
		dst = append(dst, 0)
	}
	for tries := 0; len(dst)-first < d && tries < 10*d+20; tries++ {
		j := picker.pick(r)
		if mark[j] == stamp {
			continue
		}
		mark[j] = stamp
		dst = append(dst, int32(j))
	}
	slices.Sort(dst[first:])
	for _, j := range dst[first:] {
		// Most follows predate the window; some are made during it.
		lo := max(w.users[i].created, w.users[j].created)
		t := lo + int64(r.Float64()*float64(w.start-lo))
		if r.Float64() < 0.2 {
			t = w.start + int64(r.Float64()*float64(w.end-w.start-seedHour))
		}
		at = append(at, t)
	}
	return dst, at
}

// followees returns user i's followees and when each follow was made.
func (w *seedWorld) followees(i int) ([]int32, []int64) {
	a, b := w.outOff[i], w.outOff[i+1]
	return w.outDst[a:b], w.outAt[a:b]
}

// followers returns the users who follow j.
func (w *seedWorld) followers(j int) []int32 {
	return w.inSrc[w.inOff[j]:w.inOff[j+1]]
}
