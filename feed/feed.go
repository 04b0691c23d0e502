// Package feed ranks timelines: it picks the snapshot or the live path, adds the viewer's
// bonuses, hides what the viewer has seen, diversifies authors and caches anonymous pages.
package feed

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"time"

	"tributary"
	"tributary/db"
	"tributary/internal/lru"
	"tributary/site"
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
	HeadSize       int    // a fencepost's ranked head holds at most this many items
	CursorKey      []byte // signs cursors instead of the site's keys in the database (see keyring)
	// CopyFrom is the size of followed set from which the snapshot path ranks on this
	// process's copy of the snapshot (rankIndex) rather than in PostgreSQL; 0: never. The
	// copy wins for every size (measured: light 4.3 -> 2.6 ms, heavy 7.1 -> 2.7 ms a page).
	CopyFrom int
}

// DefaultConfig returns seed 000's defaults.
func DefaultConfig() Config {
	return Config{
		Weights: tributary.DefaultWeights, Diversity: tributary.DefaultDiversity,
		MinSeenDwellMs: 1500, SeenGrace: 10 * time.Minute, SeenHorizon: 30 * 24 * time.Hour,
		SnapshotMaxAge: 3 * time.Hour, LiveFactor: 16, LiveCap: 2000,
		AnonTTL: 60 * time.Second, AnonCacheSize: 512, HeadSize: 50, CopyFrom: 1,
	}
}

// Service serves ranked timelines.
type Service struct {
	store *db.Store
	cfg   Config
	now   func() time.Time
	anon  *anonCache
	rank  *rankIndex
	// Viewers' followed sets by version (users.follows_version): read again only when changed.
	followed *lru.Cache[int64, versionedSet]
	// The fence each reader's last first page left, to guess the next page's reads from
	// (lastPage, ReadAhead).
	lastPages *lru.Cache[FenceKey, lastPage]
	tails     *lru.Cache[tailKey, *tailBatch]
	searches  *lru.Cache[string, *searchCandidates] // searches' candidates (searchcache.go)
	cards     *cards                                // items' rows and public talk (cards.go)
	linkCards *linkCards                            // items' fetched link cards (linkcards.go)
	keys      *keyring
	bus       *site.Bus     // nil: this process is the whole site
	fanout    chan struct{} // new posts were heard of: RunRivers fans them out
}

// New builds a Service; now defaults to time.Now.
func New(store *db.Store, cfg Config, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	store.Weights = cfg.Weights
	keys := configuredKeyring(cfg.CursorKey)
	if len(cfg.CursorKey) == 0 {
		keys = &keyring{load: func(ctx context.Context) ([]storedKey, error) {
			stored, err := store.CursorKeys(ctx)
			keys := make([]storedKey, len(stored))
			for i, k := range stored {
				keys[i] = storedKey{id: uint32(k.ID), secret: k.Secret}
			}
			return keys, err
		}}
	}
	return &Service{store: store, cfg: cfg, now: now, anon: newAnonCache(cfg.AnonTTL, cfg.AnonCacheSize, now),
		rank: newRankIndex(store, slog.Default()), followed: lru.NewWeighed[int64](time.Hour, 20000, followedBudget, func(v versionedSet) int { return v.set.Bytes() }, now),
		tails: lru.New[tailKey, *tailBatch](10*time.Minute, 4096, now), lastPages: lru.New[FenceKey, lastPage](time.Hour, 20_000, now), searches: newSearchCache(now), cards: newCards(now), linkCards: newLinkCards(now), keys: keys,
		fanout: make(chan struct{}, 1)}
}

// Attach makes the service one instance of a site: changes made through any instance reach
// it through b, and while b is not listening nothing is served from the anonymous cache.
func (s *Service) Attach(b *site.Bus) {
	s.bus = b
	b.Subscribe(s.siteChanged)
}

// siteChanged drops what the changes may have made stale: the cards' talk that a change names
// (cards.go), the anonymous pages and searches' candidates after a change in access or
// content (new posts and talk reach them within the cache's lifetime; searches look for
// them; a change between users, such as a follow or a ban, changes nothing anonymous), the
// cursor keys after a rotation, everything after a reset.
func (s *Service) siteChanged(changes []db.SiteChange, reset bool) {
	s.cards.heard(changes, reset)
	s.linkCards.heard(changes, reset)
	keys, content := reset, reset
	for _, c := range changes {
		if c.Kind == "new_posts" || reset {
			select {
			case s.fanout <- struct{}{}:
			default:
			}
		}
		switch {
		case c.Kind == "cursor_keys":
			keys = true
		case !c.Live() && c.Readers == nil: // new posts and talk reach anonymous pages with the cache's lifetime
			content = true
		}
	}
	if keys {
		s.keys.forget()
	}
	if content {
		s.anon.clear()
		s.searches.Clear() // a post made in the past may be a result older than the candidates
	}
}

// CacheStats reports the anonymous cache's hits and misses so far.
func (s *Service) CacheStats() (hits, misses uint64) { return s.anon.hits.Load(), s.anon.misses.Load() }

