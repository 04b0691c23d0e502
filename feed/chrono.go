package feed

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"tributary"
	"tributary/db"
	"tributary/internal/lru"
)

// Chronological feeds (a user's posts, a group, the viewer's directs) list posts by their
// last arrival: when each was made, or bumped by a comment (seed 003). They scroll over
// fenceposts like the ranked feed: a fencepost's head is its newest arrivals and its tail
// the rest in arrival order, and a post bumped after a fencepost still lists where it was
// in that fencepost, so a bump never shows a reader a post twice in one fencepost or makes
// them lose one; it comes in the next fencepost, at the top.

// Chrono names one chronological feed.
type Chrono struct {
	Author  int64  // a user's posts
	Feed    int64  // a group's posts
	Directs bool   // the viewer's directs
	Filter  string // a filter feed (db.LikedByFeed and the others): posts by when they arrived there
	// Search: the results of a search, by relevance in a fencepost's head (among its newest
	// searchScan), then by when they were posted.
	Search *db.Search
}

// searchScan is how many of a fencepost's newest results its head is chosen from by
// relevance: a search's first page is about what was said lately, best first.
const searchScan = 300

// template names the feed's fence.
func (c Chrono) template() string {
	switch {
	case c.Search != nil:
		return "chrono:s:" + c.Search.Key()
	case c.Filter != "":
		return "chrono:x:" + c.Filter
	case c.Author != 0:
		return "chrono:u:" + strconv.FormatInt(c.Author, 10)
	case c.Feed != 0:
		return "chrono:f:" + strconv.FormatInt(c.Feed, 10)
	}
	return "chrono:directs"
}

// ChronoPage is one page of a chronological feed.
type ChronoPage struct {
	Posts      []tributary.Post
	In         []time.Time // the fencepost each post comes from
	NextCursor string
	Fencepost  string
	// Refreshed says the cursor pointed into fence state that is gone: this is a fresh first page.
	Refreshed bool
}

// Chrono returns a page of a chronological feed as the viewer (nil: anonymous) may read it:
// the first page without a cursor, the page at the cursor otherwise. Each post carries what
// the viewer sees of its conversation.
func (s *Service) Chrono(ctx context.Context, viewer *tributary.User, c Chrono, cursor string, limit int) (ChronoPage, error) {
	access := tributary.Anonymous
	if viewer != nil {
		var err error
		if access, err = s.store.ViewerAccess(ctx, viewer.ID); err != nil {
			return ChronoPage{}, err
		}
	}
	return s.ChronoAs(ctx, viewer, access, c, cursor, limit)
}

// ChronoAs is Chrono for a viewer whose access is known already.
func (s *Service) ChronoAs(ctx context.Context, viewer *tributary.User, access tributary.Viewer, c Chrono, cursor string, limit int) (ChronoPage, error) {
	r, err := s.chronoRequest(ctx, viewer, access, c, cursor == "")
	if err != nil {
		return ChronoPage{}, err
	}
	var cur Cursor
	if cursor != "" {
		if cur, err = s.keys.decode(ctx, cursor, r.key, r.now); err != nil {
			return ChronoPage{}, err
		}
	}
	var p Page
	refreshed := false
	if cursor == "" {
		p, err = r.fence.First(ctx, r.key, r.now, limit)
	} else {
		p, err = r.fence.Next(ctx, r.key, cur, limit)
		if errors.Is(err, ErrReset) {
			p, err = r.fence.First(ctx, r.key, r.now, limit)
			refreshed = true
		}
	}
	if err != nil {
		return ChronoPage{}, err
	}
	out, err := s.chronoPage(ctx, r, p, time.Time{})
	out.Refreshed = refreshed
	return out, err
}

// ChronoNewCount counts the posts that arrived in a chronological feed after the fencepost a
// page shows (at most max): the "N new" notice.
func (s *Service) ChronoNewCount(ctx context.Context, access tributary.Viewer, c Chrono, after time.Time, max int) (int, error) {
	src := &chronoSource{store: s.store, feed: c, access: access}
	arrived, err := src.arrived(ctx, src.sinceFencepost(src.query(after, s.now(), Pos{}, nil, max)))
	return len(arrived), err
}

// ChronoNew commits the newest fencepost of a chronological feed (a first-page load) and
// returns its posts that come from fenceposts newer than after: what goes above a page the
// viewer already has open.
func (s *Service) ChronoNew(ctx context.Context, viewer *tributary.User, access tributary.Viewer, c Chrono, after time.Time) (ChronoPage, error) {
	r, err := s.chronoRequest(ctx, viewer, access, c, true)
	if err != nil {
		return ChronoPage{}, err
	}
	p, err := r.fence.First(ctx, r.key, r.now, s.cfg.HeadSize*2)
	if err != nil {
		return ChronoPage{}, err
	}
	return s.chronoPage(ctx, r, p, after)
}

// chronoRequest is one request's fence over a chronological feed.
type chronoRequest struct {
	key   FenceKey
	codec cursorCodec
	src   *chronoSource
	fence Fence
	now   time.Time
}

