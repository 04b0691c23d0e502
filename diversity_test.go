package tributary

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func items(authors ...int64) []Item {
	out := make([]Item, len(authors))
	for i, a := range authors {
		out[i] = Item{ID: int64(i + 1), Score: 100 - float64(i)*0.2, PrimaryUser: UserRef{ID: a}}
	}
	return out
}

func ids(in []Item) []int64 {
	out := make([]int64, len(in))
	for i, it := range in {
		out[i] = it.ID
	}
	return out
}

func TestDiversifyKeepsEverything(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 60 {
		authors := make([]int64, n)
		for i := range authors {
			authors[i] = r.Int64N(4)
		}
		in := items(authors...)
		want := ids(in)
		got := ids(DefaultDiversity.Diversify(in))
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d: diversified ids %v are not a permutation of %v", n, got, want)
		}
	}
}

func TestDiversifySpacesSameAuthor(t *testing.T) {
	// Author 1 holds the top five; others follow close behind.
	in := items(1, 1, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
	out := DefaultDiversity.Diversify(in)
	// Once the other authors run out, author 1's rest must follow each other: only the
	// first 17 slots can alternate.
	for i := 1; i < 17; i++ {
		if out[i].PrimaryUser.ID == out[i-1].PrimaryUser.ID {
			t.Fatalf("items %d and %d share author %d: %v", i-1, i, out[i].PrimaryUser.ID, ids(out))
		}
	}
	if out[0].ID != 1 {
		t.Fatalf("the best item moved: first is %d", out[0].ID)
	}
	pos := []int{}
	for i, it := range out {
		if it.PrimaryUser.ID == 1 {
			pos = append(pos, i)
		}
	}
	if pos[1]-pos[0] < 5 {
		t.Fatalf("author 1's second item comes %d slots after the first, want several: %v", pos[1]-pos[0], pos)
	}
}

func TestDiversifyDeterministic(t *testing.T) {
	in := items(1, 2, 1, 1, 3, 2, 2, 4, 1, 5)
	a := fmt.Sprint(ids(DefaultDiversity.Diversify(slices.Clone(in))))
	for range 20 {
		if b := fmt.Sprint(ids(DefaultDiversity.Diversify(slices.Clone(in)))); a != b {
			t.Fatalf("two runs differ: %s vs %s", a, b)
		}
	}
}

func TestDiversifyQueueCap(t *testing.T) {
	d := DefaultDiversity
	d.Queue = 3
	in := items(1, 1, 1, 2, 2)
	out := d.Diversify(in)
	if got := ids(out[3:]); !slices.Equal(got, []int64{4, 5}) {
		t.Fatalf("items past the queue cap moved: %v", ids(out))
	}
}

// diversifyByDefinition is Diversify as its comment states it, step by step: the model the
// faster one is checked against.
func diversifyByDefinition(d Diversity, items []Item) []Item {
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

// Diversify orders random feeds (ties, bunched authors, queues shorter than the feed) exactly
// as its definition does.
func TestDiversifyIsItsDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for round := range 500 {
		in := make([]Item, r.IntN(150))
		score := 100.0
		for i := range in {
			if r.IntN(4) > 0 { // a quarter of the scores tie with the one before
				score -= r.Float64() * 3
			}
			in[i] = Item{ID: int64(i + 1), Score: score, PrimaryUser: UserRef{ID: int64(r.IntN(1 + r.IntN(30)))}}
		}
		d := DefaultDiversity
		if round%3 == 0 {
			d.Queue = r.IntN(len(in) + 2)
		}
		if got, want := ids(d.Diversify(slices.Clone(in))), ids(diversifyByDefinition(d, slices.Clone(in))); !slices.Equal(got, want) {
			t.Fatalf("round %d (%d items, queue %d): got %v, want %v", round, len(in), d.Queue, got, want)
		}
	}
}

func BenchmarkDiversify100(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	in := make([]Item, 100)
	for i := range in {
		in[i] = Item{ID: int64(i + 1), Score: 100 - float64(i)*0.3, PrimaryUser: UserRef{ID: int64(r.IntN(40))}}
	}
	work := make([]Item, len(in))
	for b.Loop() {
		copy(work, in) // it reorders in place
		DefaultDiversity.Diversify(work)
	}
}
