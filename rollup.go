package tributary

import (
	"cmp"
	"slices"
	"time"
)

// PostFacts is what the feed needs of one post to roll its anchor up.
type PostFacts struct {
	ID           int64
	AnchorID     int64
	AnchorURL    string
	AnchorKind   Kind
	URL          string
	CanonicalURL string
	Title        string
	Body         string
	Host         string
	Links        []Link
	ImageCount   int
	URLCount     int
	SciScore     int
	Tags         []string
	CreatedAt    time.Time
	Author       UserRef
	Notability   int64 // the author's
	Access       PostAccess
	// ToFollowers: the post is in its author's own feed or a direct, so it reaches the
	// author's followers' home feeds; a post only in groups does not.
	ToFollowers bool
	Feeds       []AudienceFeed // its group and directs feeds, when read for its audience
	GroupIDs    []int64        // the groups it is in: their members' home feeds get it
}

// MaxSharers is how many sharers an item's pre-rendered sharer stack keeps.
const MaxSharers = 12

// StackShown is how many of an item's sharers its card pictures; the feed names a reader's
// followees missing from the stack only up to it.
const StackShown = 5

// Rollup is one anchor summarized from its posts: what the snapshot stores per row and what
// the live path scores. It is computed by RollupOf only, so every path agrees.
type Rollup struct {
	AnchorID        int64
	AnchorURL       string
	Kind            Kind
	Date            time.Time // newest share
	PublicDate      time.Time // newest public share (zero when none)
	TotalShare      int
	SharerIDs       []int64 // sorted; who shared it to their followers (PostFacts.ToFollowers)
	PublicSharerIDs []int64 // sorted
	AnyVIPSharer    bool    // a VIP shared it publicly
	SciScore        int
	Rep             PostFacts // the visually richest post
	Tags            []string
	Sharers         []Sharer // the primary sharer, then the most recent ones (VIPs kept: sharerCut)
	// Access of the whole anchor: readable by V iff some post is. AllPublic: every post is
	// public and outside groups, so every reader's card of it is the same (no audience line).
	AllPublic bool
	Access    PostAccess // the union over the posts
	// Feeds are the group and directs feeds of its posts that are not public, as read
	// (PostFacts.Feeds): an item with no public share says who can see it.
	Feeds []AudienceFeed
	// GroupIDs are the groups its posts are in (sorted): a home feed gets the item through
	// membership of one of them.
	GroupIDs []int64
}