// cacheable reports whether anonymous pages may be served from and kept in the cache: when
// this instance hears of every change on the site.
func (s *Service) cacheable() bool { return s.bus == nil || s.bus.Up() }

// Timeline returns one page of the viewer's ranked feed (viewer nil: the anonymous front
// page): a first page when q has no cursor, the page at the cursor otherwise.
func (s *Service) Timeline(ctx context.Context, viewer *tributary.User, q tributary.FeedQuery) (tributary.Timeline, error) {
	if viewer == nil && q.List != 0 {
		return tributary.Timeline{}, errNoList
	}
	if viewer != nil {
		return s.page(ctx, viewer, q)
	}
	q.IncludeSeen = false // nothing is seen by nobody
	if !s.cacheable() {
		return s.page(ctx, nil, q)
	}
	t, hit, err := s.anon.get(ctx, q.Signature()+"&cursor="+q.Cursor, func(ctx context.Context) (tributary.Timeline, error) {
		return s.page(ctx, nil, q)
	})
	if hit {
		t.Path = tributary.PathCache
	}
	return t, err
}

// errNoList answers a list that is not the viewer's (anonymous visitors have none): the
// same answer as for a list that does not exist.
var errNoList = tributary.Errorf(tributary.ENotFound, "No such list.")

// request is one timeline request's state.
type request struct {
	codec cursorCodec
	src   *source
	fence Fence
	key   FenceKey
	now   time.Time
	// fenced: the fence asked for has a fencepost (read with the viewer's state).
	fenced bool
	head   []int64 // that fencepost's head
}

// likesAhead reads the viewer's likes of the items of the fencepost the page starts from: a
// page from that head makes their cards of the talk this instance keeps without another
// round trip (cards.go). A first page reads them with what arrived since the fencepost; a
// next page while it reads the rest.
func (r *request) likesAhead(ctx context.Context, first bool) {
	r.src.v.headLikes = r.src.s.likesAhead(ctx, r.src.v.access, r.head, first)
}

// request loads the viewer's state for a request at now, and with it (one round trip) the
// fencepost of the viewer's fence at (zero: the fence's latest), where the page will start.
func (s *Service) request(ctx context.Context, viewer *tributary.User, q tributary.FeedQuery, now, at time.Time) (*request, error) {
	key := fenceKey(viewer, q)
	if viewer == nil && q.List != 0 {
		return nil, errNoList
	}
	v, pre, err := s.load(ctx, viewer, q.List, now, key, at)
	if err != nil {
		return nil, err
	}
	codec, err := s.keys.get(ctx)
	if err != nil {
		return nil, err
	}
	src := s.newSource(viewer, v, q, now)
	r := &request{codec: codec, src: src, now: now, key: key, fenced: pre != nil && pre.ok,
		fence: Fence{Store: newFenceStore(s.store, now, pre, src), Source: src, HeadSize: s.cfg.HeadSize}}
	if r.fenced {
		r.head = pre.fp.Head
	}
	return r, nil
}

// newSource is a source of q's items for viewer with state v at now.
func (s *Service) newSource(viewer *tributary.User, v viewerState, q tributary.FeedQuery, now time.Time) *source {
	// A page's items are kept here: made for a page's worth, rather than grown to it.
	n := max(q.Limit, 0)
	return &source{s: s, viewer: viewer, v: v, q: q, now: now, path: s.path(q, v, now), items: make(map[int64]tributary.Item, n),
		talked: make(map[int64]bool, n), reasons: map[int64]tributary.Activity{}}
}

// fenceKey names the fence of a viewer's (nil: anonymous) feed of q's template.
func fenceKey(viewer *tributary.User, q tributary.FeedQuery) FenceKey {
	k := FenceKey{Template: q.Template()}
	if viewer != nil {
		k.Viewer = viewer.ID
	}
	return k
}

// AnonPage answers an anonymous request already encoded: from the cache as bytes when the
// timeline is cached (render makes the encoding once per cached timeline and kind), or by
// computing the timeline and rendering it.
func (s *Service) AnonPage(ctx context.Context, q tributary.FeedQuery, kind string, render func(tributary.Timeline) ([]byte, error)) (*Encoded, error) {
	if q.List != 0 {
		return nil, errNoList
	}
	q.IncludeSeen = false
	key := q.Signature() + "&cursor=" + q.Cursor
	if s.cacheable() {
		if enc, ok, err := s.anon.rendered(key, kind, render); ok || err != nil {
			return enc, err
		}
	}
	t, err := s.Timeline(ctx, nil, q)
	if err != nil {
		return nil, err
	}
	b, err := render(t)
	if err != nil {
		return nil, err
	}
	return NewEncoded(b), nil
}

