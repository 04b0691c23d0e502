package web

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"tributary"
	"tributary/db"
)

// liveEvery is the least time between two asks of one stream: a burst of changes costs each
// open page one ask.
const liveEvery = 250 * time.Millisecond

// liveHeartbeat is how often an idle stream sends a comment, so that proxies keep it open,
// and asks again, at most.
const liveHeartbeat = 25 * time.Second

// heartbeatEvery is one stream's period: from 60 % of the longest up to it, drawn when the
// stream opens. Streams opened together (the reconnects after a deploy, a thousand pages of
// one author's followers) would otherwise re-read their readers' state together at every
// beat; with periods apart, they drift apart after a few beats.
func heartbeatEvery(longest time.Duration) time.Duration {
	return longest*3/5 + rand.N(longest*2/5)
}

// liveAccessEvery is the least time between two wake-ups for changes of access: a burst of
// them (a ban here, an unfollow there) costs each stream concerned two new reads of its
// reader at most (the first change's, and the rest's together).
const liveAccessEvery = 250 * time.Millisecond

// liveHub is this instance's open streams.
type liveHub struct {
	store *db.Store
	log   *slog.Logger
	caps  LiveCaps

	mu      sync.Mutex
	streams map[*liveConn]struct{}
	byAddr  map[string]int // open streams per client address
	byUser  map[int64]int  // per signed-in reader
	running sync.WaitGroup // the open streams, detached from their requests or not
	closed  bool
	done    chan struct{} // closed when the server shuts down: streams end
	// Changes of access heard of and not yet told to the streams (liveAccessEvery): every
	// reader's (all) or some readers'.
	accessAll   bool
	accessOf    map[int64]bool
	accessTimer *time.Timer
	accessEvery time.Duration
	askTimeout  time.Duration // liveAskTimeout
	heartbeat   time.Duration // the longest a stream stays silent (liveHeartbeat)
	asks        atomic.Int64  // the notices asked for, since the start
	counted     atomic.Int64  // ... and those told from a stream's last count (countArrived)
	// asking holds a slot per notice being asked: fewer than the pool's connections, so that
	// a share that wakes a thousand streams never queues its own request (the session it
	// saves after its commit) behind their asks.
	asking chan struct{}
	work   chan func() // asks handed to an idle worker (run)
}

// liveConn is one open stream as the hub sees it.
type liveConn struct {
	addr string
	user int64         // its reader (0: anonymous), for the whole stream
	wake chan struct{} // a value when the stream should look again
	mu   sync.Mutex
	// The reader's access as the stream last read it (known), and the page's author (0: any):
	// the posts told to the stream are those it may show.
	known  bool
	access tributary.Viewer
	author int64
	news   liveNews
}

// liveNews is what a stream was told since it last looked.
type liveNews struct {
	talk    []db.LivePost // posts whose talk changed (each once)
	talked  map[int64]bool
	arrived []db.LivePost // posts made
	must    bool          // something else changed: ask whatever the posts are
	lost    bool          // more talked of than kept: the page checks every card it shows
	reread  bool          // the reader's access may have changed: read it again, check the cards
	unread  bool          // the reader's notifications changed: send their unread count
}

// liveTalkKept is how many posts' talk a stream keeps between two looks.
const liveTalkKept = 500

func newLiveHub(store *db.Store, log *slog.Logger, caps LiveCaps) *liveHub {
	return &liveHub{store: store, log: log, caps: caps, streams: map[*liveConn]struct{}{}, byAddr: map[string]int{},
		byUser: map[int64]int{}, accessOf: map[int64]bool{}, accessEvery: liveAccessEvery, askTimeout: liveAskTimeout, heartbeat: liveHeartbeat, done: make(chan struct{}),
		asking: make(chan struct{}, askSlots(store)), work: make(chan func())}
}

// askSlots is how many notices are asked at once: all of the pool's connections but one.
func askSlots(store *db.Store) int {
	if store == nil || store.Pool == nil {
		return 1
	}
	return max(1, int(store.Pool.Config().MaxConns)-1)
}

