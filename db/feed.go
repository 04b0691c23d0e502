package db

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"tributary"
	"tributary/db/internal/dbq"
)

// FeedFilter narrows a ranked feed; zero fields do not filter.
type FeedFilter struct {
	Source       tributary.Kind
	Tag          string
	Since, Until time.Time
}

func (f FeedFilter) bounds() (time.Time, time.Time) {
	since, until := f.Since, f.Until
	if since.IsZero() {
		since = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if until.IsZero() {
		until = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return since, until
}

// VIPs returns the ids of VIP users: the anonymous audience's followed set.
func (s *Store) VIPs(ctx context.Context) ([]int64, error) {
	ids, err := s.reads(ctx).VIPIDs(ctx)
	if err != nil {
		return nil, fmt.Errorf("db: vips: %w", err)
	}
	return ids, nil
}

// SnapshotQuery is a logged-in viewer's snapshot-path request.
type SnapshotQuery struct {
	FeedFilter
	Viewer   tributary.Viewer
	Followed tributary.IDSet
	Fresh    []int64 // anchors the viewer shared within the fresh-self window: always fetched
	Hidden   []int64 // seen items to leave out
	Limit    int
}

// Candidate is a ranked row before the Go side explains and diversifies it.
type Candidate struct {
	Rollup   tributary.Rollup
	ScoredAt time.Time // the time the viewer-agnostic score terms are taken at
}

// SnapshotMatch is a snapshot row as the logged-in path ranks it: the stored score, what
// orders ties and what the diversity pass and the followed-set checks read, not what only a
// card shows. Rows not AllPublic must be read in full to be ranked (Items): a viewer may see
// them rolled up from fewer posts.
type SnapshotMatch struct {
	AnchorID      int64
	Score         float64 // viewer-agnostic, as of the row's refresh
	SharerIDs     []int64
	Date          time.Time
	URL           string
	PrimaryUserID int64
	AllPublic     bool
	GroupIDs      []int64 // the groups it is in: a member's home feed has it
	// FollowedSharers is how many of the viewer's followees are among SharerIDs, up to the
	// most that score, when the ranking copy counted them (feed's; the snapshot query
	// leaves it 0).
	FollowedSharers int
}

func matchOf(r dbq.SnapshotScanRow) SnapshotMatch {
	return SnapshotMatch{AnchorID: r.AnchorID, Score: r.Score, SharerIDs: r.SharerUserIds, Date: r.Date, URL: r.Url,
		PrimaryUserID: r.PrimaryUserID, AllPublic: r.AllPublic, GroupIDs: r.GroupIds}
}

// SnapshotFeed runs the snapshot path for a logged-in viewer: the Limit best rows by stored
// score plus followee bonus (snapshotScan), and the viewer's fresh shares, which the
// fresh-self boost can lift to the top, in no particular order.
func (s *Store) SnapshotFeed(ctx context.Context, q SnapshotQuery) ([]SnapshotMatch, error) {
	rows, err := s.snapshotScan(ctx, q)
	if err != nil {
		return nil, err
	}
	if len(q.Fresh) == 0 {
		return rows, nil
	}
	since, until := q.bounds()
	fresh, err := s.reads(ctx).SnapshotAmong(ctx, dbq.SnapshotAmongParams{HiddenIds: nonNilIDs(q.Hidden), OnlyIds: q.Fresh,
		Kind: string(q.Source), Tag: q.Tag, Since: since, Until: until,
		ViewerID: q.Viewer.ID, Blocked: nonNilIDs(q.Viewer.Blocked), PrivateFeeds: nonNilIDs(q.Viewer.PrivateFeeds)})
	if err != nil {
		return nil, fmt.Errorf("db: snapshot fresh: %w", err)
	}
	for _, r := range fresh {
		if !slices.ContainsFunc(rows, func(x SnapshotMatch) bool { return x.AnchorID == r.AnchorID }) {
			rows = append(rows, matchOf(dbq.SnapshotScanRow(r)))
		}
	}
	return rows, nil
}

// LargeFollowedSet is the size of followed set from which its sharers are dense in the
// snapshot: reading rows in score order and filtering in Go beats the GIN index.
const LargeFollowedSet = 100

// snapshotScan ranks on the ranking columns. Small followed sets get every match from the
// GIN index; large ones read rows in score order, keep those with a followee among the
// sharers, and stop once no row further down could overtake the limit-th one by the largest
// followee bonus (or after scanPages pages). It returns the best limit, in no particular
// order.
func (s *Store) snapshotScan(ctx context.Context, q SnapshotQuery) ([]SnapshotMatch, error) {
	since, until := q.bounds()
	const page, scanPages = 1000, 3
	margin := s.Weights.FolloweeCap * s.Weights.FolloweeShare
	type match struct {
		row SnapshotMatch
		eff float64
	}
	var matched []match
	keep := func(rows []dbq.SnapshotScanRow) {
		for _, r := range rows {
			if n := q.Followed.Count(r.SharerUserIds); n > 0 || q.Viewer.InGroup(r.GroupIds) {
				bonus := s.Weights.Score(tributary.ScoreInputs{FolloweeShare: n}, time.Time{}).FolloweeShare
				matched = append(matched, match{matchOf(r), r.Score + bonus})
			}
		}
		slices.SortStableFunc(matched, func(a, b match) int { return cmp.Compare(b.eff, a.eff) })
	}
	if q.Followed.Len() < LargeFollowedSet {
		// A small followed set: the GIN index finds every match at once.
		rows, err := s.reads(ctx).SnapshotMatches(ctx, dbq.SnapshotMatchesParams{Followed: q.Followed.IDs(), Groups: nonNilIDs(q.Viewer.Groups), Kind: string(q.Source),
			Tag: q.Tag, ViewerID: q.Viewer.ID, Blocked: nonNilIDs(q.Viewer.Blocked),
			PrivateFeeds: nonNilIDs(q.Viewer.PrivateFeeds), HiddenIds: nonNilIDs(q.Hidden), Since: since, Until: until,
			Lim: scanPages * page})
		if err != nil {
			return nil, fmt.Errorf("db: snapshot matches: %w", err)
		}
		scan := make([]dbq.SnapshotScanRow, len(rows))
		for i, r := range rows {
			scan[i] = dbq.SnapshotScanRow(r)
		}
		keep(scan)
	}
	for off := 0; q.Followed.Len() >= LargeFollowedSet; off += page {
		rows, err := s.reads(ctx).SnapshotScan(ctx, dbq.SnapshotScanParams{Kind: string(q.Source), Tag: q.Tag,
			ViewerID: q.Viewer.ID, Blocked: nonNilIDs(q.Viewer.Blocked), PrivateFeeds: nonNilIDs(q.Viewer.PrivateFeeds),
			HiddenIds: nonNilIDs(q.Hidden), Since: since, Until: until, Lim: page, Off: int32(off)})
		if err != nil {
			return nil, fmt.Errorf("db: snapshot scan: %w", err)
		}
		keep(rows)
		// Past a few pages the stored scores are far enough down that a followee bonus lifting
		// one of them into the page is rare: stop there rather than read the whole snapshot.
		if len(rows) < page || off >= (scanPages-1)*page ||
			(len(matched) >= q.Limit && matched[q.Limit-1].eff >= rows[len(rows)-1].Score+margin) {
			break
		}
	}
	out := make([]SnapshotMatch, 0, q.Limit)
	for _, m := range matched[:min(len(matched), q.Limit)] {
		out = append(out, m.row)
	}
	return out, nil
}

// SnapshotFeedAnon runs the snapshot path for anonymous viewers: public VIP shares.
func (s *Store) SnapshotFeedAnon(ctx context.Context, f FeedFilter, limit int) ([]Candidate, error) {
	since, until := f.bounds()
	rows, err := s.reads(ctx).SnapshotFeedAnon(ctx, dbq.SnapshotFeedAnonParams{Kind: string(f.Source), Tag: f.Tag,
		Since: since, Until: until, Lim: int32(limit)})
	if err != nil {
		return nil, fmt.Errorf("db: anonymous snapshot feed: %w", err)
	}
	return s.readable(ctx, rows, tributary.Anonymous)
}

// readable turns snapshot rows into candidates as the viewer may see them: rows shared only
// publicly as they are, the others rolled up again from the posts the viewer may read (so a
// private share's title, comment or sharer never shows), and unreadable ones dropped.
func (s *Store) readable(ctx context.Context, rows []dbq.FeedSnapshot, v tributary.Viewer) ([]Candidate, error) {
	out := make([]Candidate, 0, len(rows))
	var mixed []int64
	for _, r := range rows {
		if !r.AllPublic {
			mixed = append(mixed, r.AnchorID)
		}
	}
	redone, err := s.readableRollups(ctx, v, mixed)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if !r.AllPublic {
			if ru, ok := redone[r.AnchorID]; ok {
				out = append(out, Candidate{Rollup: ru, ScoredAt: r.RefreshedAt})
			}
			continue
		}
		ru, err := s.rollupOfRow(r)
		if err != nil {
			return nil, err
		}
		out = append(out, Candidate{Rollup: ru, ScoredAt: r.RefreshedAt})
	}
	return out, nil
}

// LiveQuery is a live-path request.
type LiveQuery struct {
	FeedFilter
	Viewer     tributary.Viewer
	Followed   tributary.IDSet
	Fresh      []int64 // anchors the viewer shared within the fresh-self window: always read
	Hidden     []int64 // seen items to leave out, sorted
	Candidates int     // how many recent shares to scan
	Limit      int     // how many of the best the caller ranks
}

// LiveFeed runs the live path: the most recent shares of the followed set that the viewer
// may read (candidates), grouped per anchor (url_share), then one rollup per anchor as the
// viewer may see it (dedup). The per-anchor aggregates come from the snapshot rows, which
// every share keeps current (rolled up from the posts for anchors the snapshot lacks). Rows
// shared only publicly are ranked first on their score inputs alone, taken at now with the
// followee bonus (best), and only the best Limit are read in full; the others (shared in
// part non-publicly, or missing from the snapshot), and the viewer's fresh shares, are
// always read, to be scored in Go as the viewer may see them.
func (s *Store) LiveFeed(ctx context.Context, q LiveQuery, now time.Time) ([]Candidate, error) {
	since, until := q.bounds()
	if w := now.Add(-SnapshotWindow); since.Before(w) {
		since = w
	}
	shares, err := s.reads(ctx).LiveCandidates(ctx, dbq.LiveCandidatesParams{Followed: q.Followed.IDs(), Groups: nonNilIDs(q.Viewer.Groups), ViewerID: q.Viewer.ID,
		Blocked: nonNilIDs(q.Viewer.Blocked), PrivateFeeds: nonNilIDs(q.Viewer.PrivateFeeds),
		Since: since, Until: until, Kind: string(q.Source), Tag: q.Tag, CandLimit: int32(q.Candidates)})
	if err != nil {
		return nil, fmt.Errorf("db: live candidates: %w", err)
	}
	ids := make([]int64, 0, len(shares))
	for _, sh := range shares {
		if _, hidden := slices.BinarySearch(q.Hidden, sh.AnchorID); !hidden {
			ids = append(ids, sh.AnchorID) // followee shares are counted again in Go, from readable sharers only
		}
	}
	ids, err = s.bestLive(ctx, q, ids, now)
	if err != nil {
		return nil, err
	}
	items, err := s.Items(ctx, ids, q.Viewer, now, nil)
	if err != nil {
		return nil, err
	}
	out := make([]Candidate, 0, len(items))
	for _, id := range ids {
		if c, ok := items[id]; ok {
			c.ScoredAt = now
			out = append(out, c)
		}
	}
	return out, nil
}

// bestLive narrows live candidates to those worth reading in full (see LiveFeed). Ties at
// the Limit-th score are all kept: the final order breaks them on columns not read here.
func (s *Store) bestLive(ctx context.Context, q LiveQuery, ids []int64, now time.Time) ([]int64, error) {
	if len(ids) <= q.Limit {
		return ids, nil
	}
	rows, err := s.reads(ctx).SnapshotScoreInputs(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("db: live score inputs: %w", err)
	}
	type ranked struct {
		id    int64
		score float64
	}
	public := make([]ranked, 0, len(rows))
	scored := make(map[int64]bool, len(rows))
	for _, r := range rows {
		if !r.AllPublic || slices.Contains(q.Fresh, r.AnchorID) {
			continue
		}
		in := tributary.ScoreInputs{SciScore: int(r.SciScore), Date: r.Date, TotalShare: int(r.TotalShare),
			PrimaryVIP: r.PrimaryVip, PrimaryNotability: r.PrimaryNotability, HasImage: r.ImageCount > 0}
		if q.Viewer.ID != 0 { // the followee bonus is a logged-in viewer's
			in.FolloweeShare = q.Followed.Count(r.SharerUserIds)
		}
		public = append(public, ranked{r.AnchorID, s.Weights.Score(in, now).Total})
		scored[r.AnchorID] = true
	}
	slices.SortFunc(public, func(a, b ranked) int { return cmp.Compare(b.score, a.score) })
	keep := make(map[int64]bool, q.Limit)
	for i, r := range public {
		if i >= q.Limit && r.score < public[q.Limit-1].score {
			break
		}
		keep[r.id] = true
	}
	return slices.DeleteFunc(ids, func(id int64) bool { return scored[id] && !keep[id] }), nil
}

func nonNilIDs(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

// Best of the week: how far back it reaches, and how many items it holds.
const (
	BestOfSpan = 7 * 24 * time.Hour
	BestOfSize = 50
)

// BestOf lists the items most shared and discussed in the week before the last snapshot
// refresh, best first (chosen by the refresh: queries/best.sql).
func (s *Store) BestOf(ctx context.Context) ([]int64, error) {
	ids, err := s.reads(ctx).BestOf(ctx)
	if err != nil {
		return nil, fmt.Errorf("db: best of: %w", err)
	}
	return ids, nil
}