// A first page (first) reads the fence's latest fencepost with the snapshot its reads see,
// which the fencepost it commits keeps (db.ChronoQuery.Late).
func (s *Service) chronoRequest(ctx context.Context, viewer *tributary.User, access tributary.Viewer, c Chrono, first bool) (*chronoRequest, error) {
	r := &chronoRequest{key: FenceKey{Template: c.template()}, now: s.now()}
	if viewer != nil {
		r.key.Viewer = viewer.ID
	}
	var err error
	if r.codec, err = s.keys.get(ctx); err != nil {
		return nil, err
	}
	r.src = &chronoSource{store: s.store, feed: c, access: access, posts: map[int64]tributary.Post{}, viewer: r.key.Viewer, tails: s.tails}
	if s.cacheable() {
		r.src.searches = s.searches
	}
	fs := newFenceStore(s.store, r.now, nil, nil)
	if first {
		st, err := s.store.ChronoStart(ctx, r.key.Viewer, r.key.Template)
		if err != nil {
			return nil, err
		}
		fs.pre = &preread{key: r.key, fp: fencepostOf(st.Latest), ok: st.Found}
		fs.snap = st.Snap
	}
	r.fence = Fence{Store: fs, Source: r.src, HeadSize: s.cfg.HeadSize}
	return r, nil
}

// chronoPage is a page's posts from fenceposts newer than newerThan (with their talk, read
// by Keep).
func (s *Service) chronoPage(ctx context.Context, r *chronoRequest, p Page, newerThan time.Time) (ChronoPage, error) {
	out := ChronoPage{Posts: make([]tributary.Post, 0, len(p.IDs))}
	for i, id := range p.IDs {
		if p.In[i].After(newerThan) {
			out.Posts = append(out.Posts, r.src.posts[id])
			out.In = append(out.In, p.In[i])
		}
	}
	if p.Next != nil {
		out.NextCursor = r.codec.encode(r.key, *p.Next, r.now)
	}
	out.Fencepost = FormatFencepost(cmp.Or(p.Fencepost, r.now)) // an empty feed: it shows all up to now
	s.withPostCards(ctx, out.Posts)
	return out, nil
}

