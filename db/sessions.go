package db

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"tributary"
	"tributary/db/internal/dbq"
	"tributary/internal/lru"
)

// Sessions (scs) live in PostgreSQL, so that any instance serves any request, named by the
// SHA-256 of their token (tokenHash): the table alone opens no session. A session ends at
// its expiry (scs's Lifetime) or after sessionIdle unused, whichever comes first; its row's
// seen_at moves at most once per sessionTouch, so a request writes nothing. A session's
// row names its user beside its data: a signed-in request's first round trip reads the
// session, its user and what the access rules need of them together (SessionWithAccess)
// and leaves the user in the request's SessionUser.

// SessionUserKey is the name of the session value holding the signed-in user's id.
const SessionUserKey = "user_id"

// sessionIdle is how long a session may go unused (the queries' "30 days"); sessionTouch is
// how stale its last use may be recorded.
const (
	sessionIdle  = 30 * 24 * time.Hour
	sessionTouch = time.Hour
)

// SessionTokenHash is what the sessions table knows of a token (the bench mints sessions
// with it).
func SessionTokenHash(token string) []byte { return tokenHash(token) }

// tokenHash is what the sessions table knows of a token.
func tokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// SessionStore is an scs store on the sessions table.
type SessionStore struct {
	s *Store
	// users is the user each token named when this instance last read its session: only a
	// guess of whose viewer state to read beside the session (SessionUser.Ahead).
	users *lru.Cache[string, int64]
}

// Sessions returns the session store on the primary.
func (s *Store) Sessions() SessionStore {
	return SessionStore{s: s, users: lru.New[string, int64](time.Hour, 50_000, time.Now)}
}

// SessionUser is what a session's read found of its user: set (User.ID not 0) when the
// session names a user who exists.
type SessionUser struct {
	User   tributary.User
	Access tributary.Viewer
	Unread int // the user's unread notification lines (the header's badge)
	// Ahead, set before the session is read, is what the request's page will read first, for
	// a viewer id (false: nothing). The session's read then reads it in the same round trip
	// for the user this instance last found on the session's token, and keeps it when the
	// session does name that user: a guess the database confirms.
	Ahead func(viewerID int64) (Ahead, bool)
	// UserAgent, set before the session is written, is kept with it (the sessions page's device).
	UserAgent string
	read      string // the token whose session was read: its write only updates its row
	ahead     *viewerRead
	arrived   atomic.Pointer[arrivedRead]
}

// Ahead is what a page will read first: its viewer's state and, when its page can guess it
// (from the reader's last page), the arrivals it will ask for, all asked at Now. The page
// takes each only when it asks for that very read (ReadAhead, Store.Arrived).
type Ahead struct {
	Viewer  ViewerQuery
	Arrived *ArrivedQuery // nil: none
	Now     time.Time
}

// viewerRead is a viewer state read with the session, what it was asked as, and when.
type viewerRead struct {
	query ViewerQuery
	state ViewerState
	now   time.Time
}

// arrivedRead is the arrivals read with the session, and what they were asked as.
type arrivedRead struct {
	query ArrivedQuery
	out   []Arrival
}

// ReadAheadNow is when the page's reads the session's read brought were asked (false: none
// were): the page is made as of then, so that it asks for the very reads it has.
func ReadAheadNow(ctx context.Context) (time.Time, bool) {
	su := SessionUserOf(ctx)
	if su == nil || su.ahead == nil {
		return time.Time{}, false
	}
	return su.ahead.now, true
}

// arrivedAhead takes the arrivals the session's read of the request brought when they are
// q's (the viewer's likes q asks for come with them when they are the same items').
func arrivedAhead(ctx context.Context, q ArrivedQuery) ([]Arrival, bool) {
	su := SessionUserOf(ctx)
	if su == nil {
		return nil, false
	}
	a := su.arrived.Load()
	if a == nil || !sameArrivals(a.query, q) || !su.arrived.CompareAndSwap(a, nil) {
		return nil, false
	}
	if l, al := q.Likes, a.query.Likes; l != nil && al != nil && al.Liked != nil && slices.Equal(l.Anchors, al.Anchors) {
		l.Liked = al.Liked
	}
	return a.out, true
}

