package feed

import (
	"context"
	"slices"
	"time"

	"tributary"
	"tributary/db"
)

// source is one request's view of the feed: the viewer, the filters, and the items it has
// loaded (kept to render them without a second query).
type source struct {
	s      *Service
	viewer *tributary.User
	v      viewerState
	q      tributary.FeedQuery
	now    time.Time
	path   string // snapshot or live: where items come from
	items  map[int64]tributary.Item
	// talked are the items whose conversation counts were read with them (Keep).
	talked map[int64]bool
	// reasons are why items that arrived by a followee's like or comment are in the feed.
	reasons map[int64]tributary.Activity
}

func (src *source) filter() db.FeedFilter {
	return db.FeedFilter{Source: src.q.Source, Tag: src.q.Tag, Since: src.q.Since, Until: src.q.Until}
}

// Ranked ranks the items that arrived in (after, upTo]. The first fencepost ranks the whole
// window with the snapshot or live path; later ones rank just what arrived since.
func (src *source) Ranked(ctx context.Context, after, upTo time.Time, limit int) ([]int64, bool, error) {
	var items []tributary.Item
	var stubs map[int64]bool
	late := map[int64]bool{} // late arrivals (db.ArrivedQuery.Late)
	all := false
	if after.IsZero() {
		var err error
		items, stubs, err = src.s.candidates(ctx, src.viewer, src.v, src.filter(), src.hidden(), limit*2, src.path, src.now)
		if err != nil {
			return nil, false, err
		}
	} else {
		aq := src.withLate(src.arrivedQuery(after, upTo, Pos{}, nil, src.s.cfg.LiveCap))
		if src.v.headLikes != nil {
			aq.Likes = src.v.headLikes.asked
		}
		arrived, err := src.s.store.Arrived(ctx, aq)
		if err != nil || len(arrived) == 0 {
			return nil, err == nil, err // nothing arrived: the empty head is all of it
		}
		src.noteActivity(arrived)
		// Every item that arrived fits in the head (seen ones are left out of both).
		all = len(arrived) <= limit
		ids := make([]int64, 0, len(arrived))
		for _, a := range arrived {
			if a.Late {
				late[a.AnchorID] = true
			}
			if src.q.IncludeSeen || !src.v.seen[a.AnchorID] {
				ids = append(ids, a.AnchorID)
			}
		}
		if len(ids) == 0 { // everything new was seen already: still a new fencepost
			ids = []int64{arrived[0].AnchorID}
		}
		m, err := src.s.store.Items(ctx, ids, src.v.access, src.now, src.s.knownSharers(src.v))
		if err != nil {
			return nil, false, err
		}
		cands := make([]db.Candidate, 0, len(m))
		for _, id := range ids {
			if c, ok := m[id]; ok {
				cands = append(cands, c)
			}
		}
		n := limit * 2
		if len(late) > 0 { // all ranked: lateInHead finds them
			n = len(cands)
		}
		items = src.s.rankCandidates(cands, src.viewer, src.v, n, src.now)
	}
	items = slices.DeleteFunc(items, func(it tributary.Item) bool { return !src.member(it) })
	items = lateInHead(src.s.cfg.Diversity.Diversify(items), late, limit)
	ids := make([]int64, 0, limit)
	for _, it := range items[:min(len(items), limit)] {
		ids = append(ids, it.ID)
		if !stubs[it.ID] { // a stub is read in full when a page shows it (Keep)
			src.items[it.ID] = it
		}
	}
	n := len(items)
	doneRanking(items)
	if after.IsZero() && src.v.headLikes == nil {
		// A first fencepost's page shows its head: the reader's likes of the items the page
		// will show are read in the round trip that commits the fencepost (fenceStore.Commit).
		src.v.headLikes = src.s.likesAhead(ctx, src.v.access, src.pageOf(ids), true)
	}
	return ids, all && n <= limit, nil
}

