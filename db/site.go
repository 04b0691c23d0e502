package db

import (
	"context"
	"crypto/rand"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"tributary/db/internal/dbq"
)

// CursorKey signs and checks cursors. Every instance of a site reads the same keys.
type CursorKey struct {
	ID        int32
	Secret    []byte
	CreatedAt time.Time
}

// CursorKeys returns the site's cursor keys, newest (the one that signs) first, making the
// first one when there is none (several instances starting together make one between them).
func (s *Store) CursorKeys(ctx context.Context) ([]CursorKey, error) {
	rows, err := s.q.CursorKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("db: cursor keys: %w", err)
	}
	if len(rows) == 0 {
		err = s.inTx(ctx, func(q *dbq.Queries) error {
			if err := q.LockCursorKeys(ctx); err != nil {
				return err
			}
			if rows, err = q.CursorKeys(ctx); err != nil || len(rows) > 0 {
				return err
			}
			k, err := q.AddCursorKey(ctx, newSecret())
			rows = append(rows, k)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("db: first cursor key: %w", err)
		}
	}
	keys := make([]CursorKey, len(rows))
	for i, r := range rows {
		keys[i] = CursorKey{ID: r.ID, Secret: r.Secret, CreatedAt: r.CreatedAt}
	}
	return keys, nil
}

// RotateCursorKey makes a new signing key. Keys superseded more than keep ago are dropped:
// a cursor signed with one of those was issued before then.
func (s *Store) RotateCursorKey(ctx context.Context, now time.Time, keep time.Duration) (CursorKey, int64, error) {
	var k dbq.CursorKey
	var dropped int64
	err := s.inTx(ctx, func(q *dbq.Queries) error {
		if err := q.LockCursorKeys(ctx); err != nil {
			return err
		}
		var err error
		if k, err = q.AddCursorKey(ctx, newSecret()); err != nil {
			return err
		}
		dropped, err = q.DropCursorKeysBefore(ctx, now.Add(-keep))
		return err
	})
	if err != nil {
		return CursorKey{}, 0, fmt.Errorf("db: rotate cursor key: %w", err)
	}
	return CursorKey{ID: k.ID, Secret: k.Secret, CreatedAt: k.CreatedAt}, dropped, nil
}

func newSecret() []byte {
	b := make([]byte, 32)
	rand.Read(b)
	return b
}

// SiteChange is one recorded change: the table and the subjects (empty: possibly all); for
// changes of posts and their talk, the posts' items too (Anchors, empty when IDs is); for a
// change of who may read what between users (follows, bans, readers of private feeds, group
// members), the users whose reading it concerns (Readers; nil: anyone's).
type SiteChange struct {
	ID      int64
	XID     int64
	Kind    string
	IDs     []int64
	Anchors []int64
	Readers []int64
}

// Live reports whether the change is one that open pages hear of (new posts, the talk of
// posts, a fetched link card, a session ended) and no replica needs to: it changes neither
// who may read what nor anything but the cards' talk and link cards that instances keep
// (feed/cards.go, feed/linkcards.go), and sessions are read from the primary.
func (c SiteChange) Live() bool {
	return c.Kind == "new_posts" || c.Kind == "talk" || c.Kind == "cards" || c.Kind == "sessions"
}

// SiteLog reads the change log on one connection (the site listener's own, so that a
// listener that cannot reach the database cannot claim to be up to date either).
type SiteLog struct{ q *dbq.Queries }

// NewSiteLog reads the change log through conn (a *pgx.Conn, a pool or a transaction).
func NewSiteLog(conn dbq.DBTX) SiteLog { return SiteLog{q: dbq.New(conn)} }

// PrepareListener sets up a connection of its own for a SiteLog read after every wake-up:
// its statements run on their generic plans, planned once. PostgreSQL's own choice planned
// SiteChangesFrom on every read (0.12 ms to run it in 0.03), as a plan made for a known
// transaction id is estimated cheaper than one for any. No JIT compilation either, as
// genericSettings says.
func PrepareListener(ctx context.Context, conn *pgx.Conn) error {
	_, err := conn.Exec(ctx, "SET plan_cache_mode = force_generic_plan; SET jit = off")
	return err
}

// Since returns the changes of transactions from fromXID on and the oldest transaction still
// running: changes older than it are all visible now, so the next read may start there.
func (l SiteLog) Since(ctx context.Context, fromXID int64) ([]SiteChange, int64, error) {
	xmin, err := l.q.SiteXmin(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("db: site xmin: %w", err)
	}
	if fromXID == 0 {
		return nil, xmin, nil
	}
	rows, err := l.q.SiteChangesFrom(ctx, dbq.SiteChangesFromParams{FromXid: fromXID, ToXid: math.MaxInt64})
	if err != nil {
		return nil, 0, fmt.Errorf("db: site changes: %w", err)
	}
	out := make([]SiteChange, len(rows))
	for i, r := range rows {
		out[i] = SiteChange{ID: r.ID, XID: r.Xid, Kind: r.Kind, IDs: r.Ids, Anchors: r.Anchors, Readers: r.Readers}
	}
	return out, xmin, nil
}

// LSN is the primary's WAL position now.
func (l SiteLog) LSN(ctx context.Context) (uint64, error) {
	s, err := l.q.SiteLSN(ctx)
	if err != nil {
		return 0, fmt.Errorf("db: site lsn: %w", err)
	}
	return ParseLSN(s)
}

// WakeToken is the newest wake-up token handed out.
func (l SiteLog) WakeToken(ctx context.Context) (int64, error) { return l.q.WakeToken(ctx) }

// Seen records that instance id is alive and has caught up after wake-up acked.
func (l SiteLog) Seen(ctx context.Context, id [16]byte, acked int64) error {
	return l.q.SiteInstanceSeen(ctx, dbq.SiteInstanceSeenParams{ID: pgtype.UUID{Bytes: id, Valid: true}, Acked: acked})
}

// Gone removes instance id (a clean stop: writers stop waiting for it at once).
func (l SiteLog) Gone(ctx context.Context, id [16]byte) error {
	return l.q.SiteInstanceGone(ctx, pgtype.UUID{Bytes: id, Valid: true})
}

// Wake wakes every instance's listener (a NOTIFY in a transaction of its own, never in a
// write's) and returns the token that instances acknowledge once they have caught up.
func (s *Store) Wake(ctx context.Context) (int64, error) {
	r, err := s.q.WakeSite(ctx)
	if err != nil {
		return 0, fmt.Errorf("db: wake: %w", err)
	}
	return r.Token, nil
}

// Lagging counts the instances heard of within alive that have not caught up after wake-up
// token.
func (s *Store) Lagging(ctx context.Context, token int64, alive time.Duration) (int64, error) {
	return s.q.SiteLagging(ctx, dbq.SiteLaggingParams{Token: token, AliveSecs: alive.Seconds()})
}

// PruneSite forgets changes and instances older than before.
func (s *Store) PruneSite(ctx context.Context, before time.Time) (int64, error) {
	n, err := s.q.PruneSite(ctx, before)
	if err != nil {
		return 0, fmt.Errorf("db: prune site log: %w", err)
	}
	return n, nil
}
