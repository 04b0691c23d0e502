package feed

import (
	"context"
	"time"

	"tributary"
	"tributary/db"
)

// followedBudget bounds the memory of the followed sets kept between requests (Service.followed,
// at most 20,000 of them, each for an hour): a set's bitmap spans every user id, 62 KB at
// 500,000 users whatever the set's size, and 20,000 of them would be over a gigabyte.
const followedBudget = 128 << 20

// versionedSet is a followed set and its version.
type versionedSet struct {
	version int64
	set     tributary.IDSet
}

// viewerState is what ranking needs to know about the viewer.
type viewerState struct {
	access   tributary.Viewer // what the access rules know of the viewer
	followed tributary.IDSet
	setOnly  bool                // followed is never to be read from follows (db.ViewerState.SetOnly)
	seen     map[int64]bool      // items the viewer has seen
	activity bool                // their home feed brings in their followees' likes and comments
	fresh    map[int64]time.Time // the viewer's own shares within the fresh-self window
	snapshot time.Time           // when the snapshot was last rebuilt (zero: never)
	changes  []db.SnapshotChange // snapshot rows redone since the copy's cursor ...
	// ... and the oldest transaction still running (where to look from next time)
	changesUpTo int64
	// snap is the database snapshot the state was read in (before the page's reads), kept
	// by a fencepost the page commits; latest is the fence's latest fencepost read with the
	// state (a first page's), whose snapshot finds the shares it missed (withLate).
	snap   string
	latest Fencepost
	// headLikes are the viewer's likes of the items of the fencepost read with the state,
	// read while a page reads its arrivals (request.likesAhead); nil when not read.
	headLikes *likesAhead
}

// forNotice is what a live stream keeps of the state to count its notices with, for hours:
// the followed ids without their bitmap or map (the count passes them to SQL), and none of
// the snapshot's redone rows or the fresh shares, which only ranking reads.
func (v viewerState) forNotice() viewerState {
	v.followed = v.followed.Slim()
	v.changes, v.fresh, v.headLikes = nil, nil, nil
	return v
}

// hides reports whether the viewer hid the item, or has seen it (unless includeSeen).
func (v viewerState) hides(id int64, includeSeen bool) bool {
	return (!includeSeen && v.seen[id]) || v.access.HidesItem(id)
}

// freshIDs lists the anchors of the viewer's fresh shares.
func (v viewerState) freshIDs() []int64 {
	ids := make([]int64, 0, len(v.fresh))
	for id := range v.fresh {
		ids = append(ids, id)
	}
	return ids
}

// load reads the viewer's state (with the members of list as the followed set, when not 0)
// and, for a logged-in viewer, the fencepost of fence k at at (zero: the latest) in the same
// round trip; for an anonymous first page, the latest fencepost of the shared anonymous fence.
func (s *Service) load(ctx context.Context, viewer *tributary.User, list int64, now time.Time, k FenceKey, at time.Time) (viewerState, *preread, error) {
	var v viewerState
	var err error
	if viewer == nil {
		var vips []int64
		if vips, err = s.store.VIPs(ctx); err != nil {
			return v, nil, err
		}
		v.followed = tributary.NewIDSet(vips)
		if !at.IsZero() {
			var st db.SnapshotState
			st, _, err = s.store.Snapshot(ctx)
			v.snapshot = st.RefreshedAt
			return v, nil, err
		}
		// A first page: the shared anonymous fence's latest fencepost and the snapshot the
		// page's reads see, so the front page finds late shares as a reader's home does.
		var fs db.FenceStart
		fs, err = s.store.AnonStart(ctx, k.Template)
		v.snapshot, v.snap = fs.Snapshot.RefreshedAt, fs.Snap
		if fs.Found {
			v.latest = fencepostOf(fs.Latest)
		}
		return v, &preread{key: k, fp: v.latest, ok: fs.Found}, err
	}
	vq, known := s.viewerQuery(viewer.ID, list, now, k, at)
	st, err := s.loadViewer(ctx, vq, known)
	if err != nil {
		return v, nil, err
	}
	switch {
	case st.FollowedKnown:
		st.Followed = known.set
	case list == 0:
		s.followed.Put(viewer.ID, versionedSet{version: st.FollowsVersion, set: st.Followed})
	}
	v.access, v.followed, v.fresh, v.snapshot, v.activity = st.Access, st.Followed, st.Fresh, st.Snapshot, st.HomeActivity
	v.setOnly, v.snap = st.SetOnly, st.Snap
	if list != 0 { // a list's feed is its members' shares: the reader's groups are their home's
		v.access.Groups, v.access.GroupNames = nil, nil
	}
	if at.IsZero() && st.FencepostFound {
		v.latest = fencepostOf(st.Fencepost)
	}
	v.changes, v.changesUpTo = st.Changes, st.ChangesUpTo
	v.seen = make(map[int64]bool, len(st.Seen))
	for _, id := range st.Seen {
		v.seen[id] = true
	}
	return v, &preread{key: k, at: at, fp: fencepostOf(st.Fencepost), ok: st.FencepostFound}, nil
}

