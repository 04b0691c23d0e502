package db

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"tributary"
	"tributary/db/internal/dbq"
)

// readableRollups rolls up the given anchors from their live posts that v may read;
// anchors with none left are absent.
func (s *Store) readableRollups(ctx context.Context, v tributary.Viewer, anchorIDs []int64) (map[int64]tributary.Rollup, error) {
	return rollups(ctx, s.q, anchorIDs, func(p tributary.PostFacts) bool { return v.CanRead(p.Access) })
}

func rollups(ctx context.Context, q *dbq.Queries, anchorIDs []int64, keep func(tributary.PostFacts) bool) (map[int64]tributary.Rollup, error) {
	out := make(map[int64]tributary.Rollup, len(anchorIDs))
	if len(anchorIDs) == 0 {
		return out, nil
	}
	rows, err := q.PostFactsByAnchors(ctx, anchorIDs)
	if err != nil {
		return nil, fmt.Errorf("db: post facts: %w", err)
	}
	g := rollupGroups{keep: keep, emit: func(r tributary.Rollup) error { out[r.AnchorID] = r; return nil }}
	for _, row := range rows {
		if err := g.add(row.PostFact, row.Audience); err != nil {
			return nil, err
		}
	}
	if err := g.end(); err != nil {
		return nil, err
	}
	return out, nil
}

// rollupGroups rolls up posts read in anchor order, an anchor at a time: add each post's
// row, then end. emit gets each anchor's rollup; keep, when set, keeps only the posts it
// accepts, and an anchor with none left is not emitted.
type rollupGroups struct {
	keep   func(tributary.PostFacts) bool
	emit   func(tributary.Rollup) error
	anchor int64
	group  []tributary.PostFacts
}

func (g *rollupGroups) add(row dbq.PostFact, audience []byte) error {
	if row.AnchorID != g.anchor {
		if err := g.end(); err != nil {
			return err
		}
		g.anchor = row.AnchorID
	}
	p, err := postFacts(row)
	if err != nil {
		return err
	}
	if p.Feeds, err = audienceFeeds(audience); err != nil {
		return fmt.Errorf("db: post %d audience: %w", row.ID, err)
	}
	if g.keep == nil || g.keep(p) {
		g.group = append(g.group, p)
	}
	return nil
}

// end emits the rollup of the anchor read last.
func (g *rollupGroups) end() error {
	if len(g.group) == 0 {
		return nil
	}
	r := tributary.RollupOf(g.group)
	g.group = g.group[:0]
	return g.emit(r)
}

func postFacts(r dbq.PostFact) (tributary.PostFacts, error) {
	var links []tributary.Link
	if err := json.Unmarshal(r.LinkedUrls, &links); err != nil {
		return tributary.PostFacts{}, fmt.Errorf("db: post %d links: %w", r.ID, err)
	}
	return tributary.PostFacts{
		ID: r.ID, AnchorID: r.AnchorID, AnchorURL: r.AnchorUrl, AnchorKind: tributary.Kind(r.AnchorKind),
		URL: r.Url, CanonicalURL: r.CanonicalUrl, Title: r.Title, Body: r.Body, Host: r.Host, Links: links,
		ImageCount: int(r.ImageCount), URLCount: int(r.UrlCount), SciScore: int(r.SciScore), Tags: r.Tags,
		CreatedAt: r.CreatedAt, Notability: r.Notability, ToFollowers: r.ToFollowers.Bool,
		Author:   tributary.UserRef{ID: r.AuthorID, Handle: r.Handle, Name: r.DisplayName, VIP: r.Vip, Avatar: r.Avatar.String},
		Access:   tributary.PostAccess{Public: r.IsPublic, ProtectedOwners: r.ProtectedOwnerIds, PrivateFeeds: r.PrivateFeedIds},
		GroupIDs: r.GroupFeedIds,
	}, nil
}

// audienceFeeds decodes post_audience's column (none: nil or empty).
func audienceFeeds(raw []byte) ([]tributary.AudienceFeed, error) {
	if len(raw) == 0 || string(raw) == "[]" {
		return nil, nil
	}
	var out []tributary.AudienceFeed
	return out, json.Unmarshal(raw, &out)
}

// sharerJSON is one entry of a snapshot row's pre-rendered sharer stack.
type sharerJSON struct {
	ID     int64     `json:"id"`
	Handle string    `json:"handle"`
	Name   string    `json:"name"`
	VIP    bool      `json:"vip"`
	Public bool      `json:"public"`
	At     time.Time `json:"at"`
	Avatar string    `json:"avatar,omitempty"` // a row written before avatars has none
}

