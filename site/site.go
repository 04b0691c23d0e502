// Package site makes any number of instances on one database one site: it is the one
// cross-instance event path. Writes record their changes in their own transaction
// (site_changes, by triggers); each instance keeps one listening connection and reads the
// log by transaction id when a NOTIFY wakes it, when its own poll comes round, and after
// every reconnect, so nothing is skipped and nothing is applied twice. A NOTIFY only wakes:
// it is sent after commit, outside any write transaction, coalesced per instance.
package site

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"tributary/db"
)

// Channel is the NOTIFY channel instances listen on.
const Channel = "tributary_site"

// ListenerName is the application_name of each instance's listening connection.
const ListenerName = "tributary site listener"

// Handler receives changes in the order they were recorded. reset says the instance may
// have missed changes (it has just connected or reconnected): drop everything kept.
type Handler func(changes []db.SiteChange, reset bool)

// Bus is this instance's end of the event path.
type Bus struct {
	store *db.Store
	log   *slog.Logger
	id    [16]byte

	// Poll is how often the log is read without a wake-up (also the heartbeat);
	// Alive is how long an instance not heard of still counts; SyncTimeout bounds Sync;
	// WakeEvery is the least time between two wake-ups this instance sends for Changed.
	Poll, Alive, SyncTimeout, WakeEvery time.Duration

	mu       sync.Mutex
	handlers []Handler
	up       atomic.Bool
	wake     chan struct{}
	waiters  []chan int64  // Syncs waiting for the token of the next wake-up (under mu)
	upWait   chan struct{} // closed, and made again, each time the instance comes up (under mu)

	// Read by tests: the newest wake-up token this instance has caught up after.
	acked atomic.Int64
	// Catch-ups begun and ended (one at a time, in order): see Mark.
	begun, ended atomic.Uint64
}

// New returns the bus of one instance; Run starts it.
func New(store *db.Store, log *slog.Logger) *Bus {
	b := &Bus{store: store, log: log, Poll: time.Second, Alive: 5 * time.Second, SyncTimeout: time.Second,
		WakeEvery: 20 * time.Millisecond, wake: make(chan struct{}, 1), upWait: make(chan struct{})}
	rand.Read(b.id[:])
	if b.log == nil {
		b.log = slog.Default()
	}
	return b
}

// Subscribe adds a handler (handlers added while it runs hear of the changes from then on).
func (b *Bus) Subscribe(h Handler) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.handlers = append(b.handlers, h)
}

// Up reports whether this instance is listening and caught up: while it is not, it cannot
// learn of other instances' changes, and nothing may be served from what it keeps.
func (b *Bus) Up() bool { return b != nil && b.up.Load() }

