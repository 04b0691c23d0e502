package db

import (
	"context"
	"encoding/json"
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

// Followed returns the followed set of a viewer: their active followees and themselves.
func (s *Store) Followed(ctx context.Context, viewerID int64) ([]int64, error) {
	ids, err := s.q.FollowedIDs(ctx, viewerID)
	if err != nil {
		return nil, fmt.Errorf("db: followed: %w", err)
	}
	slices.Sort(ids)
	return ids, nil
}

// VIPs returns the ids of VIP users: the anonymous audience's followed set.
func (s *Store) VIPs(ctx context.Context) ([]int64, error) {
	ids, err := s.q.VIPIDs(ctx)
	if err != nil {
		return nil, fmt.Errorf("db: vips: %w", err)
	}
	return ids, nil
}

// SeenAnchors returns the items the viewer has seen: card_seen dwell in [from, to) summing
// to at least minDwellMs.
func (s *Store) SeenAnchors(ctx context.Context, viewerID int64, from, to time.Time, minDwellMs int64) ([]int64, error) {
	ids, err := s.q.SeenAnchors(ctx, dbq.SeenAnchorsParams{ViewerID: viewerID, FromAt: from, ToAt: to, MinDwellMs: minDwellMs})
	if err != nil {
		return nil, fmt.Errorf("db: seen anchors: %w", err)
	}
	return ids, nil
}

// RecentShares maps the anchors the viewer shared since a time to their newest share.
func (s *Store) RecentShares(ctx context.Context, viewerID int64, since time.Time) (map[int64]time.Time, error) {
	rows, err := s.q.RecentSharesBy(ctx, dbq.RecentSharesByParams{AuthorID: viewerID, Since: since})
	if err != nil {
		return nil, fmt.Errorf("db: recent shares: %w", err)
	}
	m := make(map[int64]time.Time, len(rows))
	for _, r := range rows {
		m[r.AnchorID] = r.At
	}
	return m, nil
}

// SnapshotQuery is a logged-in viewer's snapshot-path request.
type SnapshotQuery struct {
	FeedFilter
	Followed []int64 // sorted
	Fresh    []int64 // anchors the viewer shared within the fresh-self window
	Hidden   []int64 // seen items to leave out
	Only     []int64 // when set, rank only these items
	Limit    int
}

// Candidate is a ranked row before the Go side explains and diversifies it.
type Candidate struct {
	Item          tributary.Item
	Inputs        tributary.ScoreInputs // viewer-agnostic inputs
	ScoredAt      time.Time             // the time the stored score was computed at
	FolloweeShare int
	Effective     float64 // the SQL-side ranking score (0 when ranking happens in Go)
}

// SnapshotFeed runs the snapshot path for a logged-in viewer.
func (s *Store) SnapshotFeed(ctx context.Context, q SnapshotQuery) ([]Candidate, error) {
	since, until := q.bounds()
	w := s.Weights
	rows, err := s.q.SnapshotFeed(ctx, dbq.SnapshotFeedParams{
		Followed: q.Followed, FreshIds: nonNilIDs(q.Fresh), HiddenIds: nonNilIDs(q.Hidden), OnlyIds: nonNilIDs(q.Only), Kind: string(q.Source), Tag: q.Tag,
		Since: since, Until: until, Lim: int32(q.Limit),
		FolloweeCap: w.FolloweeCap, FolloweeWeight: w.FolloweeShare, FreshWeight: w.FreshSelf,
	})
	if err != nil {
		return nil, fmt.Errorf("db: snapshot feed: %w", err)
	}
	out := make([]Candidate, 0, len(rows))
	for _, r := range rows {
		c, err := snapshotCandidate(r.FeedSnapshot)
		if err != nil {
			return nil, err
		}
		c.FolloweeShare, c.Effective = int(r.FolloweeShare), r.EffectiveScore
		out = append(out, c)
	}
	return out, nil
}

// SnapshotFeedAnon runs the snapshot path for anonymous viewers: public VIP shares.
func (s *Store) SnapshotFeedAnon(ctx context.Context, f FeedFilter, limit int) ([]Candidate, error) {
	since, until := f.bounds()
	rows, err := s.q.SnapshotFeedAnon(ctx, dbq.SnapshotFeedAnonParams{Kind: string(f.Source), Tag: f.Tag,
		Since: since, Until: until, Lim: int32(limit)})
	if err != nil {
		return nil, fmt.Errorf("db: anonymous snapshot feed: %w", err)
	}
	out := make([]Candidate, 0, len(rows))
	for _, r := range rows {
		c, err := snapshotCandidate(r)
		if err != nil {
			return nil, err
		}
		c.Effective = r.Score
		out = append(out, c)
	}
	return out, nil
}

// LiveQuery is a live-path request.
type LiveQuery struct {
	FeedFilter
	Followed   []int64
	PublicOnly bool // anonymous audience
	Candidates int  // how many recent shares to scan
}

// LiveFeed runs the live path's SQL layers: the most recent shares of the followed set, then
// one rollup row per anchor (representative post, sharers, counts). Scoring happens in Go.
func (s *Store) LiveFeed(ctx context.Context, q LiveQuery, now time.Time) ([]Candidate, error) {
	since, until := q.bounds()
	if w := now.Add(-SnapshotWindow); since.Before(w) {
		since = w
	}
	shares, err := s.q.LiveCandidates(ctx, dbq.LiveCandidatesParams{Followed: q.Followed, PublicOnly: q.PublicOnly,
		Since: since, Until: until, Kind: string(q.Source), Tag: q.Tag, CandLimit: int32(q.Candidates)})
	if err != nil {
		return nil, fmt.Errorf("db: live candidates: %w", err)
	}
	ids := make([]int64, len(shares))
	followee := make(map[int64]int, len(shares))
	for i, sh := range shares {
		ids[i] = sh.AnchorID
		followee[sh.AnchorID] = int(sh.FolloweeShare)
	}
	rollups, err := s.q.RollupByAnchors(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("db: live rollup: %w", err)
	}
	out := make([]Candidate, 0, len(rollups))
	for _, r := range rollups {
		c, err := candidate(r, now)
		if err != nil {
			return nil, err
		}
		c.FolloweeShare = followee[r.AnchorID]
		out = append(out, c)
	}
	return out, nil
}

func snapshotCandidate(r dbq.FeedSnapshot) (Candidate, error) {
	return candidate(dbq.AnchorRollup{
		AnchorID: r.AnchorID, AnchorUrl: r.AnchorUrl, Date: r.Date, PublicDate: r.PublicDate, TotalShare: r.TotalShare,
		SharerUserIds: r.SharerUserIds, PublicSharerIds: r.PublicSharerIds, AnyVipSharer: r.AnyVipSharer,
		SciScore: r.SciScore, RepPostID: r.RepPostID, Url: r.Url, CanonicalUrl: r.CanonicalUrl, Title: r.Title, Excerpt: r.Excerpt,
		Kind: r.Kind, Host: r.Host, Images: r.Images, ImageCount: r.ImageCount, UrlCount: r.UrlCount,
		PrimaryUserID: r.PrimaryUserID, PrimaryVip: r.PrimaryVip, PrimaryNotability: r.PrimaryNotability,
		Tags: r.Tags, Sharers: r.Sharers,
	}, r.RefreshedAt)
}

type sharerJSON struct {
	ID     int64     `json:"id"`
	Handle string    `json:"handle"`
	Name   string    `json:"name"`
	VIP    bool      `json:"vip"`
	Public bool      `json:"public"`
	At     time.Time `json:"at"`
}

// candidate builds the one item schema from a rollup row (snapshot rows are rollups as of
// scoredAt).
func candidate(r dbq.AnchorRollup, scoredAt time.Time) (Candidate, error) {
	var links []tributary.Link
	if err := json.Unmarshal(r.Images, &links); err != nil {
		return Candidate{}, fmt.Errorf("db: item %d images: %w", r.AnchorID, err)
	}
	var sharers []sharerJSON
	if err := json.Unmarshal(r.Sharers, &sharers); err != nil {
		return Candidate{}, fmt.Errorf("db: item %d sharers: %w", r.AnchorID, err)
	}
	it := tributary.Item{
		ID: r.AnchorID, URL: r.Url, CanonicalURL: r.CanonicalUrl, AnchorURL: r.AnchorUrl, Title: r.Title, Excerpt: r.Excerpt,
		Kind: tributary.Kind(r.Kind), Host: r.Host, Date: r.Date, ShareCount: int(r.TotalShare),
		Images: []string{}, Tags: r.Tags, RepPostID: r.RepPostID, SharerIDs: r.SharerUserIds,
		PrimaryUser: tributary.UserRef{ID: r.PrimaryUserID},
	}
	for _, l := range links {
		if l.Image != "" {
			it.Images = append(it.Images, l.Image)
		}
	}
	for _, sh := range sharers {
		ref := tributary.UserRef{ID: sh.ID, Handle: sh.Handle, Name: sh.Name, VIP: sh.VIP}
		it.Sharers = append(it.Sharers, tributary.Sharer{UserRef: ref, At: sh.At})
		if sh.ID == r.PrimaryUserID {
			it.PrimaryUser = ref
		}
	}
	return Candidate{Item: it, Inputs: rollupInputs(r), ScoredAt: scoredAt}, nil
}

func nonNilIDs(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}
