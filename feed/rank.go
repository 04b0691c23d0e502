package feed

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"tributary"
	"tributary/db"
)

// candidates ranks the whole window on the given path: up to limit items, best first.
// Items in stubs carry only what ranking reads (score, date, URL, primary author, sharers):
// whoever shows one reads it in full first.
func (s *Service) candidates(ctx context.Context, viewer *tributary.User, v viewerState, f db.FeedFilter,
	hidden []int64, limit int, path string, now time.Time) (items []tributary.Item, stubs map[int64]bool, err error) {
	var cands []db.Candidate
	switch {
	case path == tributary.PathSnapshot && viewer == nil:
		cands, err = s.store.SnapshotFeedAnon(ctx, f, limit)
	case path == tributary.PathSnapshot:
		return s.snapshotTop(ctx, viewer, v, f, hidden, limit, now)
	default:
		n := min(limit/2*s.cfg.LiveFactor, s.cfg.LiveCap)
		cands, err = s.store.LiveFeed(ctx, db.LiveQuery{FeedFilter: f, Followed: v.followed, Viewer: v.access,
			Fresh: v.freshIDs(), Hidden: hidden, Candidates: n, Limit: limit}, now)
	}
	if err != nil {
		return nil, nil, err
	}
	return s.rankCandidates(cands, viewer, v, limit, now), nil, nil
}

// snapshotTop ranks the whole window on the snapshot (exactly, see db.Store.SnapshotFeed).
// Rows shared only publicly are ranked on their ranking columns, as stubs: their score is
// the stored one plus the viewer's bonuses, as explain makes it. The others are read in full
// as the viewer may see them (fewer posts may give another score, date or author).
func (s *Service) snapshotTop(ctx context.Context, viewer *tributary.User, v viewerState, f db.FeedFilter,
	hidden []int64, limit int, now time.Time) ([]tributary.Item, map[int64]bool, error) {
	var rows []db.SnapshotMatch
	var copied *rankState
	var err error
	if s.cfg.CopyFrom > 0 && v.followed.Len() >= s.cfg.CopyFrom {
		if copied, err = s.rank.current(ctx, v.snapshot, v.changes, v.changesUpTo); err != nil {
			return nil, nil, err
		}
	}
	if copied != nil {
		rows = copied.top(s.cfg.Weights, rankFilter{FeedFilter: f, viewer: v.access, hidden: hidden}, v.followed, v.freshIDs(), limit)
	} else if rows, err = s.store.SnapshotFeed(ctx, db.SnapshotQuery{FeedFilter: f, Followed: v.followed, Viewer: v.access,
		Fresh: v.freshIDs(), Hidden: hidden, Limit: limit}); err != nil {
		return nil, nil, err
	}
	items := rankedItems(len(rows))
	stubs := make(map[int64]bool, len(rows))
	var partial []int64
	for _, r := range rows {
		if !r.AllPublic {
			partial = append(partial, r.AnchorID)
			continue
		}
		it := tributary.Item{ID: r.AnchorID, URL: r.URL, Date: r.Date, PrimaryUser: tributary.UserRef{ID: r.PrimaryUserID},
			SharerIDs: r.SharerIDs, GroupIDs: r.GroupIDs, AlreadySeen: v.seen[r.AnchorID]}
		followees := r.FollowedSharers // counted as the copy was ranked
		if copied == nil {
			followees = v.followed.Count(r.SharerIDs)
		}
		vp := s.viewerParts(it.ID, followees, v, now)
		it.Score = r.Score + vp.FolloweeShare + vp.FreshSelf
		items = append(items, it)
		stubs[it.ID] = true
	}
	if len(partial) > 0 {
		full, err := s.store.Items(ctx, partial, v.access, now, nil) // rolled up again: their sharers are not read
		if err != nil {
			return nil, nil, err
		}
		for _, id := range partial {
			if c, ok := full[id]; ok {
				items = append(items, s.explain(c, viewer, v, now))
			}
		}
	}
	slices.SortStableFunc(items, compareItems)
	return items[:min(len(items), limit)], stubs, nil
}

// knownSharers gives the sharers of the items that the ranking copy holds, when it is as
// current as the viewer's state: at 4M posts, reading them again was two thirds of reading
// a page's items.
func (s *Service) knownSharers(v viewerState) db.Sharers {
	if st := s.rank.ready(v); st != nil {
		return st.sharers
	}
	return nil
}