// takeSlot waits for an ask's slot, until askTimeout or ctx ends it (false: none was had).
func (h *liveHub) takeSlot(ctx context.Context) bool {
	wait, waited := context.WithTimeout(ctx, h.askTimeout)
	defer waited()
	select {
	case h.asking <- struct{}{}:
		return true
	case <-wait.Done():
		return false
	}
}

func (h *liveHub) freeSlot() { <-h.asking }

// askWorkerIdle is how long an ask worker waits for the next ask before it ends.
const askWorkerIdle = 5 * time.Second

// run runs an ask on an idle worker, or on a new one (at most one per slot are busy): a
// worker's stack, grown by its first ask, serves the asks after it.
func (h *liveHub) run(ask func()) {
	select {
	case h.work <- ask:
	default:
		go h.worker(ask)
	}
}

func (h *liveHub) worker(ask func()) {
	ask()
	idle := time.NewTimer(askWorkerIdle)
	defer idle.Stop()
	for {
		select {
		case ask := <-h.work:
			ask()
			idle.Reset(askWorkerIdle)
		case <-idle.C:
			return
		case <-h.done:
			return
		}
	}
}

// setPage says whose page the stream is on (0: any author's posts may be new there).
func (c *liveConn) setPage(author int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.author = author
}

// setReader records the reader's access as the stream last read it.
func (c *liveConn) setReader(v tributary.Viewer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.known, c.access = true, v
}

// notify wakes the streams that the changes may concern (coalesced: a stream looks once
// however many notifications came while it waited): with must (something else changed) or
// reread (their readers' access may have changed), every stream concerned; otherwise those
// whose reader may read a post talked of or made (by the page's author, on a user's page).
// concerns (nil: every stream) picks the streams.
func (h *liveHub) notify(must, reread bool, concerns func(*liveConn) bool, talked, arrived []db.LivePost) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.streams {
		if concerns != nil && !concerns(c) {
			continue
		}
		if c.told(must, reread, talked, arrived) {
			select {
			case c.wake <- struct{}{}:
			default:
			}
		}
	}
}

// told adds news to the stream's and reports whether it should look.
func (c *liveConn) told(must, reread bool, talked, arrived []db.LivePost) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := &c.news
	readable := func(p db.LivePost) bool { return !c.known || c.access.CanRead(p.Access) }
	woke := must || reread
	for _, p := range talked {
		if readable(p) && !n.talked[p.ID] {
			if n.talked == nil {
				n.talked = map[int64]bool{}
			}
			n.talked[p.ID], n.talk, woke = true, append(n.talk, p), true
		}
	}
	for _, p := range arrived {
		if readable(p) && (c.author == 0 || p.AuthorID == c.author) {
			n.arrived, woke = append(n.arrived, p), true
		}
	}
	if len(n.talk) > liveTalkKept || len(n.arrived) > liveTalkKept {
		n.talk, n.talked, n.arrived, n.lost, must = nil, nil, nil, true, true
	}
	n.must, n.reread = n.must || must, n.reread || reread
	return woke
}

// accessStale forgets the reader's access as the stream read it, and asks for it again at the
// stream's next look.
func (c *liveConn) accessStale() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.known, c.news.reread = false, true
}

// taken returns and forgets what the stream was told since the last call.
func (c *liveConn) taken() liveNews {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.news
	c.news = liveNews{}
	return n
}

// open is how many streams are open.
func (h *liveHub) open() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.streams)
}

// close ends every stream, for a shutdown (open streams would keep it waiting), and waits
// until they have: net/http does not wait for the streams it no longer holds.
func (h *liveHub) close() {
	h.mu.Lock()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
	h.mu.Unlock()
	h.running.Wait()
}

// accessChanged wakes every stream to read its reader's session and access again.
func (h *liveHub) accessChanged() { h.accessOfChanged(nil) }

