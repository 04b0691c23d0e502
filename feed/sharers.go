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
// cards that picture fewer than StackShown of them (a followee outside the newest dozen
// shared before everyone in it, so comes after the stack's own followees).
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
			if named >= tributary.StackShown {
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
	found, err := src.sharersOf(ctx, want)
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

// sharersOf reads the newest readable share of each item's wanted users, those of items with
// all-public rows from what this instance keeps for the row's version (a reader in a ban
// reads them all).
func (src *source) sharersOf(ctx context.Context, want map[int64][]int64) (map[int64][]tributary.Sharer, error) {
	copied := src.s.rank.ready(src.v)
	if src.viewer == nil || len(src.v.access.Blocked) > 0 {
		copied = nil
	}
	kept := src.s.cards.sharers
	found := map[int64][]tributary.Sharer{}
	ask := map[int64][]int64{}
	for id, us := range want {
		v, ok := copied.version(id)
		for _, u := range us {
			if k, hit := kept.Get(sharerKey{id, u}); ok && hit && k.version == v {
				found[id] = append(found[id], k.s)
			} else {
				ask[id] = append(ask[id], u)
			}
		}
	}
	if len(ask) == 0 {
		return found, nil
	}
	read, err := src.s.store.SharersOf(ctx, src.v.access, ask)
	if err != nil {
		return nil, err
	}
	for id, more := range read {
		v, ok := copied.version(id)
		for _, sh := range more {
			if ok {
				kept.Put(sharerKey{id, sh.ID}, keptSharer{version: v, s: sh})
			}
			found[id] = append(found[id], sh)
		}
	}
	return found, nil
}