// rankCandidates explains candidates for the viewer and keeps the best limit, in order.
func (s *Service) rankCandidates(cands []db.Candidate, viewer *tributary.User, v viewerState, limit int, now time.Time) []tributary.Item {
	items := rankedItems(len(cands))
	for _, c := range cands {
		items = append(items, s.explain(c, viewer, v, now))
	}
	slices.SortStableFunc(items, compareItems)
	return items[:min(len(items), limit)]
}

// rankedLists recycles the lists of items a ranking sorts (rankedItems, doneRanking): a first
// page ranks a hundred items of half a kilobyte each, and their lists were a quarter of the
// bytes a page allocated.
var rankedLists = sync.Pool{New: func() any { return new([]tributary.Item) }}

// rankedItems is an empty list of items with room for n, to give back with doneRanking.
func rankedItems(n int) []tributary.Item {
	return slices.Grow((*rankedLists.Get().(*[]tributary.Item))[:0], n)
}

// doneRanking gives back a list rankedItems made once nothing refers to it any more (its
// items copied out), emptied so that it holds on to nothing.
func doneRanking(items []tributary.Item) {
	if cap(items) == 0 || cap(items) > 4096 {
		return
	}
	items = items[:cap(items)]
	clear(items)
	items = items[:0]
	rankedLists.Put(&items)
}

// explain scores a candidate term by term for this viewer and marks what the viewer knows.
// The candidate is not changed: it may be kept for other viewers (cards.go).
func (s *Service) explain(c db.Candidate, viewer *tributary.User, v viewerState, now time.Time) tributary.Item {
	it := c.Rollup.Item()
	it.Sharers = slices.Clone(it.Sharers) // marked and ordered for this viewer below
	// Viewer-agnostic terms are as of when they were computed (the snapshot's refresh).
	parts := s.cfg.Weights.Score(c.Rollup.Inputs(), c.ScoredAt)
	if viewer != nil {
		vp := s.viewerParts(it.ID, v.followed.Count(it.SharerIDs), v, now)
		parts.FolloweeShare, parts.FreshSelf = vp.FolloweeShare, vp.FreshSelf
		parts.Total = parts.Base() + parts.FolloweeShare + parts.FreshSelf
		it.AlreadySeen = v.seen[it.ID]
		for i := range it.Sharers {
			// The followed set holds the viewer too, who is not their own followee.
			s := &it.Sharers[i]
			s.Self = s.ID == viewer.ID
			s.Followed = !s.Self && v.followed.Has(s.ID)
		}
	}
	explainSharers(it.Sharers, viewer != nil)
	it.Audience = tributary.AudienceOf(c.Rollup.Feeds, c.Rollup.Access.Public, v.access)
	it.ScoreParts, it.Score = parts, parts.Total
	return it
}

// explainSharers puts first the sharers who explain the card to its reader: the viewer
// themselves, then the people they follow, or for anonymous visitors the trusted (VIP)
// sharers who put it on the front page; the rest keep their order (the primary sharer first).
func explainSharers(sharers []tributary.Sharer, loggedIn bool) {
	slices.SortStableFunc(sharers, func(a, b tributary.Sharer) int {
		if loggedIn {
			return cmp.Or(cmp.Compare(btoi(b.Self), btoi(a.Self)), cmp.Compare(btoi(b.Followed), btoi(a.Followed)))
		}
		return cmp.Compare(btoi(b.VIP), btoi(a.VIP))
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// viewerParts are the viewer's own score terms of an item: followees among its sharers and
// the viewer's fresh share.
func (s *Service) viewerParts(id int64, followedSharers int, v viewerState, now time.Time) tributary.ScoreParts {
	in := tributary.ScoreInputs{FolloweeShare: followedSharers, ViewerShareAt: v.fresh[id]}
	return s.cfg.Weights.Score(in, now)
}

// compareItems orders by score, then newest, then URL: the SQL ORDER BY.
func compareItems(a, b tributary.Item) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	if c := b.Date.Compare(a.Date); c != 0 {
		return c
	}
	return strings.Compare(a.URL, b.URL)
}