// snapshotRow is the feed_snapshot row of a rollup, scored as of now.
func snapshotRow(r tributary.Rollup, w tributary.Weights, now time.Time) ([]any, error) {
	sharers := make([]sharerJSON, len(r.Sharers))
	for i, s := range r.Sharers {
		sharers[i] = sharerJSON{ID: s.ID, Handle: s.Handle, Name: s.Name, VIP: s.VIP, Public: s.Public, At: s.At, Avatar: s.Avatar}
	}
	sj, err := json.Marshal(sharers)
	if err != nil {
		return nil, err
	}
	lj, err := json.Marshal(nonNil(r.Rep.Links))
	if err != nil {
		return nil, err
	}
	var publicDate *time.Time
	if !r.PublicDate.IsZero() {
		publicDate = &r.PublicDate
	}
	it := r.Item()
	return []any{r.AnchorID, r.AnchorURL, string(r.Kind), r.Date, publicDate, w.Score(r.Inputs(), now).Base(),
		int16(r.SciScore), int32(r.TotalShare), r.SharerIDs, r.PublicSharerIDs, r.AnyVIPSharer, r.AllPublic,
		r.Access.Public, r.Access.ProtectedOwners, r.Access.PrivateFeeds, r.Rep.ID, r.Rep.URL, r.Rep.CanonicalURL,
		r.Rep.Title, it.Excerpt, r.Rep.Host, lj, int32(r.Rep.ImageCount), int32(r.Rep.URLCount), r.Rep.Author.ID,
		r.Rep.Author.VIP, r.Rep.Notability, r.Tags, sj, now, r.GroupIDs}, nil
}

var snapshotColumns = []string{"anchor_id", "anchor_url", "kind", "date", "public_date", "score", "sci_score",
	"total_share", "sharer_user_ids", "public_sharer_ids", "any_vip_sharer", "all_public", "any_public",
	"protected_owner_ids", "private_feed_ids", "rep_post_id", "url", "canonical_url", "title", "excerpt", "host",
	"links", "image_count", "url_count", "primary_user_id", "primary_vip", "primary_notability", "tags", "sharers",
	"refreshed_at", "group_ids"}

// rollupOfRow reads a snapshot row back as the rollup it was made from (the representative
// post's body is its excerpt).
func (st *Store) rollupOfRow(s dbq.FeedSnapshot) (tributary.Rollup, error) {
	links, sharers, err := st.cards.decode(s.Links, s.Sharers)
	if err != nil {
		return tributary.Rollup{}, fmt.Errorf("db: item %d: %w", s.AnchorID, err)
	}
	r := tributary.Rollup{AnchorID: s.AnchorID, AnchorURL: s.AnchorUrl, Kind: tributary.Kind(s.Kind), Date: s.Date,
		TotalShare: int(s.TotalShare), SharerIDs: s.SharerUserIds, PublicSharerIDs: s.PublicSharerIds,
		AnyVIPSharer: s.AnyVipSharer, SciScore: int(s.SciScore), Tags: s.Tags, AllPublic: s.AllPublic, GroupIDs: s.GroupIds,
		Access: tributary.PostAccess{Public: s.AnyPublic, ProtectedOwners: s.ProtectedOwnerIds, PrivateFeeds: s.PrivateFeedIds},
		Rep: tributary.PostFacts{ID: s.RepPostID, AnchorID: s.AnchorID, AnchorURL: s.AnchorUrl, URL: s.Url,
			CanonicalURL: s.CanonicalUrl, Title: s.Title, Body: s.Excerpt, Host: s.Host, Links: links,
			ImageCount: int(s.ImageCount), URLCount: int(s.UrlCount), Notability: s.PrimaryNotability,
			Author: tributary.UserRef{ID: s.PrimaryUserID, VIP: s.PrimaryVip}},
	}
	if s.PublicDate != nil {
		r.PublicDate = *s.PublicDate
	}
	r.Sharers = make([]tributary.Sharer, 0, len(sharers))
	for _, sh := range sharers {
		ref := tributary.UserRef{ID: sh.ID, Handle: sh.Handle, Name: sh.Name, VIP: sh.VIP, Avatar: sh.Avatar}
		r.Sharers = append(r.Sharers, tributary.Sharer{UserRef: ref, At: sh.At, Public: sh.Public})
		if sh.ID == s.PrimaryUserID {
			r.Rep.Author = ref
		}
	}
	return r, nil
}
