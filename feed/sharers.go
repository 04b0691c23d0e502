package feed

import (
	"cmp"
	"context"
	"slices"

	"tributary"
)

// nameSharers puts on the cards of ids the sharers who explain them to a logged-in reader
// though their stacks (the newest dozen sharers, and the VIPs) lack them: the reader and the
// people they follow, found among each item's whole set of sharers and read only for the
// cards that lack some.
func (src *source) nameSharers(ctx context.Context, ids []int64) error {
	if src.viewer == nil {
		return nil
	}
	want := map[int64][]int64{}
	for _, id := range ids {
		it, ok := src.items[id]
		if !ok {
			continue
		}
		named := 0
		for _, s := range it.Sharers {
			named += btoi(s.Self || s.Followed)
		}
		for _, u := range it.SharerIDs {
			if named == tributary.MaxSharers {
				break
			}
			if src.v.followed.Has(u) && !slices.ContainsFunc(it.Sharers, func(s tributary.Sharer) bool { return s.ID == u }) {
				want[id] = append(want[id], u)
				named++
			}
		}
	}
	if len(want) == 0 {
		return nil
	}
	found, err := src.s.store.SharersOf(ctx, src.v.access, want)
	if err != nil {
		return err
	}
	for id, more := range found {
		it := src.items[id]
		for i := range more {
			more[i].Self = more[i].ID == src.viewer.ID
			more[i].Followed = !more[i].Self
		}
		slices.SortFunc(more, func(a, b tributary.Sharer) int { return cmp.Or(b.At.Compare(a.At), cmp.Compare(a.ID, b.ID)) })
		sharers := append(slices.Clone(it.Sharers), more...)
		explainSharers(sharers, true)
		it.Sharers = sharers[:min(len(sharers), tributary.MaxSharers)]
		src.items[id] = it
	}
	return nil
}