// viewerQuery asks for the state of a viewer's page of fence k at at (zero: the latest), of
// list's members when not 0, at now; known is the viewer's followed set this instance keeps.
// A list's members are read with every request; the home feed's followed set only when its
// version moved.
func (s *Service) viewerQuery(viewerID, list int64, now time.Time, k FenceKey, at time.Time) (vq db.ViewerQuery, known versionedSet) {
	if list == 0 {
		known, _ = s.followed.Get(viewerID) // version 0 when not kept: no user's
	}
	return db.ViewerQuery{ViewerID: viewerID, SeenFrom: now.Add(-s.cfg.SeenHorizon),
		SeenTo: now.Add(-s.cfg.SeenGrace), MinDwellMs: s.cfg.MinSeenDwellMs, FreshSince: now.Add(-s.cfg.Weights.FreshSelfFor),
		ChangesFrom: s.rank.cursor(), FollowsVersion: known.version, FenceTemplate: k.Template, FenceAt: at, ListID: list}, known
}

// loadViewer reads the state vq asks for, or takes the one the request's session read
// brought (db.ReadAhead) when it can: its followed set, when not read, must be the one known.
func (s *Service) loadViewer(ctx context.Context, vq db.ViewerQuery, known versionedSet) (db.ViewerState, error) {
	if aq, st, ok := db.ReadAhead(ctx, vq); ok && (!st.FollowedKnown || aq.FollowsVersion == known.version) {
		return st, nil
	}
	return s.store.LoadViewer(ctx, vq)
}

// ReadAhead is, for the session's read of a request for q's page (db.SessionUser.Ahead),
// what that page will read first for a viewer: its state and, for a first page of the home
// feed whose reader's last first page this instance served, the arrivals since the fence's
// latest fencepost as that page left it (lastPage). False when its cursor cannot be read
// without the database (the page then reads it all itself).
func (s *Service) ReadAhead(q tributary.FeedQuery) func(viewerID int64) (db.Ahead, bool) {
	return func(viewerID int64) (db.Ahead, bool) {
		now := s.now()
		viewer := &tributary.User{ID: viewerID}
		k := fenceKey(viewer, q)
		var at time.Time
		if q.Cursor != "" {
			c, err := s.keys.decodeKnown(q.Cursor, k, now)
			if err != nil {
				return db.Ahead{}, false
			}
			at = c.At
		}
		vq, known := s.viewerQuery(viewerID, q.List, now, k, at)
		ahead := db.Ahead{Viewer: vq, Now: now}
		if last, ok := s.lastPages.Get(k); ok && q.Cursor == "" && q.List == 0 && known.version != 0 {
			// The arrivals as First will ask for them (fencepost.go), from the same source.
			v := viewerState{access: last.access, followed: known.set, activity: last.activity, setOnly: last.setOnly}
			aq := s.newSource(viewer, v, q, now).arrivedQuery(last.at, now.UTC().Truncate(time.Microsecond), Pos{}, nil, s.cfg.LiveCap)
			if last.snap != "" && aq.From.Equal(last.at) { // as withLate asks
				aq.Late, aq.LateShown = last.snap, last.head
			}
			if len(last.head) > 0 && s.keptTalk(last.access) {
				aq.Likes = &db.LikesRead{Anchors: last.head}
			}
			ahead.Arrived = &aq
		}
		return ahead, true
	}
}

// lastPage is what a reader's first page left on this instance: the fence's latest fencepost
// with its head, and the reader's terms its arrivals are read with. The next first page's
// arrivals are guessed from it, and the guess is used only when that page asks for the very
// same read (db.Store.Arrived).
type lastPage struct {
	at                time.Time
	head              []int64
	snap              string // the fencepost's snapshot (Fencepost.Snap)
	access            tributary.Viewer
	activity, setOnly bool
}

// remember keeps what a first page of the home feed left (lastPage). A page that started its
// fence forgets it instead: it came after the fence was reset (a follow, an eviction), by any
// instance, and the page after it would read arrivals since a fencepost that may be gone
// again (a guess from before the reset would read them since one that is gone).
func (r *request) remember(p Page) {
	if r.src.viewer == nil || r.src.q.List != 0 || p.Fencepost.IsZero() {
		return
	}
	if p.Started {
		r.src.s.lastPages.Delete(r.key)
		return
	}
	v := r.src.v
	snap := v.latest.Snap
	if p.New {
		snap = v.snap
	}
	r.src.s.lastPages.Put(r.key, lastPage{at: p.Fencepost, head: p.Head, snap: snap, access: v.access, activity: v.activity, setOnly: v.setOnly})
}
