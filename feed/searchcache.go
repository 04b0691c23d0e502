package feed

import (
	"cmp"
	"context"
	"slices"
	"time"

	"tributary/db"
	"tributary/internal/lru"
)

// A search's candidates: its newest results as anyone might read them, read once and kept
// on each instance for the readers of that search, so that they share its dearest part (the
// text index's matches sorted by time: 7 ms for two common words at 400k posts). They
// decide nothing alone. Each reader's head is the candidates checked again on their ids as
// that reader may read them now (deleted, unreadable and no longer matching ones left out:
// 1 ms for 300), after the results posted since the candidates' time, listed afresh. What
// could make an older post a result after that time is looked for in the same request: a
// comment made or edited since (db.SearchTalkSince). A post made with a time in the past
// (an import) records a change every instance hears of, and drops them all (siteChanged).
// Searches narrowed by groups, likes or tags change in other ways and are not kept.

const (
	// searchKeep is how many candidates a search keeps: its head's scan, and room for the
	// results a reader may not read.
	searchKeep = searchScan + 100
	// searchSettle: a post or comment is taken to have committed by this long after the
	// time it carries (migrations/00020_search_candidates.sql records the posts that carry
	// an older one). Candidates are the results up to this long before they were read.
	searchSettle = 5 * time.Second
	// searchLife bounds how long candidates are kept, and so how much is listed afresh
	// after them.
	searchLife = 2 * time.Minute
)

// searchCandidates are a search's results posted at or before cut, newest first, whoever
// may read them, with their rank: all of them (complete), or the newest searchKeep.
type searchCandidates struct {
	cut      time.Time
	posts    []db.SearchArrival
	complete bool
}

func newSearchCache(now func() time.Time) *lru.Cache[string, *searchCandidates] {
	return lru.New[string, *searchCandidates](searchLife, 512, now)
}

// candidates returns the search's candidates for a head read up to upTo, read again when
// none are kept or a comment may have made a result of an older post; nil when the search
// is not kept (or nothing may be kept on this instance now).
func (c *chronoSource) candidates(ctx context.Context, upTo time.Time) (*searchCandidates, error) {
	sq := *c.feed.Search
	if c.searches == nil || !sq.Settles() {
		return nil, nil
	}
	key := sq.Key()
	if kept, ok := c.searches.Get(key); ok && !upTo.Before(kept.cut) {
		talked, err := c.store.SearchTalkSince(ctx, sq, kept.cut)
		if err != nil || !talked {
			return kept, err
		}
	}
	cut := upTo.Add(-searchSettle)
	posts, err := c.store.SearchCandidates(ctx, sq, cut, searchKeep)
	if err != nil {
		return nil, err
	}
	kept := &searchCandidates{cut: cut, posts: posts, complete: len(posts) < searchKeep}
	c.searches.Put(key, kept)
	return kept, nil
}

// searchHead lists the newest n results of the search posted in (after, upTo] as the viewer
// may read them, newest first, and whether they are all of that interval's: a run of its
// results from the newest on either way (possibly fewer than n when the candidates ran out).
func (c *chronoSource) searchHead(ctx context.Context, after, upTo time.Time, n int) ([]db.SearchArrival, bool, error) {
	kept, err := c.candidates(ctx, upTo)
	if err != nil {
		return nil, false, err
	}
	if kept == nil || !after.Before(kept.cut) {
		arrived, err := c.arrived(ctx, c.query(after, upTo, Pos{}, nil, n))
		return arrived, len(arrived) < n, err
	}
	arrived, err := c.store.SearchRecent(ctx, *c.feed.Search, c.query(kept.cut, upTo, Pos{}, nil, n))
	if err != nil || len(arrived) == n {
		return arrived, false, err
	}
	// The candidates posted after `after`: a run from the newest (they are newest first).
	among := make([]int64, 0, len(kept.posts))
	for _, p := range kept.posts {
		if !p.At.After(after) {
			break
		}
		among = append(among, p.PostID)
	}
	// They cover the interval when they are every result up to cut, or go back past after.
	covered := kept.complete || len(among) < len(kept.posts)
	if len(among) == 0 {
		return arrived, covered, nil
	}
	found, err := c.store.SearchAmong(ctx, *c.feed.Search, c.access, among)
	if err != nil {
		return nil, false, err
	}
	slices.Sort(found)
	for _, p := range kept.posts[:len(among)] {
		if len(arrived) == n {
			return arrived, false, nil
		}
		if _, ok := slices.BinarySearch(found, p.PostID); ok {
			arrived = append(arrived, p)
		}
	}
	return arrived, covered, nil
}

// searchRanked is a search's chronoSource.Ranked: the best matches among the newest
// searchScan results, the late ones after them.
func (c *chronoSource) searchRanked(ctx context.Context, after, upTo time.Time, limit int) ([]int64, bool, error) {
	arrived, all, err := c.searchHead(ctx, after, upTo, max(limit+1, searchScan))
	if err != nil {
		return nil, false, err
	}
	// The late results end the head, as on the other feeds: the tail lists the interval's.
	late, err := c.store.SearchLate(ctx, *c.feed.Search, c.sinceFencepost(c.query(after, upTo, Pos{}, nil, limit)))
	if err != nil {
		return nil, false, err
	}
	late = slices.DeleteFunc(late, func(l db.PostArrival) bool {
		return slices.ContainsFunc(arrived, func(a db.SearchArrival) bool { return a.PostID == l.PostID })
	})
	late = late[:min(len(late), limit)]
	best := slices.Clone(arrived)
	slices.SortStableFunc(best, func(a, b db.SearchArrival) int { return cmp.Compare(b.Rank, a.Rank) })
	ids := make([]int64, 0, min(len(best)+len(late), limit))
	for _, a := range best[:min(len(best), limit-len(late))] {
		ids = append(ids, a.PostID)
	}
	for _, l := range late {
		ids = append(ids, l.PostID)
	}
	// The tail of the fencepost these make begins with the rest, in arrival order: kept as
	// if read ahead, its first pages read nothing.
	if c.tails != nil && len(ids) > 0 {
		entries := make([]Entry, 0, max(len(arrived)-len(ids), 0))
		for _, a := range arrived {
			if !slices.Contains(ids, a.PostID) {
				entries = append(entries, Entry{ID: a.PostID, Arrival: a.At})
			}
		}
		c.tails.Put(c.tailKey(after, upTo, ids), &tailBatch{entries: entries, complete: all})
	}
	return ids, all && len(arrived)+len(late) <= limit, nil
}