// itemTalk fills in what the viewer sees of the conversations on each item's shares, for
// the items whose talk was not read with them (talked), and the items' link cards.
func (s *Service) itemTalk(ctx context.Context, access tributary.Viewer, items []tributary.Item, talked map[int64]bool) error {
	s.withCards(ctx, items)
	var ids []int64
	for _, it := range items {
		if !talked[it.ID] {
			ids = append(ids, it.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	talk, err := s.store.AnchorTalk(ctx, access, ids)
	if err != nil {
		return err
	}
	for i := range items {
		if !talked[items[i].ID] {
			items[i].Talk = talk[items[i].ID]
		}
	}
	return nil
}

// chronoSource is one request's view of a chronological feed.
type chronoSource struct {
	store  *db.Store
	feed   Chrono
	access tributary.Viewer
	posts  map[int64]tributary.Post // read by Keep with their talk, to render
	// listed are posts read with their listing in this request (a filter feed's, with their
	// talk): readable and in the feed now, Keep reads them no more.
	listed map[int64]tributary.Post
	viewer int64 // whose tails (0: anonymous)
	tails  *lru.Cache[tailKey, *tailBatch]
	// searches keeps searches' candidates (nil: nothing may be kept on this instance now).
	searches *lru.Cache[string, *searchCandidates]
}

func (c *chronoSource) query(from, to time.Time, pos Pos, skip []int64, limit int) db.ChronoQuery {
	return db.ChronoQuery{Author: c.feed.Author, Feed: c.feed.Feed, Directs: c.feed.Directs, Filter: c.feed.Filter, Viewer: c.access,
		From: from, To: to, PosAt: pos.Arrival, PosID: pos.ID, Skip: skip, Limit: limit}
}

// sinceFencepost is q asking also for what arrived late for the fencepost at its start
// (db.ChronoQuery.Late): a new fencepost's head, or the "N new" after a page's fencepost.
func (c *chronoSource) sinceFencepost(q db.ChronoQuery) db.ChronoQuery {
	if !q.From.IsZero() {
		q.Late = c.feed.template()
	}
	return q
}

// arrived lists the feed's arrivals asked for by q.
func (c *chronoSource) arrived(ctx context.Context, q db.ChronoQuery) ([]db.SearchArrival, error) {
	if c.feed.Search != nil {
		return c.store.SearchArrived(ctx, *c.feed.Search, q)
	}
	arrived, err := c.store.ChronoArrived(ctx, q)
	out := make([]db.SearchArrival, len(arrived))
	for i, a := range arrived {
		out[i].PostArrival = a
	}
	return out, err
}

// listing lists arrivals a page shows: a filter feed's are read with their posts, which Keep
// then takes as they are (one round trip for the page, not two).
func (c *chronoSource) listing(ctx context.Context, q db.ChronoQuery) ([]db.SearchArrival, error) {
	q.Posts = c.feed.Filter != "" && c.feed.Search == nil
	arrived, err := c.arrived(ctx, q)
	for _, a := range arrived {
		if a.Post != nil {
			if c.listed == nil {
				c.listed = map[int64]tributary.Post{}
			}
			c.listed[a.PostID] = *a.Post
		}
	}
	return arrived, err
}

// Ranked: a chronological fencepost's head is its newest arrivals; a search's, the best
// matches among its newest searchScan results (newest first among equals), and the rest of
// those begin its tail.
func (c *chronoSource) Ranked(ctx context.Context, after, upTo time.Time, limit int) ([]int64, bool, error) {
	if c.feed.Search != nil {
		return c.searchRanked(ctx, after, upTo, limit)
	}
	arrived, err := c.listing(ctx, c.sinceFencepost(c.query(after, upTo, Pos{}, nil, limit+1)))
	if err != nil {
		return nil, false, err
	}
	// The late arrivals (last) are all in the head: the tail lists the interval's alone.
	late := 0
	for _, a := range arrived {
		if a.Late {
			late++
		}
	}
	ids := make([]int64, 0, min(len(arrived), limit))
	for i, a := range arrived {
		if a.Late || i < limit-late {
			ids = append(ids, a.PostID)
		}
	}
	return ids[:min(len(ids), limit)], len(arrived) <= limit, nil
}

// tailKey names the tail of the fencepost over (from, to] headed by head.
func (c *chronoSource) tailKey(from, to time.Time, head []int64) tailKey {
	return tailKey{viewer: c.viewer, template: c.feed.template(), from: from.UnixMicro(), to: to.UnixMicro(), skip: headSum(head)}
}

// Tail lists an interval's posts in arrival order. A search's tail is read ahead and kept
// as the ranked feed's is (readAhead): its posts arrive when they are made, once, so an
// interval's listing does not change but for what Keep checks again. The other feeds' posts
// arrive again (bumps, likes again) and leave older intervals: they are listed each time.
func (c *chronoSource) Tail(ctx context.Context, from, to time.Time, pos Pos, skip []int64, limit int) ([]Entry, error) {
	list := func(at Pos, n int) ([]Entry, error) {
		arrived, err := c.listing(ctx, c.query(from, to, at, skip, n))
		if err != nil {
			return nil, err
		}
		out := make([]Entry, len(arrived))
		for i, a := range arrived {
			out[i] = Entry{ID: a.PostID, Arrival: a.At}
		}
		return out, nil
	}
	if c.feed.Search == nil || c.tails == nil {
		return list(pos, limit)
	}
	return readAhead(c.tails, c.tailKey(from, to, skip), pos, limit, list)
}

// Keep reads the posts as the viewer may read them now, with their talk, in one round trip
// (none for those read with their listing): deleted and no longer readable ones are dropped,
// and those the viewer hid or muted (collapsed ones are kept, marked).
func (c *chronoSource) Keep(ctx context.Context, ids []int64) ([]int64, error) {
	var unread []int64
	for _, id := range ids {
		if _, ok := c.listed[id]; !ok {
			unread = append(unread, id)
		}
	}
	read := make(map[int64]tributary.Post, len(unread))
	if len(unread) > 0 {
		var posts []tributary.Post
		var err error
		if c.feed.Filter != "" { // and those that left the filter feed since it was listed
			posts, err = c.store.FilterPostsByID(ctx, c.access, c.feed.Filter, unread)
		} else {
			posts, err = c.store.PostsByID(ctx, c.access, unread)
		}
		if err == nil && c.feed.Search != nil && c.feed.Search.DependsOnBans() && len(posts) > 0 {
			posts, err = c.stillFound(ctx, posts) // a ban made since the fencepost may hide some
		}
		if err != nil {
			return nil, err
		}
		for _, p := range posts {
			read[p.ID] = p
		}
	}
	kept := make([]int64, 0, len(ids))
	for _, id := range ids {
		p, ok := c.listed[id]
		if !ok {
			if p, ok = read[id]; !ok {
				continue
			}
		}
		if c.access.HidesItem(p.AnchorID) {
			continue
		}
		if m, muted := c.access.Muted(append([]string{p.Title, p.Body}, p.Tags...)...); muted {
			if !m.Collapse {
				continue
			}
			p.Muted = m.Word
		}
		c.posts[p.ID] = p
		kept = append(kept, p.ID)
	}
	return kept, nil
}

func (c *chronoSource) Hidden(int64) bool { return false }

// stillFound keeps the posts that the search finds for the viewer now (db.SearchAmong).
func (c *chronoSource) stillFound(ctx context.Context, posts []tributary.Post) ([]tributary.Post, error) {
	ids := make([]int64, len(posts))
	for i, p := range posts {
		ids[i] = p.ID
	}
	found, err := c.store.SearchAmong(ctx, *c.feed.Search, c.access, ids)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(posts, func(p tributary.Post) bool { return !slices.Contains(found, p.ID) }), nil
}