// accessOfChanged wakes the streams of readers (nil: every stream) to read their session and
// access again: at once, unless streams were told of a change of access less than
// liveAccessEvery ago; then at the end of that time, with every other change of it.
func (h *liveHub) accessOfChanged(readers []int64) {
	h.mu.Lock()
	if readers == nil {
		h.accessAll = true
	}
	for _, id := range readers {
		h.accessOf[id] = true
	}
	// Until they are told, the streams concerned no longer trust the access they read: a post
	// arriving meanwhile wakes them, and their ask reads the reader's access again.
	for c := range h.streams {
		if readers == nil || slices.Contains(readers, c.user) {
			c.accessStale()
		}
	}
	if h.accessTimer != nil {
		h.mu.Unlock()
		return
	}
	h.accessTimer = time.AfterFunc(h.accessEvery, h.accessWindowEnded)
	h.mu.Unlock()
	h.tellAccess()
}

// accessWindowEnded tells the streams of the changes of access heard of in the window that
// ended, if any (and opens another window).
func (h *liveHub) accessWindowEnded() {
	h.mu.Lock()
	if !h.accessAll && len(h.accessOf) == 0 {
		h.accessTimer = nil
		h.mu.Unlock()
		return
	}
	h.accessTimer = time.AfterFunc(h.accessEvery, h.accessWindowEnded)
	h.mu.Unlock()
	h.tellAccess()
}

// unreadChanged wakes the streams of readers whose notifications changed (nil: too many to
// list, every signed-in reader's) to send their unread count again.
func (h *liveHub) unreadChanged(readers []int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.streams {
		if c.user == 0 || readers != nil && !slices.Contains(readers, c.user) {
			continue
		}
		c.mu.Lock()
		c.news.unread = true
		c.mu.Unlock()
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

// tellAccess tells the streams of the changes of access not told yet.
func (h *liveHub) tellAccess() {
	h.mu.Lock()
	all, of := h.accessAll, h.accessOf
	h.accessAll, h.accessOf = false, map[int64]bool{}
	h.mu.Unlock()
	var concerns func(*liveConn) bool
	if !all {
		if len(of) == 0 {
			return
		}
		concerns = func(c *liveConn) bool { return of[c.user] }
	}
	h.notify(true, true, concerns, nil, nil)
}

// siteChanged hears of the site's changes (from every instance): the streams ask again
// after new posts or talk that their readers may read; after a change of access, the streams
// of the readers it concerns (or every stream: a change for anyone, or a reset, when a
// change may have been missed) read their readers again and check their cards. The posts
// talked of are read once here, with their access, for every stream to check against its
// reader.
func (h *liveHub) siteChanged(changes []db.SiteChange, reset bool) {
	var talked, made, readers []int64
	for _, c := range changes {
		switch {
		case c.Kind == "talk" && len(c.IDs) == 0, c.Kind == "new_posts" && len(c.IDs) == 0:
			reset = true // too many to list: every card and notice may have changed
		case c.Kind == "talk":
			talked = append(talked, c.IDs...)
		case c.Kind == "new_posts":
			made = append(made, c.IDs...)
		case c.Kind == "cursor_keys", c.Kind == "past_posts", c.Kind == "cards": // nobody's access (a card's posts come as talk)
		case c.Kind == "notifications", c.Kind == "notification_reads": // nobody's access: their badges
			h.unreadChanged(c.Readers)
		case c.Readers == nil:
			reset = true // who may read what changed, for anyone
		default:
			readers = append(readers, c.Readers...)
		}
	}
	if reset {
		h.accessChanged()
		return
	}
	if len(readers) > 0 {
		h.accessOfChanged(readers)
	}
	if len(talked)+len(made) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	posts, err := h.store.LivePosts(ctx, append(slices.Clone(talked), made...))
	if err != nil {
		h.log.Warn("live: posts talked of and made", "err", err)
		h.accessChanged() // the pages ask and check what they show
		return
	}
	isTalk := make(map[int64]bool, len(talked))
	for _, id := range talked {
		isTalk[id] = true
	}
	isNew := make(map[int64]bool, len(made))
	for _, id := range made {
		isNew[id] = true
	}
	var talk, arrived []db.LivePost
	for _, p := range posts {
		if isTalk[p.ID] {
			talk = append(talk, p)
		}
		if isNew[p.ID] {
			arrived = append(arrived, p)
		}
	}
	h.notify(false, false, nil, talk, arrived)
}