// sameArrivals says whether two arrival queries read the same (their likes aside).
func sameArrivals(a, b ArrivedQuery) bool {
	return a.Source == b.Source && a.Tag == b.Tag && a.Since.Equal(b.Since) && a.Until.Equal(b.Until) &&
		a.Viewer.ID == b.Viewer.ID && slices.Equal(a.Viewer.Blocked, b.Viewer.Blocked) &&
		slices.Equal(a.Viewer.PrivateFeeds, b.Viewer.PrivateFeeds) && slices.Equal(a.Followed.IDs(), b.Followed.IDs()) &&
		a.From.Equal(b.From) && a.To.Equal(b.To) && slices.Equal(a.Skip, b.Skip) && a.PosAt.Equal(b.PosAt) &&
		a.PosID == b.PosID && a.Limit == b.Limit && a.Activity == b.Activity && a.SetOnly == b.SetOnly &&
		a.Late == b.Late && slices.Equal(a.LateShown, b.LateShown)
}

// ReadAhead takes the viewer state the session's read of the request brought for vq's
// viewer, fencepost and list (false: none; the state is then read as usual). It is given
// once. The state's other terms are the read's: asked a moment before vq.
func ReadAhead(ctx context.Context, vq ViewerQuery) (ViewerQuery, ViewerState, bool) {
	su := SessionUserOf(ctx)
	if su == nil || su.ahead == nil {
		return ViewerQuery{}, ViewerState{}, false
	}
	a := su.ahead
	if a.query.ViewerID != vq.ViewerID || a.query.ListID != vq.ListID || a.query.FenceTemplate != vq.FenceTemplate ||
		!a.query.FenceAt.Equal(vq.FenceAt) {
		return ViewerQuery{}, ViewerState{}, false
	}
	su.ahead = nil
	return a.query, a.state, true
}

type sessionUserKey struct{}

// WithSessionUser gives a request a SessionUser for its session's read to fill.
func WithSessionUser(ctx context.Context) (context.Context, *SessionUser) {
	u := &SessionUser{}
	return context.WithValue(ctx, sessionUserKey{}, u), u
}

// SessionUserOf returns what the request's session read found of its user (nil: none).
func SessionUserOf(ctx context.Context) *SessionUser {
	u, _ := ctx.Value(sessionUserKey{}).(*SessionUser)
	return u
}

// FindCtx reads a session's data and, when the session names its user, the user with their
// access, in one round trip.
func (ss SessionStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	r, unread, err := ss.withAccess(ctx, token)
	if err == nil {
		ss.users.Put(token, r.ID)
		if u := SessionUserOf(ctx); u != nil {
			u.User, u.Access, u.read, u.Unread = userOf(sessionUser(r)), viewerAccessOf(sessionAccess(r)), token, unread
		}
		return r.Data, true, ss.touch(ctx, token, r.SeenAt)
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return nil, false, fmt.Errorf("db: session: %w", err)
	}
	d, err := ss.s.q.SessionData(ctx, tokenHash(token))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	} else if err != nil {
		return nil, false, fmt.Errorf("db: session: %w", err)
	}
	if u := SessionUserOf(ctx); u != nil {
		u.read = token
	}
	return d.Data, true, ss.touch(ctx, token, d.SeenAt)
}

// sessionUser is the user of a session's read.
func sessionUser(r dbq.SessionWithAccessRow) dbq.User {
	return dbq.User{ID: r.ID, Handle: r.Handle, DisplayName: r.DisplayName, PasswordHash: r.PasswordHash, Vip: r.Vip,
		Notability: r.Notability, IsPrivate: r.IsPrivate, CreatedAt: r.CreatedAt, FollowsVersion: r.FollowsVersion,
		HomeActivity: r.HomeActivity, NotifyGrouping: r.NotifyGrouping, Bio: r.Bio, Avatar: r.Avatar,
		AvatarLarge: r.AvatarLarge, ExportedAt: r.ExportedAt, DeletedAt: r.DeletedAt}
}

// sessionAccess is what the access rules need of a session's user, from its read.
func sessionAccess(r dbq.SessionWithAccessRow) dbq.ViewerAccess {
	return dbq.ViewerAccess{ViewerID: r.ID, Blocked: r.Blocked, PrivateFeeds: r.PrivateFeeds, Hidden: r.Hidden,
		Muted: r.Muted, MutedCollapse: r.MutedCollapse, Groups: r.Groups, GroupNames: r.GroupNames}
}

// touch records a session's use when the one recorded is older than sessionTouch.
func (ss SessionStore) touch(ctx context.Context, token string, seen time.Time) error {
	if time.Since(seen) < sessionTouch {
		return nil
	}
	if err := ss.s.q.TouchSession(ctx, tokenHash(token)); err != nil {
		return fmt.Errorf("db: session: touch: %w", err)
	}
	return nil
}

