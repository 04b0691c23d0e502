package db

import (
	"slices"
	"sync"
	"time"

	"tributary/db/internal/dbq"
	"tributary/internal/lru"
)

// unreadKept is each reader's unread count as this instance last read it, so that a
// signed-in request's session read need not count again while nothing the count depends on
// changed (a reader with 10,000 notifications: ~3 ms a count). The read itself checks what
// it can in the same round trip (SessionWithAccess: the newest notification, the read-up-to
// marker, the bans and private feeds, the newest change of posts' access); the site's change
// log, heard on every instance, drops what it cannot see: a notification read or removed.
// Nothing is kept while the instance is not caught up with that log.
type unreadKept struct {
	mu  sync.Mutex
	up  func() bool // nil: never caught up (nothing is kept)
	gen uint64      // advanced by every change heard (from 1: 0 says nothing is kept)
	all uint64      // gen of the last change that may concern any reader
	// counts holds kept counts and, as invalid entries, when a reader's last change was
	// heard: a count read before it is not kept.
	counts *lru.Cache[int64, unreadCount]
	// sessions holds, per token, the session this instance last read and whose it was, so
	// that the badge's request can be answered from the kept count without a read
	// (Store.KeptUnread); ended, per user, the generation of the last change heard that ended
	// or moved one of their sessions: a session read before it is not answered for.
	sessions *lru.Cache[string, keptSession]
	ended    *lru.Cache[int64, uint64]
}

// keptSession is a session as a read found it: whose it is, until when it lasts (its
// deadline, and sessionIdle after its recorded use), and the generation it was read at.
type keptSession struct {
	user           int64
	deadline, idle time.Time
	gen            uint64
}

type unreadCount struct {
	valid        bool
	gen          uint64
	n            int
	newestID     int64
	readUptoUs   int64
	accessChange int64
	blocked      []int64
	private      []int64
}

const (
	unreadKeptMax = 50_000
	unreadKeptTTL = 10 * time.Minute
)

func newUnreadKept() *unreadKept {
	return &unreadKept{gen: 1, counts: lru.New[int64, unreadCount](unreadKeptTTL, unreadKeptMax, time.Now),
		sessions: lru.New[string, keptSession](unreadKeptTTL, unreadKeptMax, time.Now),
		ended:    lru.New[int64, uint64](unreadKeptTTL, unreadKeptMax, time.Now)}
}

// KeepUnread lets this store keep unread counts while up reports the instance caught up
// with the site's change log; UnreadHeard must hear that log.
func (s *Store) KeepUnread(up func() bool) {
	s.unread.mu.Lock()
	s.unread.up = up
	s.unread.mu.Unlock()
}

// UnreadHeard drops the kept counts that the site's changes may have made wrong.
func (s *Store) UnreadHeard(changes []SiteChange, reset bool) {
	u := s.unread
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, c := range changes {
		switch {
		case reset:
		case c.Kind == "sessions":
			u.gen++
			if c.Readers == nil {
				u.sessions.Clear()
			}
			for _, r := range c.Readers {
				u.ended.Put(r, u.gen)
			}
			continue
		case c.Kind == "notifications" || c.Kind == "notification_reads" || c.Kind == "bans" || c.Kind == "feed_readers":
			// a reader's notifications, or what they may read of them (the session read checks
			// bans and private feeds itself; the badge answered from a kept count does not)
			if c.Readers != nil {
				u.gen++
				for _, r := range c.Readers {
					u.counts.Put(r, unreadCount{gen: u.gen})
				}
				continue
			}
		case c.Kind == "posts" || c.Kind == "users":
			// a post's access or deletion, a user's privacy or deletion: any reader's
		default:
			continue
		}
		reset = true
	}
	if reset {
		u.gen++
		u.all = u.gen
		u.counts.Clear()
		u.sessions.Clear()
	}
}

// KeptUnread is the unread count of the user whose session token names, from what this
// instance kept of both (false: it kept nothing it may answer with). It holds while the
// instance is caught up with the site's change log and has heard, since the session's and
// the count's reads, of no change that ended the session or may have changed the count;
// so it may be as stale as the log is late (a WakeEvery), as pages' live streams are.
func (s *Store) KeptUnread(token string, now time.Time) (int, bool) {
	u := s.unread
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.up == nil || !u.up() {
		return 0, false
	}
	k, ok := u.sessions.Get(token)
	if !ok || u.all > k.gen || !now.Before(k.deadline) || !now.Before(k.idle) {
		return 0, false
	}
	if ended, ok := u.ended.Get(k.user); ok && ended > k.gen {
		return 0, false
	}
	c, ok := u.counts.Get(k.user)
	if !ok || !c.valid {
		return 0, false
	}
	return c.n, true
}

// keepSession keeps a session read at gen (a signed-in one, r.ID not 0), for KeptUnread.
func (u *unreadKept) keepSession(token string, gen uint64, r dbq.SessionWithAccessRow) {
	deadline, _, err := SessionCodec{}.Decode(r.Data)
	if gen == 0 || r.ID == 0 || err != nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if ended, ok := u.ended.Get(r.ID); u.all > gen || ok && ended > gen {
		return
	}
	u.sessions.Put(token, keptSession{user: r.ID, deadline: deadline, idle: r.SeenAt.Add(sessionIdle), gen: gen})
}

// dropSession forgets a session this instance ended (the others hear of it through the log).
func (u *unreadKept) dropSession(token string) {
	u.mu.Lock()
	u.sessions.Delete(token)
	u.mu.Unlock()
}

// query fills in what a session read asks of the count kept for user (0: whose the session
// is, unknown), and returns that count and the generation to keep the read's answer under.
func (u *unreadKept) query(user int64, p *dbq.SessionWithAccessParams) (kept int, gen uint64) {
	p.KeptBlocked, p.KeptPrivateFeeds = []int64{}, []int64{}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.up == nil || !u.up() {
		return 0, 0
	}
	if c, ok := u.counts.Get(user); ok && c.valid && user != 0 {
		p.KeptUser, p.KeptNewestID, p.KeptReadUptoUs, p.KeptAccessChange = user, c.newestID, c.readUptoUs, c.accessChange
		p.KeptBlocked, p.KeptPrivateFeeds = c.blocked, c.private
		kept = c.n
	}
	return kept, u.gen
}

// answer returns the read's unread count: the kept one when the read found it holds (-1),
// else the one it counted, kept unless a change heard since gen may have made it wrong.
func (u *unreadKept) answer(kept int, gen uint64, r dbq.SessionWithAccessRow) int {
	if r.Unread < 0 {
		return kept
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if gen == 0 || u.all > gen {
		return int(r.Unread)
	}
	if c, ok := u.counts.Get(r.ID); ok && !c.valid && c.gen > gen {
		return int(r.Unread)
	}
	u.counts.Put(r.ID, unreadCount{valid: true, gen: gen, n: int(r.Unread), newestID: r.NewestID,
		readUptoUs: r.ReadUptoUs, accessChange: r.AccessChange, blocked: slices.Clone(r.Blocked), private: slices.Clone(r.PrivateFeeds)})
	return int(r.Unread)
}

// forget drops a reader's kept count at once on this instance (its own change of it; the
// other instances hear of it through the change log).
func (u *unreadKept) forget(user int64) {
	u.mu.Lock()
	u.gen++
	u.counts.Put(user, unreadCount{gen: u.gen})
	u.mu.Unlock()
}
