package db

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tributary/db/internal/dbq"
)

// A streaming read replica takes the feed reads (ranking candidates, the ranking copy, user,
// group and direct pages) while it keeps up; writes, fences, sessions, viewer state, the
// items a page shows (read and checked for access again, always on the primary) and the
// reads of a reader who has just written stay on the primary. It is used only while its
// replay has passed every change of access the site has recorded (the fence, moved by the
// site event path before any instance answers after such a change) and lags by at most
// MaxReplicaLag bytes of WAL; lost or lagging, reads fall back to the primary.
type replica struct {
	pool   *pgxpool.Pool
	q      *dbq.Queries
	usable atomic.Bool
	reads  atomic.Int64 // reads sent to it (tests, metrics)

	mu    sync.Mutex // orders fence moves and the checks' verdicts
	fence uint64     // the replay LSN the replica must have passed
}

// MaxReplicaLag is how far (bytes of WAL) the replica may be behind the primary and still
// take reads.
const MaxReplicaLag = 4 << 20

// UseReplica sends feed reads to the replica behind pool from now on, while it keeps up;
// RunReplicaCheck must run for it to be used at all.
func (s *Store) UseReplica(pool *pgxpool.Pool) {
	s.replica = &replica{pool: pool, q: queries(pool)}
}

// ReplicaReads counts the reads sent to the replica so far.
func (s *Store) ReplicaReads() int64 {
	if s.replica == nil {
		return 0
	}
	return s.replica.reads.Load()
}

// ReplicaUsable reports whether reads go to the replica now.
func (s *Store) ReplicaUsable() bool { return s.replica != nil && s.replica.usable.Load() }

type primaryKey struct{}

// Primary marks a request whose reads must see what it (or its reader, just before) wrote.
func Primary(ctx context.Context) context.Context { return context.WithValue(ctx, primaryKey{}, true) }

// reads is where a feed read of ctx goes: the replica while it is usable, else the primary.
func (s *Store) reads(ctx context.Context) *dbq.Queries {
	r := s.replica
	if r == nil || !r.usable.Load() || ctx.Value(primaryKey{}) != nil {
		return s.q
	}
	r.reads.Add(1)
	return r.q
}

// FenceReplica keeps reads off the replica until its replay has passed lsn (a primary LSN
// read after a change of access committed).
func (s *Store) FenceReplica(lsn uint64) {
	r := s.replica
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fence = max(r.fence, lsn)
	r.usable.Store(false) // until a check that began after this sees the replay past the fence
}

// RunReplicaCheck measures the replica's replay against the primary every interval until
// ctx is done, and so decides whether it takes reads.
func (s *Store) RunReplicaCheck(ctx context.Context, every time.Duration, log *slog.Logger) {
	if s.replica == nil {
		return
	}
	was := false
	for {
		r := s.replica
		r.mu.Lock()
		fence := r.fence
		r.mu.Unlock()
		ok, why := s.checkReplica(ctx, fence)
		r.mu.Lock()
		if r.fence == fence { // else the fence moved during the check: its verdict is stale
			r.usable.Store(ok)
		} else {
			ok = false
		}
		r.mu.Unlock()
		if ok != was && ctx.Err() == nil {
			log.Info("read replica", "usable", ok, "why", why)
			was = ok
		}
		select {
		case <-ctx.Done():
			s.replica.usable.Store(false)
			return
		case <-time.After(every):
		}
	}
}

func (s *Store) checkReplica(ctx context.Context, fence uint64) (bool, string) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	var replay, current string
	if err := s.replica.pool.QueryRow(ctx, "SELECT coalesce(pg_last_wal_replay_lsn()::text, '')").Scan(&replay); err != nil {
		return false, "unreachable: " + err.Error()
	}
	if replay == "" {
		return false, "not a streaming replica"
	}
	if err := s.Pool.QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&current); err != nil {
		return false, "primary unreachable"
	}
	r, err1 := ParseLSN(replay)
	c, err2 := ParseLSN(current)
	switch {
	case err1 != nil || err2 != nil:
		return false, fmt.Sprintf("unreadable positions %q, %q", replay, current)
	case r < fence:
		return false, "behind a change of access"
	case c > r && c-r > MaxReplicaLag:
		return false, fmt.Sprintf("lagging by %d bytes of WAL", c-r)
	}
	return true, "caught up"
}

// ParseLSN reads a PostgreSQL WAL position ("16/B374D848").
func ParseLSN(s string) (uint64, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok {
		return 0, fmt.Errorf("db: bad LSN %q", s)
	}
	h, err := strconv.ParseUint(hi, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("db: bad LSN %q", s)
	}
	l, err := strconv.ParseUint(lo, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("db: bad LSN %q", s)
	}
	return h<<32 | l, nil
}