// withAccess reads a session that names its user, with the user and their access; and, when
// the request has a viewer state to read ahead and this instance knows whose the token was,
// that viewer's state in the same round trip (kept when the session names that viewer).
func (ss SessionStore) withAccess(ctx context.Context, token string) (r dbq.SessionWithAccessRow, unread int, err error) {
	su := SessionUserOf(ctx)
	guess, known := ss.users.Get(token)
	p := dbq.SessionWithAccessParams{TokenHash: tokenHash(token)}
	kept, gen := ss.s.unread.query(guess, &p)
	defer func() {
		if err == nil {
			unread = ss.s.unread.answer(kept, gen, r)
			ss.s.unread.keepSession(token, gen, r)
		}
	}()
	if su == nil || su.Ahead == nil || !known {
		r, err = ss.s.q.SessionWithAccess(ctx, p)
		return r, 0, err
	}
	ahead, ok := su.Ahead(guess)
	vq := ahead.Viewer
	if !ok || vq.ViewerID != guess {
		r, err = ss.s.q.SessionWithAccess(ctx, p)
		return r, 0, err
	}
	vq.AccessKnown = true // the session's row brings it
	var vr dbq.ViewerStateRow
	steps := []func(*dbq.Queries) error{
		func(q *dbq.Queries) (err error) { r, err = q.SessionWithAccess(ctx, p); return err },
		func(q *dbq.Queries) (err error) { vr, err = q.ViewerState(ctx, viewerParams(vq)); return err }}
	var arrivals *arrivalsRead
	if aq := ahead.Arrived; aq != nil && aq.Viewer.ID == guess {
		if arrivals = ss.s.arrivedRead(ctx, *aq); arrivals.pipelined() {
			steps = append(steps, arrivals.steps()...)
		} else {
			arrivals = nil
		}
	}
	errs := ss.s.pipeline(ctx, steps...)
	if errs[0] != nil {
		return r, 0, errs[0]
	}
	if errs[1] != nil || r.ID != guess {
		return r, 0, nil
	}
	st, err := viewerStateOf(vq, vr)
	if err != nil {
		return r, 0, nil
	}
	st.Access = viewerAccessOf(sessionAccess(r))
	su.ahead = &viewerRead{query: vq, state: st, now: ahead.Now}
	// The arrivals are kept when read whole; the page takes them only if it asks for them.
	if arrivals != nil && arrivals.complete() && arrivals.finish(errs[2:]) == nil {
		su.arrived.Store(&arrivedRead{query: arrivals.q, out: arrivals.out})
	}
	return r, 0, nil
}

// CommitCtx writes a session with the user its data names. A session the request read is
// only updated, never written anew: a request still running when its session was ended
// (every session of a user ends with a new password) must not bring it back.
func (ss SessionStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	var user pgtype.Int8
	if _, values, err := (SessionCodec{}).Decode(b); err == nil {
		if id, ok := values[SessionUserKey].(int64); ok && id > 0 {
			user = pgtype.Int8{Int64: id, Valid: true}
		}
	}
	var agent string
	su := SessionUserOf(ctx)
	if su != nil {
		agent = su.UserAgent
	}
	var err error
	if su != nil && su.read == token {
		// Read at the request's start: if it was ended since, it stays ended.
		err = ss.s.q.UpdateSession(ctx, dbq.UpdateSessionParams{TokenHash: tokenHash(token), Data: b, Expiry: expiry,
			UserID: user, UserAgent: agent})
	} else {
		err = ss.s.q.CommitSession(ctx, dbq.CommitSessionParams{TokenHash: tokenHash(token), Data: b, Expiry: expiry,
			UserID: user, UserAgent: agent})
	}
	if err != nil {
		return fmt.Errorf("db: commit session: %w", err)
	}
	if user.Valid {
		ss.users.Put(token, user.Int64)
	} else {
		ss.users.Delete(token)
	}
	return nil
}

// DeleteCtx removes a session.
func (ss SessionStore) DeleteCtx(ctx context.Context, token string) error {
	ss.users.Delete(token)
	ss.s.unread.dropSession(token)
	if err := ss.s.q.DeleteSession(ctx, tokenHash(token)); err != nil {
		return fmt.Errorf("db: delete session: %w", err)
	}
	return nil
}

func (ss SessionStore) Find(token string) ([]byte, bool, error) {
	return ss.FindCtx(context.Background(), token)
}

func (ss SessionStore) Commit(token string, b []byte, expiry time.Time) error {
	return ss.CommitCtx(context.Background(), token, b, expiry)
}

func (ss SessionStore) Delete(token string) error { return ss.DeleteCtx(context.Background(), token) }
