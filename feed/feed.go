// Package feed ranks timelines: it picks the snapshot or the live path, adds the viewer's
// bonuses, hides what the viewer has seen, diversifies authors and caches anonymous pages.
package feed

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"tributary"
	"tributary/db"
)

// Config tunes the ranker; DefaultConfig holds seed 000's values.
type Config struct {
	Weights        tributary.Weights
	Diversity      tributary.Diversity
	MinSeenDwellMs int64         // dwell that makes an item seen
	SeenGrace      time.Duration // dwell younger than this does not count yet (no cards vanishing mid-scroll)
	SeenHorizon    time.Duration // dwell older than this is forgotten
	SnapshotMaxAge time.Duration // older snapshots are bypassed for the live path
	LiveFactor     int           // the live path scans limit × LiveFactor recent shares ...
	LiveCap        int           // ... at most this many
	AnonTTL        time.Duration
	AnonCacheSize  int
}

// DefaultConfig returns seed 000's defaults.
func DefaultConfig() Config {
	return Config{
		Weights: tributary.DefaultWeights, Diversity: tributary.DefaultDiversity,
		MinSeenDwellMs: 1500, SeenGrace: 10 * time.Minute, SeenHorizon: 30 * 24 * time.Hour,
		SnapshotMaxAge: 3 * time.Hour, LiveFactor: 16, LiveCap: 2000,
		AnonTTL: 60 * time.Second, AnonCacheSize: 512,
	}
}

// Service serves ranked timelines.
type Service struct {
	store *db.Store
	cfg   Config
	now   func() time.Time
	anon  *anonCache
}

// New builds a Service; now defaults to time.Now.
func New(store *db.Store, cfg Config, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	store.Weights = cfg.Weights
	return &Service{store: store, cfg: cfg, now: now, anon: newAnonCache(cfg.AnonTTL, cfg.AnonCacheSize, now)}
}

// Timeline returns one page of the viewer's ranked feed (viewer nil: the anonymous front page).
func (s *Service) Timeline(ctx context.Context, viewer *tributary.User, q tributary.FeedQuery) (tributary.Timeline, error) {
	if viewer != nil {
		return s.rank(ctx, viewer, q)
	}
	q.IncludeSeen = false // nothing is seen by nobody
	t, hit, err := s.anon.get(ctx, q.Signature()+"&cursor="+q.Cursor, func(ctx context.Context) (tributary.Timeline, error) {
		return s.rank(ctx, nil, q)
	})
	if hit {
		t.Path = tributary.PathCache
	}
	return t, err
}

// viewerState is what ranking needs to know about the viewer.
type viewerState struct {
	followed []int64             // sorted
	seen     map[int64]bool      // items the viewer has seen
	fresh    map[int64]time.Time // the viewer's own shares within the fresh-self window
}

func (s *Service) load(ctx context.Context, viewer *tributary.User, now time.Time) (viewerState, error) {
	var v viewerState
	var err error
	if viewer == nil {
		v.followed, err = s.store.VIPs(ctx)
		return v, err
	}
	if v.followed, err = s.store.Followed(ctx, viewer.ID); err != nil {
		return v, err
	}
	seen, err := s.store.SeenAnchors(ctx, viewer.ID, now.Add(-s.cfg.SeenHorizon), now.Add(-s.cfg.SeenGrace), s.cfg.MinSeenDwellMs)
	if err != nil {
		return v, err
	}
	v.seen = make(map[int64]bool, len(seen))
	for _, id := range seen {
		v.seen[id] = true
	}
	v.fresh, err = s.store.RecentShares(ctx, viewer.ID, now.Add(-s.cfg.Weights.FreshSelfFor))
	return v, err
}