// richer orders posts for the representative pick: most preview images, then most linked
// URLs, then most recent, then VIP, then notability, then id.
func richer(a, b PostFacts) int {
	return cmp.Or(
		cmp.Compare(b.ImageCount, a.ImageCount),
		cmp.Compare(b.URLCount, a.URLCount),
		b.CreatedAt.Compare(a.CreatedAt),
		boolCmp(b.Author.VIP, a.Author.VIP),
		cmp.Compare(b.Notability, a.Notability),
		cmp.Compare(b.ID, a.ID),
	)
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// RollupOf rolls up the posts of one anchor (at least one).
func RollupOf(posts []PostFacts) Rollup {
	rep := slices.MinFunc(posts, richer)
	r := Rollup{AnchorID: rep.AnchorID, AnchorURL: rep.AnchorURL, Kind: rep.AnchorKind, Rep: rep, AllPublic: true}
	latest := map[int64]PostFacts{} // each sharer's newest post
	var tags []string
	var owners, private []int64
	for _, p := range posts {
		if p.CreatedAt.After(r.Date) {
			r.Date = p.CreatedAt
		}
		r.SciScore = max(r.SciScore, p.SciScore)
		tags = append(tags, p.Tags...)
		if l, ok := latest[p.Author.ID]; !ok || p.CreatedAt.After(l.CreatedAt) || (p.Access.Public && !l.Access.Public) {
			latest[p.Author.ID] = p
		}
		if p.Access.Public {
			r.Access.Public = true
			r.PublicSharerIDs = append(r.PublicSharerIDs, p.Author.ID)
			r.AnyVIPSharer = r.AnyVIPSharer || (p.Author.VIP && p.ToFollowers)
			if p.CreatedAt.After(r.PublicDate) {
				r.PublicDate = p.CreatedAt
			}
		}
		if !p.Access.Public || len(p.GroupIDs) > 0 {
			r.AllPublic = false
		}
		for _, f := range p.Feeds {
			if !slices.ContainsFunc(r.Feeds, func(g AudienceFeed) bool { return g.ID == f.ID }) {
				r.Feeds = append(r.Feeds, f)
			}
		}
		owners = append(owners, p.Access.ProtectedOwners...)
		private = append(private, p.Access.PrivateFeeds...)
		r.GroupIDs = append(r.GroupIDs, p.GroupIDs...)
	}
	slices.Sort(r.GroupIDs)
	r.GroupIDs = slices.Compact(r.GroupIDs)
	if r.GroupIDs == nil {
		r.GroupIDs = []int64{}
	}
	for _, p := range posts {
		if p.ToFollowers {
			r.SharerIDs = append(r.SharerIDs, p.Author.ID)
		}
	}
	slices.Sort(r.SharerIDs)
	r.SharerIDs = slices.Compact(r.SharerIDs)
	if r.SharerIDs == nil {
		r.SharerIDs = []int64{}
	}
	slices.Sort(r.PublicSharerIDs)
	r.PublicSharerIDs = slices.Compact(r.PublicSharerIDs)
	if r.PublicSharerIDs == nil {
		r.PublicSharerIDs = []int64{}
	}
	r.TotalShare = len(latest)
	slices.Sort(tags)
	r.Tags = slices.Compact(tags)
	if r.Tags == nil {
		r.Tags = []string{}
	}
	r.Access.ProtectedOwners, r.Access.PrivateFeeds = sortedSet(owners), sortedSet(private)

	sharers := make([]PostFacts, 0, len(latest))
	for _, p := range latest {
		sharers = append(sharers, p)
	}
	for _, p := range sharerCut(sharers, rep.Author.ID) {
		r.Sharers = append(r.Sharers, Sharer{UserRef: p.Author, At: p.CreatedAt, Public: p.Access.Public})
	}
	return r
}

// sharerCut keeps MaxSharers of an item's sharers (each by their newest share) for its stack:
// the primary sharer, the VIPs who shared it publicly (they put it on the front page, and
// explain it to anonymous visitors there), then the newest others; in the stack's order, the
// primary sharer first, then the newest.
func sharerCut(sharers []PostFacts, primary int64) []PostFacts {
	newest := func(a, b PostFacts) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(a.Author.ID, b.Author.ID))
	}
	slices.SortFunc(sharers, func(a, b PostFacts) int {
		return cmp.Or(boolCmp(b.Author.ID == primary, a.Author.ID == primary),
			boolCmp(b.Author.VIP && b.Access.Public, a.Author.VIP && a.Access.Public), newest(a, b))
	})
	kept := sharers[:min(len(sharers), MaxSharers)]
	slices.SortFunc(kept[min(len(kept), 1):], newest)
	return kept
}

func sortedSet(ids []int64) []int64 {
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if ids == nil {
		return []int64{}
	}
	return ids
}

// Inputs are the viewer-agnostic score inputs of a rollup.
func (r Rollup) Inputs() ScoreInputs {
	return ScoreInputs{SciScore: r.SciScore, Date: r.Date, TotalShare: r.TotalShare, PrimaryVIP: r.Rep.Author.VIP,
		PrimaryNotability: r.Rep.Notability, HasImage: r.Rep.ImageCount > 0}
}

// Item renders a rollup as a feed item (unscored).
func (r Rollup) Item() Item {
	it := Item{ID: r.AnchorID, URL: r.Rep.URL, CanonicalURL: r.Rep.CanonicalURL, AnchorURL: r.AnchorURL,
		Title: r.Rep.Title, Excerpt: excerpt(r.Rep.Body, 300), Kind: r.Kind, Host: r.Rep.Host, Date: r.Date,
		PrimaryUser: r.Rep.Author, Sharers: r.Sharers, ShareCount: r.TotalShare, Images: []string{},
		Tags: r.Tags, RepPostID: r.Rep.ID, SharerIDs: r.SharerIDs, GroupIDs: r.GroupIDs}
	for _, l := range r.Rep.Links {
		if l.Image != "" {
			it.Images = append(it.Images, l.Image)
		}
	}
	return it
}

func excerpt(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