// withLate makes aq, the first arrivals since the fence's latest fencepost, include the shares
// that fencepost's reads could not see though they are dated before it (issue 44.17): its
// snapshot and head came with the viewer's state. Other intervals are left as they are.
func (src *source) withLate(aq db.ArrivedQuery) db.ArrivedQuery {
	if l := src.v.latest; l.Snap != "" && aq.From.Equal(l.At) {
		aq.Late, aq.LateShown = l.Snap, l.Head
	}
	return aq
}

// lateInHead makes the late arrivals among ranked items part of the head (the first limit,
// as many as fit), in the place of the lowest ranked others, which the fencepost's tail lists:
// the tail lists the interval's arrivals, and the late ones are dated before it. Both keep
// their ranked order.
func lateInHead(items []tributary.Item, late map[int64]bool, limit int) []tributary.Item {
	if len(late) == 0 || len(items) <= limit {
		return items
	}
	lates := 0
	for _, it := range items {
		if late[it.ID] {
			lates++
		}
	}
	lates = min(lates, limit)
	others := limit - lates
	head, rest := make([]tributary.Item, 0, len(items)), []tributary.Item{}
	for _, it := range items {
		switch {
		case late[it.ID] && lates > 0:
			lates--
			head = append(head, it)
		case !late[it.ID] && others > 0:
			others--
			head = append(head, it)
		default:
			rest = append(rest, it)
		}
	}
	copy(items, append(head, rest...))
	return items
}

// pageOf is the first of a new head's items that a page of the request shows: its limit, and
// a quarter more for those it passes over (gone, or no longer readable). A page that goes
// further reads the likes of its other cards with their talk (cardsOf); the next pages
// read the head's (request.likesAhead).
func (src *source) pageOf(head []int64) []int64 {
	if n := src.q.Limit; n > 0 {
		return head[:min(len(head), n+n/4)]
	}
	return head
}