// WaitUp waits until this instance is listening and caught up (Up), or ctx is done.
func (b *Bus) WaitUp(ctx context.Context) error {
	for {
		b.mu.Lock()
		ch := b.upWait
		b.mu.Unlock()
		if b.Up() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Mark is where this instance's catching up is now: Past(m) holds once it has caught up by a
// read begun after Mark returned m, so a change committed before Mark was called has been
// heard of. A writer marks its change so that what this instance keeps is not used for its
// reader until then.
func (b *Bus) Mark() uint64 { return b.begun.Load() }

// Past reports whether this instance has caught up by a read begun after Mark gave m.
func (b *Bus) Past(m uint64) bool { return b.ended.Load() > m }

// Changed wakes the other instances soon (within WakeEvery), for changes that may reach
// them a few milliseconds late (new content). Never blocks.
func (b *Bus) Changed() {
	if b == nil {
		return
	}
	b.signal()
}

func (b *Bus) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// nextWake asks for a wake-up and returns where its token will come (0: it failed).
func (b *Bus) nextWake() <-chan int64 {
	ch := make(chan int64, 1)
	b.mu.Lock()
	b.waiters = append(b.waiters, ch)
	b.mu.Unlock()
	b.signal()
	return ch
}

// Sync is called after a change in who may read what has committed: it wakes every
// instance now and waits until each one heard of recently has caught up after the change
// (at most SyncTimeout), so the change holds on every instance from the next request on.
func (b *Bus) Sync(ctx context.Context) {
	if b == nil {
		return
	}
	deadline := time.Now().Add(b.SyncTimeout)
	var token int64
	select { // the wake-up this instance sends next, shared with other changes of the moment
	case token = <-b.nextWake():
	case <-ctx.Done():
	case <-time.After(b.SyncTimeout):
	}
	if token == 0 {
		b.log.Warn("site: no wake-up sent; other instances catch up at their next poll")
		return
	}
	for wait := time.Millisecond; ; wait = min(2*wait, 20*time.Millisecond) {
		n, err := b.store.Lagging(ctx, token, b.Alive)
		if err != nil {
			b.log.Warn("site: sync", "err", err)
			return
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			b.log.Warn("site: sync timed out", "lagging", n)
			return
		}
		time.Sleep(wait)
	}
}

// Run listens until ctx is done, reconnecting after a lost connection.
func (b *Bus) Run(ctx context.Context) {
	go b.waker(ctx)
	var cursor int64
	applied := map[int64]int64{} // change id -> xid, for changes at or after cursor
	for backoff := 50 * time.Millisecond; ; backoff = min(2*backoff, time.Second) {
		err := b.session(ctx, &cursor, applied, func() { backoff = 50 * time.Millisecond })
		if b.up.Swap(false) {
			b.deliver(nil, true) // until caught up again, nothing kept may be trusted
		}
		if ctx.Err() != nil {
			gctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = db.NewSiteLog(b.store.Pool).Gone(gctx, b.id)
			cancel()
			return
		}
		b.log.Warn("site: listener lost; reconnecting", "err", err, "in", backoff)
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
	}
}

// session is one listening connection's life: LISTEN, catch up, then catch up again at each
// wake-up or poll. It returns when the connection fails or ctx is done.
func (b *Bus) session(ctx context.Context, cursor *int64, applied map[int64]int64, connected func()) error {
	c, err := b.store.Session.Acquire(ctx) // LISTEN outlives any transaction
	if err != nil {
		return err
	}
	conn := c.Hijack()
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "SET application_name = '"+ListenerName+"'; LISTEN "+Channel); err != nil {
		return err
	}
	if err := db.PrepareListener(ctx, conn); err != nil {
		return err
	}
	log := db.NewSiteLog(conn)
	first := true
	for {
		if err := b.catchUp(ctx, log, cursor, applied, first); err != nil {
			return err
		}
		if first {
			first = false
			b.up.Store(true)
			b.mu.Lock()
			close(b.upWait)
			b.upWait = make(chan struct{})
			b.mu.Unlock()
			connected()
		}
		wctx, cancel := context.WithTimeout(ctx, b.Poll)
		_, err := conn.WaitForNotification(wctx)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
	}
}

// catchUp reads the log from cursor, hands the changes not yet applied to the handlers and
// records that this instance has caught up after the newest wake-up token read before.
func (b *Bus) catchUp(ctx context.Context, log db.SiteLog, cursor *int64, applied map[int64]int64, reset bool) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second) // a dead connection fails here, not forever
	defer cancel()
	n := b.begun.Add(1)
	token, err := log.WakeToken(ctx)
	if err != nil {
		return err
	}
	changes, xmin, err := log.Since(ctx, *cursor)
	if err != nil {
		return err
	}
	fresh := changes[:0]
	for _, c := range changes {
		if _, ok := applied[c.ID]; !ok {
			applied[c.ID] = c.XID
			fresh = append(fresh, c)
		}
	}
	if reset || slices.ContainsFunc(fresh, func(c db.SiteChange) bool { return !c.Live() }) {
		// A read replica takes no reads until it has replayed these changes (or, after a
		// reset, whatever was missed); what open pages hear of alone does not fence it.
		lsn, err := log.LSN(ctx)
		if err != nil {
			return err
		}
		b.store.FenceReplica(lsn)
	}
	if len(fresh) > 0 || reset {
		b.deliver(fresh, reset)
	}
	if xmin > *cursor {
		*cursor = xmin
		for id, xid := range applied {
			if xid < xmin {
				delete(applied, id)
			}
		}
	}
	if err := log.Seen(ctx, b.id, token); err != nil {
		return err
	}
	b.acked.Store(token)
	b.ended.Store(n)
	return nil
}

func (b *Bus) deliver(changes []db.SiteChange, reset bool) {
	b.mu.Lock()
	hs := b.handlers
	b.mu.Unlock()
	for _, h := range hs {
		h(changes, reset)
	}
}

// waker sends the wake-ups asked for by Changed and Sync: at most one NOTIFY every
// WakeEvery from this instance, in a transaction of its own, after the changes committed;
// every Sync waiting gets its token.
func (b *Bus) waker(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.wake:
		}
		b.mu.Lock()
		waiting := b.waiters
		b.waiters = nil
		b.mu.Unlock()
		token, err := b.store.Wake(ctx)
		if err != nil && ctx.Err() == nil {
			b.log.Warn("site: wake", "err", err)
		}
		for _, ch := range waiting {
			ch <- token // 0 when it failed
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(b.WakeEvery):
		}
	}
}

// Acked is the newest wake-up token this instance has caught up after (tests).
func (b *Bus) Acked() int64 { return b.acked.Load() }
