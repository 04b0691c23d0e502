package tributary

import "slices"

// IDSet is a set of ids read far more often than it is built: a viewer's followed set, asked
// about every sharer of every candidate item. It keeps the sorted ids (for SQL arrays) and a
// bitmap over [0, max] when that is small next to the set, a map otherwise; a slim set
// (Slim) keeps the ids alone and searches them.
type IDSet struct {
	ids  []int64
	bits []uint64
	m    map[int64]struct{}
}

// NewIDSet builds a set of ids (in any order, duplicates allowed).
func NewIDSet(ids []int64) IDSet {
	s := IDSet{ids: slices.Compact(slices.Sorted(slices.Values(ids)))}
	if len(s.ids) == 0 {
		return s
	}
	lo, hi := s.ids[0], s.ids[len(s.ids)-1]
	if lo >= 0 && hi/64 < int64(64*len(s.ids)+1024) {
		s.bits = make([]uint64, hi/64+1)
		for _, id := range s.ids {
			s.bits[id/64] |= 1 << (id % 64)
		}
		return s
	}
	s.m = make(map[int64]struct{}, len(s.ids))
	for _, id := range s.ids {
		s.m[id] = struct{}{}
	}
	return s
}

// Has reports whether id is in the set.
func (s IDSet) Has(id int64) bool {
	if s.bits != nil {
		return id >= 0 && id/64 < int64(len(s.bits)) && s.bits[id/64]&(1<<(id%64)) != 0
	}
	if s.m != nil {
		_, ok := s.m[id]
		return ok
	}
	_, ok := slices.BinarySearch(s.ids, id)
	return ok
}

// Slim is the set without its bitmap or map, its sorted ids alone: for a set kept long and
// asked little (a live stream's reader, whose notices pass the ids to SQL). A bitmap over
// 400,000 users is 50 KB, whatever the set's size.
func (s IDSet) Slim() IDSet { return IDSet{ids: s.ids} }

// Count counts the ids of a that are in the set. The ranking copy calls it for every row it
// reads (some rows have hundreds of sharers), so the bitmap is read with unsigned
// arithmetic (a negative id wraps past its end) and each bit is added, not branched on:
// 0.44 of the time Has takes id by id (BenchmarkIDSetCount).
func (s IDSet) Count(a []int64) int {
	n := 0
	if bits := s.bits; bits != nil {
		for _, id := range a {
			if u := uint64(id); u/64 < uint64(len(bits)) {
				n += int(bits[u/64] >> (u % 64) & 1)
			}
		}
		return n
	}
	for _, id := range a {
		if s.Has(id) {
			n++
		}
	}
	return n
}

// CountUpTo is Count(a), or most when that is more: it stops counting there.
func (s IDSet) CountUpTo(a []int64, most int) int {
	n := 0
	if bits := s.bits; bits != nil {
		for _, id := range a {
			if u := uint64(id); u/64 < uint64(len(bits)) {
				if n += int(bits[u/64] >> (u % 64) & 1); n >= most {
					return most
				}
			}
		}
		return n
	}
	for _, id := range a {
		if s.Has(id) {
			if n++; n >= most {
				return most
			}
		}
	}
	return n
}

// HasAny reports whether some id of a is in the set (Count(a) > 0, stopping at the first).
func (s IDSet) HasAny(a []int64) bool {
	if bits := s.bits; bits != nil {
		for _, id := range a {
			if u := uint64(id); u/64 < uint64(len(bits)) && bits[u/64]>>(u%64)&1 != 0 {
				return true
			}
		}
		return false
	}
	return slices.ContainsFunc(a, s.Has)
}

// IDs returns the ids, sorted; the caller must not change them.
func (s IDSet) IDs() []int64 {
	if s.ids == nil {
		return []int64{}
	}
	return s.ids
}

// Bytes is about what the set holds in memory: its ids, and its bitmap or map.
func (s IDSet) Bytes() int { return 8*cap(s.ids) + 8*len(s.bits) + 48*len(s.m) }

// Len is the number of ids.
func (s IDSet) Len() int { return len(s.ids) }
