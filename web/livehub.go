package web

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"tributary/db"
)

// liveEvery is the least time between two asks of one stream: a burst of changes costs each
// open page one ask.
const liveEvery = 250 * time.Millisecond

// liveHeartbeat is how often an idle stream sends a comment, so that proxies keep it open,
// and asks again, at most.
const liveHeartbeat = 25 * time.Second

// heartbeatEvery is one stream's period: from 60 % of liveHeartbeat up to it, drawn when the
// stream opens. Streams opened together (the reconnects after a deploy, a thousand pages of
// one author's followers) would otherwise re-read their readers' state together at every
// beat; with periods apart, they drift apart after a few beats.
func heartbeatEvery() time.Duration {
	return liveHeartbeat*3/5 + rand.N(liveHeartbeat*2/5)
}

// liveHub is this instance's open streams.
type liveHub struct {
	store *db.Store
	log   *slog.Logger

	mu      sync.Mutex
	streams map[*liveConn]struct{}
	running sync.WaitGroup // the open streams, detached from their requests or not
	closed  bool
	done    chan struct{} // closed when the server shuts down: streams end
	// epoch moves at every change that may change who may read what, or whose session is
	// whose (and after a reset): a stream reads its reader's session and access again then,
	// tells its page to check the cards it shows, and keeps them between new posts and talk.
	epoch atomic.Int64
	asks  atomic.Int64 // the notices asked for, since the start
	// asking holds a slot per notice being asked: fewer than the pool's connections, so that
	// a share that wakes a thousand streams never queues its own request (the session it
	// saves after its commit) behind their asks.
	asking chan struct{}
}

// liveConn is one open stream as the hub sees it.
type liveConn struct {
	wake    chan struct{} // a value when the stream should look again
	mu      sync.Mutex
	talk    []db.LivePost // posts whose talk changed since the stream last looked
	arrived []db.LivePost // posts made since then
	must    bool          // something else changed: ask whatever the posts are
	lost    bool          // more talked of than kept: the page checks every card it shows
}

// liveTalkKept is how many posts' talk a stream keeps between two looks.
const liveTalkKept = 500

func newLiveHub(store *db.Store, log *slog.Logger) *liveHub {
	return &liveHub{store: store, log: log, streams: map[*liveConn]struct{}{}, done: make(chan struct{}),
		asking: make(chan struct{}, askSlots(store))}
}

// askSlots is how many notices are asked at once: all of the pool's connections but one.
func askSlots(store *db.Store) int {
	if store == nil || store.Pool == nil {
		return 1
	}
	return max(1, int(store.Pool.Config().MaxConns)-1)
}

// join adds a stream. ok is false after close.
func (h *liveHub) join() (c *liveConn, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, false
	}
	c = &liveConn{wake: make(chan struct{}, 1)}
	h.streams[c] = struct{}{}
	h.running.Add(1)
	return c, true
}

func (h *liveHub) leave(c *liveConn) {
	h.mu.Lock()
	delete(h.streams, c)
	h.mu.Unlock()
	h.running.Done()
}

// notify wakes every open stream (coalesced: a stream looks once however many
// notifications came while it waited), telling each of the posts talked of and the posts
// made, if any; must says something else changed too.
func (h *liveHub) notify(must bool, talked, arrived []db.LivePost) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.streams {
		c.mu.Lock()
		if len(c.talk)+len(talked) > liveTalkKept || len(c.arrived)+len(arrived) > liveTalkKept {
			c.talk, c.arrived, c.lost, c.must = nil, nil, true, true
		} else {
			c.talk, c.arrived = append(c.talk, talked...), append(c.arrived, arrived...)
		}
		c.must = c.must || must
		c.mu.Unlock()
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

// taken returns and forgets what the stream was told since the last call.
func (c *liveConn) taken() (talk, arrived []db.LivePost, must, lost bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	talk, arrived, must, lost = c.talk, c.arrived, c.must, c.lost
	c.talk, c.arrived, c.must, c.lost = nil, nil, false, false
	return talk, arrived, must, lost
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
func (h *liveHub) accessChanged() {
	h.epoch.Add(1)
	h.notify(true, nil, nil)
}

// siteChanged hears of the site's changes (from every instance): the streams ask again
// after new posts, talk, a change in access, or a reset (a change may have been missed).
// The posts talked of are read once here, with their access, for every stream to check
// against its reader.
func (h *liveHub) siteChanged(changes []db.SiteChange, reset bool) {
	var talked, made []int64
	for _, c := range changes {
		switch {
		case c.Kind == "talk" && len(c.IDs) == 0, c.Kind == "new_posts" && len(c.IDs) == 0:
			reset = true // too many to list: every card and notice may have changed
		case c.Kind == "talk":
			talked = append(talked, c.IDs...)
		case c.Kind == "new_posts":
			made = append(made, c.IDs...)
		}
	}
	if reset || slices.ContainsFunc(changes, func(c db.SiteChange) bool { return !c.Live() }) {
		h.accessChanged()
		return
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
	h.notify(false, talk, arrived)
}