func (s *Service) rank(ctx context.Context, viewer *tributary.User, q tributary.FeedQuery) (tributary.Timeline, error) {
	now := s.now()
	v, err := s.load(ctx, viewer, now)
	if err != nil {
		return tributary.Timeline{}, err
	}
	filter := db.FeedFilter{Source: q.Source, Tag: q.Tag, Since: q.Since, Until: q.Until}
	var hidden []int64
	if !q.IncludeSeen {
		for id := range v.seen {
			hidden = append(hidden, id)
		}
		slices.Sort(hidden)
	}
	path, cands, err := s.candidates(ctx, viewer, v, filter, hidden, q.Limit*2, now)
	if err != nil {
		return tributary.Timeline{}, err
	}
	items := make([]tributary.Item, 0, len(cands))
	for _, c := range cands {
		if !q.IncludeSeen && v.seen[c.Item.ID] {
			continue // the live path filters seen items here, the snapshot path in SQL
		}
		items = append(items, s.explain(c, viewer, v, now))
	}
	slices.SortStableFunc(items, compareItems)
	if len(items) > q.Limit*2 {
		items = items[:q.Limit*2]
	}
	items = s.cfg.Diversity.Diversify(items)
	if len(items) > q.Limit {
		items = items[:q.Limit]
	}
	return tributary.Timeline{Items: items, Path: path}, nil
}

// candidates picks the path: the snapshot when it is fresh and no category filter is set,
// the live path otherwise.
func (s *Service) candidates(ctx context.Context, viewer *tributary.User, v viewerState, f db.FeedFilter,
	hidden []int64, limit int, now time.Time) (string, []db.Candidate, error) {
	st, ok, err := s.store.Snapshot(ctx)
	if err != nil {
		return "", nil, err
	}
	if ok && now.Sub(st.RefreshedAt) < s.cfg.SnapshotMaxAge && f.Source == "" {
		var cands []db.Candidate
		if viewer == nil {
			cands, err = s.store.SnapshotFeedAnon(ctx, f, limit)
		} else {
			fresh := make([]int64, 0, len(v.fresh))
			for id := range v.fresh {
				fresh = append(fresh, id)
			}
			cands, err = s.store.SnapshotFeed(ctx, db.SnapshotQuery{FeedFilter: f, Followed: v.followed,
				Fresh: fresh, Hidden: hidden, Limit: limit})
		}
		return tributary.PathSnapshot, cands, err
	}
	n := min(limit/2*s.cfg.LiveFactor, s.cfg.LiveCap)
	cands, err := s.store.LiveFeed(ctx, db.LiveQuery{FeedFilter: f, Followed: v.followed, PublicOnly: viewer == nil,
		Candidates: n}, now)
	return tributary.PathLive, cands, err
}

// explain scores a candidate term by term for this viewer and marks what the viewer knows.
func (s *Service) explain(c db.Candidate, viewer *tributary.User, v viewerState, now time.Time) tributary.Item {
	it := c.Item
	// Viewer-agnostic terms are as of when they were computed (the snapshot's refresh).
	parts := s.cfg.Weights.Score(c.Inputs, c.ScoredAt)
	if viewer != nil {
		in := tributary.ScoreInputs{FolloweeShare: countIn(it.SharerIDs, v.followed), ViewerShareAt: v.fresh[it.ID]}
		vp := s.cfg.Weights.Score(in, now)
		parts.FolloweeShare, parts.FreshSelf = vp.FolloweeShare, vp.FreshSelf
		parts.Total = parts.Base() + parts.FolloweeShare + parts.FreshSelf
		it.AlreadySeen = v.seen[it.ID]
		for i := range it.Sharers {
			_, it.Sharers[i].Followed = slices.BinarySearch(v.followed, it.Sharers[i].ID)
		}
	}
	it.ScoreParts, it.Score = parts, parts.Total
	return it
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

// countIn counts the ids of a that are in sorted.
func countIn(a, sorted []int64) int {
	n := 0
	for _, id := range a {
		if _, ok := slices.BinarySearch(sorted, id); ok {
			n++
		}
	}
	return n
}
