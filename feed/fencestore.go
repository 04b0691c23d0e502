package feed

import (
	"context"
	"time"

	"tributary"
	"tributary/db"
)

// fenceStore adapts db.Store to FenceStore for one request. Committed fenceposts never
// change, so those it has read or written are kept for the rest of the request: a first page
// that commits a fencepost goes on into the one it read as the latest without reading it
// again. The fencepost a page starts from comes with the viewer's state (pre).
type fenceStore struct {
	store *db.Store
	now   time.Time
	known map[time.Time]Fencepost
	pre   *preread
	// src is the request's source, whose likes asked of the next commit go with it.
	src *source
	// snap is the snapshot a chronological page's reads see, kept by the fencepost it
	// commits (a ranked page's is its source's).
	snap string
}

// preread is what the viewer-state read found of a fence: its latest fencepost (at zero) or
// the one at at; fp is meaningful when ok.
type preread struct {
	key FenceKey
	at  time.Time
	fp  Fencepost
	ok  bool
}

func newFenceStore(store *db.Store, now time.Time, pre *preread, src *source) *fenceStore {
	return &fenceStore{store: store, now: now, known: map[time.Time]Fencepost{}, pre: pre, src: src}
}

// preread returns, once, what the viewer-state read found of fencepost at (zero: latest) of k.
func (f *fenceStore) preread(k FenceKey, at time.Time) (*preread, bool) {
	p := f.pre
	if p == nil || p.key != k || !p.at.Equal(at) {
		return nil, false
	}
	f.pre = nil
	if p.ok {
		f.known[p.fp.At] = p.fp
	}
	return p, true
}

func (f *fenceStore) Latest(ctx context.Context, k FenceKey) (Fencepost, bool, error) {
	if p, ok := f.preread(k, time.Time{}); ok {
		return p.fp, p.ok, nil
	}
	r, ok, err := f.store.LatestFencepost(ctx, k.Viewer, k.Template)
	fp := fencepostOf(r)
	if ok {
		f.known[fp.At] = fp
	}
	return fp, ok, err
}

func (f *fenceStore) Get(ctx context.Context, k FenceKey, at time.Time) (Fencepost, bool, error) {
	if fp, ok := f.known[at]; ok {
		return fp, true, nil
	}
	if p, ok := f.preread(k, at); ok {
		return p.fp, p.ok, nil
	}
	// The older ones come with it, enough for a page: a page crossing a chain of short
	// fenceposts finds the next ones here.
	rows, err := f.store.FencepostsFrom(ctx, k.Viewer, k.Template, at, chainItems)
	if err != nil {
		return Fencepost{}, false, err
	}
	for _, r := range rows {
		if _, ok := f.known[r.At]; !ok {
			f.known[r.At] = fencepostOf(r)
		}
	}
	fp, ok := f.known[at]
	return fp, ok, nil
}

// chainItems is how many items' worth of older fenceposts a read of one brings along: a
// page's 30, and as many again for those a page passes over (seen, hidden, gone).
const chainItems = 60

func (f *fenceStore) Commit(ctx context.Context, k FenceKey, fp Fencepost) error {
	v, likes := tributary.Viewer{ID: k.Viewer}, (*db.LikesRead)(nil)
	if f.src != nil && f.src.v.access.ID == k.Viewer {
		v, likes = f.src.v.access, f.src.v.headLikes.pending()
		if len(fp.Head) > 0 { // a first page's, read after its state (not an evicted one's tail)
			fp.Snap = f.src.v.snap
		}
	}
	if fp.Snap == "" && len(fp.Head) > 0 {
		fp.Snap = f.snap
	}
	row := db.FencepostRow{At: fp.At, PrevAt: fp.PrevAt, Head: fp.Head, Snap: fp.Snap}
	if err := f.store.CommitFencepostReading(ctx, v, k.Template, row, f.now, likes); err != nil {
		return err
	}
	f.known[fp.At] = fp
	return nil
}

func fencepostOf(r db.FencepostRow) Fencepost {
	return Fencepost{At: r.At, PrevAt: r.PrevAt, Head: r.Head, Snap: r.Snap}
}
