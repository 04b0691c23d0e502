package web

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"time"

	"tributary"
	"tributary/db"
	"tributary/feed"
)

// A stream's asks: its notice asked as its reader, their session and access read again
// when they may have changed.

// liveReader is a stream's reader as its last full ask read them: their user and access,
// good until the hub says the reader's access changed (or a heartbeat reads them again).
type liveReader struct {
	read   bool
	user   *tributary.User
	access tributary.Viewer
	notice feed.NoticeState // the feed's state of the reader, kept as long
	// keepState: the next read of the reader is a heartbeat's, which keeps the notice's
	// state when the reader's access (bans, private feeds, groups, hidden items, mutes) is as it was:
	// a change of follows comes as a change of access; the rest (the home's activity
	// setting, the fence) is read again every liveStateBeats beats.
	keepState bool
	beats     int
	// unread is the reader's unread notification lines as the last ask read them (-1: it
	// read none): a read of the session brings them, else the ask counts them when asked to.
	unread int
}

// liveStateBeats is how many heartbeats a stream's reader and notice state are kept through
// while the instance hears the site's change log (else its session and access are read at
// every beat, the notice state kept through as many): 10,000 open pages re-reading their
// readers at every beat were most of the instances' work.
const liveStateBeats = 4

// liveAskTimeout bounds a stream's wait for a slot, and then its ask: an ask that cannot be
// answered by then is given up (the page keeps what it shows; the next wake-up or heartbeat
// asks again), so no stream holds a slot or a connection for long. The ask's own time starts
// with its slot: cancelled in the middle of a query, its connection would be closed.
const liveAskTimeout = 5 * time.Second

// askLive asks the stream's notice as its reader and returns what the page's slot shows.
// The reader's session and access are read afresh (the stream may be open for hours; a
// follower removed meanwhile must not go on counting a private feed) when the hub said their
// access changed, and at the heartbeats that read it again; between them only new posts and
// talk happened, and the last read holds (so does the feed's state of the reader the notice
// counts with: feed.NoticeState). ok is false when no notice could be had (the database away, the ask
// too slow): the page keeps what it shows; gone is true when the session no longer has the
// stream's reader (logged out): the stream ends. With countUnread, the ask also has the
// reader's unread count (reader.unread), read in its slot like the rest.
//
// Once it has a slot, the ask runs on one of the hub's ask workers, so that the stream's
// goroutine, which waits for hours, keeps the small stack of its loop rather than the deepest
// of its asks; the workers keep theirs from ask to ask rather than growing a new one each.
func (s *Server) askLive(ctx context.Context, r *http.Request, src notice, reader *liveReader, countUnread bool) (notice []byte, ok, gone bool) {
	if !s.live.takeSlot(ctx) {
		return nil, false, false
	}
	done := make(chan struct{})
	s.live.run(func() {
		defer close(done)
		defer s.live.freeSlot()
		notice, ok, gone = s.askSlotted(ctx, r, src, reader, countUnread)
	})
	<-done
	return notice, ok, gone
}

// askSlotted is askLive once the ask holds a slot.
func (s *Server) askSlotted(ctx context.Context, r *http.Request, src notice, reader *liveReader, countUnread bool) (notice []byte, ok, gone bool) {
	ctx, cancel := context.WithTimeout(ctx, s.live.askTimeout)
	defer cancel()
	s.live.asks.Add(1)
	reader.unread = -1
	if !reader.read {
		u, access, unread, err := s.liveSession(ctx, r)
		if err != nil {
			s.askFailed(ctx, r, err)
			return nil, false, false
		}
		if userID(u) != userID(currentUser(r.Context())) {
			return nil, false, true
		}
		if !reader.keepState || userID(u) != userID(reader.user) || !slices.Equal(access.Hidden, reader.access.Hidden) ||
			!slices.Equal(access.Blocked, reader.access.Blocked) || !slices.Equal(access.PrivateFeeds, reader.access.PrivateFeeds) ||
			!slices.Equal(access.Mutes, reader.access.Mutes) || !slices.Equal(access.Groups, reader.access.Groups) {
			reader.notice.Forget()
		}
		reader.read, reader.keepState, reader.user, reader.access, reader.unread = true, false, u, access, unread
	}
	if countUnread && reader.user != nil && reader.unread < 0 {
		n, err := s.store.UnreadNotifications(ctx, reader.access)
		if err != nil {
			s.askFailed(ctx, r, err)
			return nil, false, false
		}
		reader.unread = n
	}
	pill, err := s.pill(feed.WithNoticeState(ctx, &reader.notice), reader.user, reader.access, src)
	var b bytes.Buffer
	if err == nil {
		err = pill.Render(ctx, &b)
	}
	if err != nil {
		s.askFailed(ctx, r, err)
		return nil, false, false
	}
	return b.Bytes(), true, false
}

// countArrived is the stream's ranked notice after the posts made, told from what its last
// ask counted (feed.NoticeState.Arrive) when each post its reader may read allows: no slot,
// no query. ok is false when the stream must ask.
func (s *Server) countArrived(ctx context.Context, src notice, reader *liveReader, arrived []db.LivePost) (notice []byte, ok bool) {
	if !src.ranked || !reader.read || reader.user == nil {
		return nil, false
	}
	count, told := 0, false
	for _, p := range arrived {
		if !mayBeNew(p, reader, 0) {
			continue
		}
		if count, ok = reader.notice.Arrive(src.after, p.AnchorID, p.AuthorID, p.InGroup); !ok {
			return nil, false
		}
		told = true
	}
	var b bytes.Buffer
	if !told || src.rankedPill(count).Render(ctx, &b) != nil {
		return nil, false
	}
	s.live.counted.Add(1)
	reader.unread = -1
	return b.Bytes(), true
}

// liveSession reads the stream's session as it is now: its user (nil: none), their access,
// and their unread notification lines when the session's read brought them (else -1).
func (s *Server) liveSession(ctx context.Context, r *http.Request) (*tributary.User, tributary.Viewer, int, error) {
	c, err := r.Cookie(s.sessions.Cookie.Name)
	if err != nil {
		return nil, tributary.Anonymous, -1, nil
	}
	ctx, su := db.WithSessionUser(ctx) // the session's read brings its user along
	if ctx, err = s.sessions.Load(ctx, c.Value); err != nil {
		return nil, tributary.Anonymous, -1, err
	}
	id := s.sessions.GetInt64(ctx, db.SessionUserKey)
	if id == 0 {
		return nil, tributary.Anonymous, -1, nil
	}
	u, access, err := s.userWithAccess(ctx, id)
	if tributary.ErrorCode(err) == tributary.ENotFound { // the account is gone
		return nil, tributary.Anonymous, -1, nil
	}
	if err != nil {
		return nil, tributary.Anonymous, -1, err
	}
	unread := -1
	if su.User.ID == id {
		unread = su.Unread
	}
	return &u, access, unread, nil
}

// askFailed logs an ask that failed, as fail would a request's: an ask given up (its stream
// gone, its deadline passed) is not logged, an outage once a second.
func (s *Server) askFailed(ctx context.Context, r *http.Request, err error) {
	switch {
	case ctx.Err() != nil:
	case db.Unavailable(err):
		s.outage.note(ctx, s.log, err)
	case statusOf(tributary.ErrorCode(err)) == http.StatusInternalServerError:
		s.log.ErrorContext(ctx, "live: ask", "src", r.URL.Query().Get("src"), "err", err)
	}
}
