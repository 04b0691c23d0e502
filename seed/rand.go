package seed

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
)

// Random streams of the seeder. Every entity (a user, a post, a viewer) draws from its own
// PCG stream keyed by (seed, stage, index), so the data does not depend on the order in
// which goroutines run, and changing one stage does not reshuffle the others.
type seedStage uint64

const (
	seedStageUsers seedStage = iota + 1
	seedStageVIP
	seedStageFollows
	seedStageResources
	seedStageShares
	seedStagePosts
	seedStageEvents
	seedStageTalk
	seedStageLikes
	seedStageComments
	seedStageCards
)

func seedRNG(seed int64, stage seedStage, i int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), seedMix(uint64(stage)<<40^uint64(i))))
}

// seedMix is splitmix64's finalizer: neighbouring indexes get unrelated streams.
func seedMix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// seedLogNormal draws from a lognormal distribution given its median.
func seedLogNormal(r *rand.Rand, median, sigma float64) float64 {
	return median * math.Exp(sigma*r.NormFloat64())
}

// seedPick returns one element of list.
func seedPick[T any](r *rand.Rand, list []T) T { return list[r.IntN(len(list))] }

// seedPicker draws indexes with probability proportional to their weights.
type seedPicker struct{ cum []float64 }

func newSeedPicker(weights []float64) seedPicker {
	cum := make([]float64, len(weights))
	total := 0.0
	for i, w := range weights {
		total += w
		cum[i] = total
	}
	return seedPicker{cum: cum}
}

func (p seedPicker) pick(r *rand.Rand) int {
	x := r.Float64() * p.cum[len(p.cum)-1]
	return sort.Search(len(p.cum), func(i int) bool { return p.cum[i] > x })
}

// Times are Unix milliseconds inside the generator.
const (
	seedSecond = int64(1000)
	seedMinute = 60 * seedSecond
	seedHour   = 60 * seedMinute
	seedDay    = 24 * seedHour
)

// seedHourWeight is how busy each UTC hour is, relative to the busiest: Europe's evening
// and America's working day overlap in the afternoon, and the night is quiet.
var seedHourWeight = [24]float64{
	0.55, 0.45, 0.35, 0.28, 0.25, 0.28, 0.38, 0.50, 0.62, 0.70, 0.75, 0.78,
	0.82, 0.90, 0.97, 1.00, 1.00, 0.97, 0.93, 0.90, 0.86, 0.80, 0.72, 0.64,
}

// seedInRhythm decides whether an activity at ms survives the daily and weekly rhythm;
// callers redraw the time when it does not.
func seedInRhythm(r *rand.Rand, ms int64) bool {
	w := seedHourWeight[(ms/seedHour)%24]
	if wd := (ms/seedDay + 4) % 7; wd == 0 || wd == 6 { // 1970-01-01 was a Thursday
		w *= 0.75
	}
	return r.Float64() < w
}

// seedGroup groups the items 0..m-1 by key(item), a number in [0, n): group g is
// items[off[g]:off[g+1]], in ascending item order (a counting sort).
func seedGroup(n, m int, key func(item int) int32) (off, items []int32) {
	off = make([]int32, n+1)
	for k := range m {
		off[key(k)+1]++
	}
	for g := range n {
		off[g+1] += off[g]
	}
	items = make([]int32, m)
	fill := slices.Clone(off[:n])
	for k := range m {
		g := key(k)
		items[fill[g]] = int32(k)
		fill[g]++
	}
	return off, items
}

// seedOrdered runs gen(0..n-1) on all CPUs and delivers the results in index order, with
// a bounded number of results in flight. The channel closes early when ctx ends.
func seedOrdered[T any](ctx context.Context, n int, gen func(i int) T) <-chan T {
	workers := runtime.GOMAXPROCS(0)
	futures := make(chan chan T, 2*workers)
	out := make(chan T)
	go func() {
		defer close(futures)
		sem := make(chan struct{}, workers)
		for i := range n {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			c := make(chan T, 1)
			go func() {
				defer func() { <-sem }()
				c <- gen(i)
			}()
			select {
			case futures <- c:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		defer close(out)
		for c := range futures {
			select {
			case v := <-c:
				select {
				case out <- v:
				case <-ctx.Done():
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// seedSource feeds batches of generated rows to pgx's CopyFrom. pgx calls it from its own
// goroutine, one call at a time.
type seedSource[T any] struct {
	ctx     context.Context
	batches <-chan []T
	cur     []T
	i       int
	row     func(*T, []any) error
	vals    []any
	done    int
	report  func(done int)
}

func newSeedSource[T any](ctx context.Context, batches <-chan []T, columns int, row func(*T, []any) error, report func(int)) *seedSource[T] {
	return &seedSource[T]{ctx: ctx, batches: batches, i: -1, row: row, vals: make([]any, columns), report: report}
}

func (s *seedSource[T]) Next() bool {
	s.i++
	for s.i >= len(s.cur) {
		b, ok := <-s.batches
		if !ok {
			return false
		}
		s.cur, s.i = b, 0
	}
	s.done++
	if s.done%(1<<15) == 0 {
		s.report(s.done)
	}
	return true
}

// Values reuses one slice: pgx encodes a row before asking for the next.
func (s *seedSource[T]) Values() ([]any, error) {
	return s.vals, s.row(&s.cur[s.i], s.vals)
}

// Err turns an early end of the batches (a cancelled context) into an aborted COPY.
func (s *seedSource[T]) Err() error { return s.ctx.Err() }