// hidden lists the items ranking leaves out: those the viewer hid, and seen ones.
func (src *source) hidden() []int64 {
	ids := slices.Clone(src.v.access.Hidden)
	if !src.q.IncludeSeen {
		for id := range src.v.seen {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func (src *source) arrivedQuery(from, to time.Time, pos Pos, skip []int64, limit int) db.ArrivedQuery {
	if w := src.now.Add(-db.SnapshotWindow); from.Before(w) {
		from = w
	}
	if since := src.q.Since.Add(-time.Nanosecond); from.Before(since) {
		from = since // the interval is (from, to]; since is inclusive
	}
	if !src.q.Until.IsZero() && to.After(src.q.Until) {
		to = src.q.Until
	}
	return db.ArrivedQuery{FeedFilter: src.filter(), Followed: src.v.followed, Viewer: src.v.access,
		From: from, To: to, Skip: skip, PosAt: pos.Arrival, PosID: pos.ID, Limit: limit,
		Activity: src.activity() && to.Sub(from) <= activitySpan, SetOnly: src.v.setOnly}
}

// activitySpan is the longest arrival interval in which items arrive by the followees' likes
// and comments: the fenceposts after the first, up to a day's return. Their likes and
// comments are read one by one, and the first fencepost ranks the whole window by shares.
const activitySpan = 24 * time.Hour

// activity says the viewer's home feed brings in what their followees liked or commented on.
func (src *source) activity() bool { return src.viewer != nil && src.v.activity }

// noteActivity keeps why items that arrived by activity are in the feed: the newest activity
// (an item listed again in an older fencepost's tail shows once, at its newest place).
func (src *source) noteActivity(arrived []db.Arrival) {
	for _, a := range arrived {
		if a.Activity == nil {
			continue
		}
		if known, ok := src.reasons[a.AnchorID]; !ok || a.Activity.At.After(known.At) {
			src.reasons[a.AnchorID] = *a.Activity
		}
	}
}

// Tail lists an interval's items in arrival order. It reads ahead: a fencepost's tail is
// listed tailReadAhead items at a time and kept (see tailBatch), so that scrolling through it
// costs one query per batch rather than one per page.
func (src *source) Tail(ctx context.Context, from, to time.Time, pos Pos, skip []int64, limit int) ([]Entry, error) {
	key := tailKey{template: src.q.Template(), activity: src.activity(), from: from.UnixMicro(), to: to.UnixMicro(), skip: headSum(skip)}
	if src.viewer != nil {
		key.viewer = src.viewer.ID
	}
	return readAhead(src.s.tails, key, pos, limit, func(at Pos, n int) ([]Entry, error) {
		arrived, err := src.s.store.Arrived(ctx, src.arrivedQuery(from, to, at, skip, n))
		if err != nil {
			return nil, err
		}
		src.noteActivity(arrived)
		out := make([]Entry, len(arrived))
		for i, a := range arrived {
			out[i] = Entry{ID: a.AnchorID, Arrival: a.At}
		}
		return out, nil
	})
}

// Keep loads the items' current data and drops those that are gone or seen.
func (src *source) Keep(ctx context.Context, ids []int64) ([]int64, error) {
	var missing []int64
	for _, id := range ids {
		if _, ok := src.items[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		m, talk, err := src.cardsOf(ctx, missing)
		if err != nil {
			return nil, err
		}
		for id, c := range m {
			it := src.s.explain(c, src.viewer, src.v, src.now)
			it.Talk = talk[id]
			src.items[id], src.talked[id] = it, true
		}
	}
	if err := src.explainActivity(ctx, ids); err != nil {
		return nil, err
	}
	if err := src.nameSharers(ctx, ids); err != nil {
		return nil, err
	}
	kept := make([]int64, 0, len(ids))
	for _, id := range ids {
		it, ok := src.items[id]
		if !ok || !src.member(it) || (it.AlreadySeen && !src.q.IncludeSeen) || src.v.access.HidesItem(id) {
			continue
		}
		if !src.sharedByFollowed(it) {
			if g := src.v.access.GroupOf(it.GroupIDs); g != "" {
				it.Group = g
			} else if a, ok := src.reasons[id]; ok {
				it.Activity = &a
			}
			src.items[id] = it
		}
		if m, muted := src.muted(it); muted {
			if !m.Collapse {
				continue
			}
			it.Muted = m.Word
			src.items[id] = it
		}
		kept = append(kept, id)
	}
	return kept, nil
}

// muted returns the viewer's mute an item's title, excerpt or tags match (the texts are
// gathered only for a viewer who mutes words).
func (src *source) muted(it tributary.Item) (tributary.Mute, bool) {
	if len(src.v.access.Mutes) == 0 {
		return tributary.Mute{}, false
	}
	return src.v.access.Muted(append([]string{it.Title, it.Excerpt}, it.Tags...)...)
}

// Hidden: the viewer hid the item, or has seen it (and asked to leave seen items out).
func (src *source) Hidden(id int64) bool { return src.v.hides(id, src.q.IncludeSeen) }

// member reports whether an item belongs to this feed for this viewer: someone in the
// followed set shared it, or it is in one of the viewer's groups, in a post the viewer may
// read (items are rolled up from readable posts only, so their sharers and groups are
// readable ones).
func (src *source) member(it tributary.Item) bool {
	if src.sharedByFollowed(it) || src.v.access.InGroup(it.GroupIDs) {
		return true
	}
	_, ok := src.reasons[it.ID]
	return ok
}

func (src *source) sharedByFollowed(it tributary.Item) bool {
	return src.v.followed.HasAny(it.SharerIDs)
}

// explainActivity finds why items no followee shared are in the feed, when this request did
// not list them itself (a page of a fencepost listed by an earlier one): the latest like or
// comment of a followee on them.
func (src *source) explainActivity(ctx context.Context, ids []int64) error {
	if !src.activity() {
		return nil
	}
	var unexplained []int64
	for _, id := range ids {
		it, ok := src.items[id]
		if _, known := src.reasons[id]; ok && !known && !src.sharedByFollowed(it) && !src.v.access.InGroup(it.GroupIDs) {
			unexplained = append(unexplained, id)
		}
	}
	if len(unexplained) == 0 {
		return nil
	}
	var set *tributary.IDSet
	if src.v.setOnly {
		set = &src.v.followed
	}
	found, err := src.s.store.ActivityReasons(ctx, src.v.access, set, unexplained, src.now)
	for id, a := range found {
		src.reasons[id] = a
	}
	return err
}