func (s *Service) page(ctx context.Context, viewer *tributary.User, q tributary.FeedQuery) (tributary.Timeline, error) {
	now := s.now()
	if t, ok := db.ReadAheadNow(ctx); ok {
		now = t // the page is made as of its reads brought with the session
	}
	var c Cursor
	if q.Cursor != "" {
		var err error
		if c, err = s.keys.decode(ctx, q.Cursor, fenceKey(viewer, q), now); err != nil {
			return tributary.Timeline{}, err
		}
	}
	r, err := s.request(ctx, viewer, q, now, c.At)
	if err != nil {
		return tributary.Timeline{}, err
	}
	r.likesAhead(ctx, q.Cursor == "")

	var p Page
	refreshed := false
	if q.Cursor == "" {
		p, err = r.fence.First(ctx, r.key, r.now, q.Limit)
	} else {
		p, err = r.fence.Next(ctx, r.key, c, q.Limit)
		if errors.Is(err, ErrReset) {
			p, err = r.fence.First(ctx, r.key, r.now, q.Limit)
			refreshed = true
		}
	}
	if err != nil {
		return tributary.Timeline{}, err
	}
	if q.Cursor == "" || refreshed {
		r.remember(p)
	}
	t := r.timeline(p, time.Time{})
	t.Refreshed = refreshed
	if viewer != nil && q.List == 0 {
		t.Followees = r.src.v.followed.Len() - 1 // the set holds the viewer too
	}
	return t, s.itemTalk(ctx, r.src.v.access, t.Items, r.src.talked)
}

// timeline renders a page's items, keeping only those from fenceposts after newerThan.
func (r *request) timeline(p Page, newerThan time.Time) tributary.Timeline {
	t := tributary.Timeline{Items: make([]tributary.Item, 0, len(p.IDs)), Path: r.src.path, Followees: -1}
	for i, id := range p.IDs {
		if p.In[i].After(newerThan) {
			t.Items = append(t.Items, r.src.items[id])
		}
	}
	if p.Next != nil {
		t.NextCursor = r.codec.encode(r.key, *p.Next, r.now)
	}
	// An empty feed has no fencepost yet: the page shows all that arrived up to now, and
	// asks for what arrives after it.
	t.Fencepost = FormatFencepost(cmp.Or(p.Fencepost, r.now))
	return t
}

// FormatFencepost and ParseFencepost spell a fencepost's time in URLs and the API.
func FormatFencepost(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// ParseFencepost parses a fencepost time given by a client.
func ParseFencepost(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, tributary.FieldErrorf("fencepost", "Parameter 'fencepost' must be a fencepost time from this feed, got %q.", s)
	}
	return t.UTC(), nil
}

// NewCount counts the items that arrived after the fencepost a page shows (at most max):
// the "N new" notice. A live stream's asks keep the reader's state between them
// (WithNoticeState).
func (s *Service) NewCount(ctx context.Context, viewer *tributary.User, q tributary.FeedQuery, after time.Time, max int) (int, error) {
	now := s.now()
	src, fenced, err := s.noticeSource(ctx, viewer, q, now)
	if err != nil {
		return 0, err
	}
	aq := src.withLate(src.arrivedQuery(after, now, Pos{}, nil, max))
	if !fenced {
		// No fencepost yet: the first ranks the window by shares, so activity would not show.
		aq.Activity = false
	}
	arrived, err := s.store.Arrived(ctx, aq)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, a := range arrived {
		if !src.Hidden(a.AnchorID) {
			n++
		}
	}
	noteCount(ctx, viewer, q, after, max, arrived)
	return n, nil
}

// NewItems commits the newest fencepost (a first-page load) and returns its items that come
// from fenceposts newer than after: what goes above a page the viewer already has open.
func (s *Service) NewItems(ctx context.Context, viewer *tributary.User, q tributary.FeedQuery, after time.Time) (tributary.Timeline, error) {
	r, err := s.request(ctx, viewer, q, s.now(), time.Time{})
	if err != nil {
		return tributary.Timeline{}, err
	}
	r.likesAhead(ctx, true)
	p, err := r.fence.First(ctx, r.key, r.now, s.cfg.HeadSize*2)
	if err != nil {
		return tributary.Timeline{}, err
	}
	t := r.timeline(p, after)
	return t, s.itemTalk(ctx, r.src.v.access, t.Items, r.src.talked)
}

// path says where this request's items come from: the snapshot when it is fresh and no
// category filter is set, the live path otherwise.
func (s *Service) path(q tributary.FeedQuery, v viewerState, now time.Time) string {
	if !v.snapshot.IsZero() && now.Sub(v.snapshot) < s.cfg.SnapshotMaxAge && q.Source == "" {
		return tributary.PathSnapshot
	}
	return tributary.PathLive
}

// Warm copies the snapshot's ranking columns into this process (after a refresh): logged-in
// viewers rank on the copy (Config.CopyFrom). Without it, the copy is made in the background
// when a request first needs it.
func (s *Service) Warm(ctx context.Context) error { return s.rank.warm(ctx) }

// AccessChanged drops the anonymous cache: after a change in who may read what, no cached
// page may outlive it.
func (s *Service) AccessChanged() { s.anon.clear() }
