package db

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"tributary"
	"tributary/db/internal/dbq"
	"tributary/internal/lru"
)

// Sessions (scs) live in PostgreSQL, so that any instance serves any request. A session's
// row names its user beside its data: a signed-in request's first round trip reads the
// session, its user and what the access rules need of them together (SessionWithAccess)
// and leaves the user in the request's SessionUser.

// SessionUserKey is the name of the session value holding the signed-in user's id.
const SessionUserKey = "user_id"

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
	Ahead   func(viewerID int64) (Ahead, bool)
	ahead   *viewerRead
	arrived atomic.Pointer[arrivedRead]
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
		a.PosID == b.PosID && a.Limit == b.Limit && a.Activity == b.Activity && a.SetOnly == b.SetOnly
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
	r, err := ss.withAccess(ctx, token)
	if err == nil {
		ss.users.Put(token, r.User.ID)
		if u := SessionUserOf(ctx); u != nil {
			u.User, u.Access, u.Unread = userOf(r.User), viewerAccessOf(r.ViewerAccess), int(r.Unread)
		}
		return r.Data, true, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return nil, false, fmt.Errorf("db: session: %w", err)
	}
	data, err := ss.s.q.SessionData(ctx, token)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	} else if err != nil {
		return nil, false, fmt.Errorf("db: session: %w", err)
	}
	return data, true, nil
}

// withAccess reads a session that names its user, with the user and their access; and, when
// the request has a viewer state to read ahead and this instance knows whose the token was,
// that viewer's state in the same round trip (kept when the session names that viewer).
func (ss SessionStore) withAccess(ctx context.Context, token string) (dbq.SessionWithAccessRow, error) {
	su := SessionUserOf(ctx)
	guess, ok := ss.users.Get(token)
	if su == nil || su.Ahead == nil || !ok {
		return ss.s.q.SessionWithAccess(ctx, token)
	}
	ahead, ok := su.Ahead(guess)
	vq := ahead.Viewer
	if !ok || vq.ViewerID != guess {
		return ss.s.q.SessionWithAccess(ctx, token)
	}
	vq.AccessKnown = true // the session's row brings it
	var r dbq.SessionWithAccessRow
	var vr dbq.ViewerStateRow
	steps := []func(*dbq.Queries) error{
		func(q *dbq.Queries) (err error) { r, err = q.SessionWithAccess(ctx, token); return err },
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
		return r, errs[0]
	}
	if errs[1] != nil || r.User.ID != guess {
		return r, nil
	}
	st, err := viewerStateOf(vq, vr)
	if err != nil {
		return r, nil
	}
	st.Access = viewerAccessOf(r.ViewerAccess)
	su.ahead = &viewerRead{query: vq, state: st, now: ahead.Now}
	// The arrivals are kept when read whole; the page takes them only if it asks for them.
	if arrivals != nil && arrivals.complete() && arrivals.finish(errs[2:]) == nil {
		su.arrived.Store(&arrivedRead{query: arrivals.q, out: arrivals.out})
	}
	return r, nil
}

// CommitCtx writes a session with the user its data names.
func (ss SessionStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	var user pgtype.Int8
	if _, values, err := (SessionCodec{}).Decode(b); err == nil {
		if id, ok := values[SessionUserKey].(int64); ok && id > 0 {
			user = pgtype.Int8{Int64: id, Valid: true}
		}
	}
	if err := ss.s.q.CommitSession(ctx, dbq.CommitSessionParams{Token: token, Data: b, Expiry: expiry, UserID: user}); err != nil {
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
	if err := ss.s.q.DeleteSession(ctx, token); err != nil {
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

// SessionData is the data of a new session of a user, as the app writes it (the bench mints
// its viewers' sessions with it).
func SessionData(userID int64, deadline time.Time) ([]byte, error) {
	return SessionCodec{}.Encode(deadline, map[string]any{SessionUserKey: userID})
}

// SessionCodec stores a session's values in a few bytes: what Tributary keeps there is an
// id, a time and a flash message. scs's gob codec compiled a decoder for every request's
// session (5 % of a next page's CPU); this one reads the bytes in place. Sessions written by
// the gob codec (before this one, or holding a value of another type) are still read.
//
// The encoding: a zero byte (no gob stream starts with one: it begins with its message's
// length), the version, the deadline in Unix nanoseconds (varint), then per value its key
// (length-prefixed), a type byte and the value: 'i' an int64 (varint), 's' a string
// (length-prefixed), 'b' a bool (one byte).
type SessionCodec struct{}

const sessionCodecVersion = 1

var errSessionBytes = errors.New("db: session: malformed")

func (SessionCodec) Encode(deadline time.Time, values map[string]any) ([]byte, error) {
	b := make([]byte, 0, 32+16*len(values))
	b = append(b, 0, sessionCodecVersion)
	b = binary.AppendVarint(b, deadline.UnixNano())
	b = binary.AppendUvarint(b, uint64(len(values)))
	for k, v := range values {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
		switch v := v.(type) {
		case int64:
			b = binary.AppendVarint(append(b, 'i'), v)
		case string:
			b = binary.AppendUvarint(append(b, 's'), uint64(len(v)))
			b = append(b, v...)
		case bool:
			c := byte(0)
			if v {
				c = 1
			}
			b = append(b, 'b', c)
		default: // a type only gob knows
			return scs.GobCodec{}.Encode(deadline, values)
		}
	}
	return b, nil
}

func (SessionCodec) Decode(b []byte) (time.Time, map[string]any, error) {
	if len(b) < 2 || b[0] != 0 {
		return scs.GobCodec{}.Decode(b)
	}
	if b[1] != sessionCodecVersion {
		return time.Time{}, nil, errSessionBytes
	}
	r := sessionReader{b: b[2:]}
	deadline := time.Unix(0, r.varint()).UTC()
	n := r.uvarint()
	if n > uint64(len(r.b)) { // each value takes at least two bytes
		r.err = errSessionBytes
	}
	values := make(map[string]any, min(n, 8))
	for ; r.err == nil && n > 0; n-- {
		k := string(r.bytes())
		switch r.byte() {
		case 'i':
			values[k] = r.varint()
		case 's':
			values[k] = string(r.bytes())
		case 'b':
			values[k] = r.byte() == 1
		default:
			r.err = errSessionBytes
		}
	}
	if r.err == nil && len(r.b) > 0 {
		r.err = errSessionBytes
	}
	if r.err != nil {
		return time.Time{}, nil, r.err
	}
	return deadline, values, nil
}

// sessionReader reads a session's bytes; the first short read sets err (and reads zeros).
type sessionReader struct {
	b   []byte
	err error
}

func (r *sessionReader) next(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = errSessionBytes
		return make([]byte, max(n, 0))
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *sessionReader) byte() byte { return r.next(1)[0] }

func (r *sessionReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 || r.err != nil {
		r.err = errSessionBytes
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *sessionReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errSessionBytes
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *sessionReader) bytes() []byte {
	n, k := binary.Uvarint(r.b)
	if k <= 0 || n > uint64(len(r.b)-k) {
		r.err = errSessionBytes
		return nil
	}
	r.b = r.b[k:]
	return r.next(int(n))
}
