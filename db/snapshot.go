package db

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"tributary"
	"tributary/db/internal/dbq"
)

// SnapshotWindow is how far back the snapshot covers anchors.
const SnapshotWindow = 180 * 24 * time.Hour

// snapshotLockKey guards the refresh so that one of many instances runs it.
const snapshotLockKey = 0x7472_6962 // "trib"

// RefreshResult reports one snapshot refresh.
type RefreshResult struct {
	Rows     int
	Duration time.Duration
	Skipped  bool // another instance holds the refresh lock
	// Redone is how many items an incremental refresh redid (Full: none, all were).
	Full   bool
	Redone int
}

// String says what the refresh did, for logs.
func (r RefreshResult) String() string {
	switch {
	case r.Skipped:
		return "skipped: another instance holds the lock"
	case r.Full:
		return fmt.Sprintf("rebuilt in full: %d rows in %s", r.Rows, r.Duration.Round(time.Millisecond))
	}
	return fmt.Sprintf("%d items redone in %s (%d rows)", r.Redone, r.Duration.Round(time.Millisecond), r.Rows)
}

// RebuildEvery is how old the last full rebuild may be before Refresh makes another (the
// incremental refreshes in between leave the rows out of score order, and rows of items
// whose facts changed in a way no write redoes would keep them).
const RebuildEvery = 24 * time.Hour

// Refresh brings the snapshot up to now, incrementally (RefreshSince the last refresh)
// when a full rebuild with the same weights was made less than RebuildEvery ago and the
// snapshot is not from the future, by a full rebuild (RefreshSnapshot) otherwise, or when
// one was cut short (a killed process): that completes it.
func (s *Store) Refresh(ctx context.Context, now time.Time) (RefreshResult, error) {
	b, err := s.q.SnapshotBuild(ctx)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && (b.RebuiltAt == nil || b.Weights != s.weightsKey() ||
		now.Sub(*b.RebuiltAt) >= RebuildEvery || now.Before(b.RefreshedAt) || b.Interrupted) {
		return s.RefreshSnapshot(ctx, now)
	}
	if err != nil {
		return RefreshResult{}, fmt.Errorf("db: refresh: snapshot state: %w", err)
	}
	return s.RefreshSince(ctx, b.RefreshedAt, now)
}

// refreshLock takes the refresh lock on a session connection of its own, held until
// unlock: only one instance refreshes at a time. A nil conn and no error: another instance
// holds it.
func (s *Store) refreshLock(ctx context.Context) (conn *pgxpool.Conn, unlock func(), err error) {
	if conn, err = s.Session.Acquire(ctx); err != nil {
		return nil, nil, fmt.Errorf("db: refresh: %w", err)
	}
	var locked bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", snapshotLockKey).Scan(&locked); err != nil || !locked {
		conn.Release()
		if err != nil {
			return nil, nil, fmt.Errorf("db: refresh lock: %w", err)
		}
		return nil, nil, nil
	}
	return conn, func() {
		conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", snapshotLockKey)
		conn.Release()
	}, nil
}

// AwaitRefresh returns once no instance is refreshing the snapshot (a refresh asked for then
// is not skipped for one that began before the caller's writes), waiting on the refresh
// lock itself.
func (s *Store) AwaitRefresh(ctx context.Context) error {
	conn, err := s.Session.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("db: await refresh: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1), pg_advisory_unlock($1)", snapshotLockKey); err != nil {
		return fmt.Errorf("db: await refresh: %w", err)
	}
	return nil
}

// weightsKey names the score weights a full rebuild used.
func (s *Store) weightsKey() string { return fmt.Sprintf("%+v", s.Weights) }

// RefreshSince redoes the rows that may have changed between since and now without a write
// redoing them (writes redo their items' rows at once: RefreshAnchors): those whose recency
// bucket turned or that left the window, and those of users whose VIP flag or notability
// changed. Its cost grows with the time since, not with the window. Readers go on reading
// throughout: the items are redone a chunk at a time, each in a short transaction.
func (s *Store) RefreshSince(ctx context.Context, since, now time.Time) (RefreshResult, error) {
	start := time.Now()
	conn, unlock, err := s.refreshLock(ctx)
	if conn == nil {
		return RefreshResult{Skipped: err == nil}, err
	}
	defer unlock()

	b, err := s.q.SnapshotBuild(ctx)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) { // none: every change kept is read
		return RefreshResult{}, fmt.Errorf("db: refresh: snapshot state: %w", err)
	}
	begun, err := s.q.RefreshStart(ctx)
	if err != nil {
		return RefreshResult{}, fmt.Errorf("db: refresh: clock: %w", err)
	}

	// An item's row holds the recency bucket of its newest share, which turned (or left the
	// window) when that share's age passed a week, two... or the window between since and now.
	ages := []time.Duration{SnapshotWindow}
	for k := 1; k <= s.Weights.RecencyWeeks; k++ {
		ages = append(ages, time.Duration(k)*7*24*time.Hour)
	}
	var anchors []int64
	for _, age := range ages {
		turned, err := s.q.AnchorsPostedBetween(ctx, dbq.AnchorsPostedBetweenParams{After: since.Add(-age), Until: now.Add(-age)})
		if err != nil {
			return RefreshResult{}, fmt.Errorf("db: refresh: items that turned: %w", err)
		}
		anchors = append(anchors, turned...)
	}
	// Users' changes are read from where the last refresh began: a change committed after its
	// read, in a transaction begun before it, is read now.
	changed, err := s.q.AnchorsOfChangedUsers(ctx, b.ChangesXid)
	if err != nil {
		return RefreshResult{}, fmt.Errorf("db: refresh: items of changed users: %w", err)
	}
	anchors = append(anchors, changed...)
	slices.Sort(anchors)
	anchors = slices.Compact(anchors)
	for chunk := range slices.Chunk(anchors, refreshChunk) {
		if err := s.RefreshAnchors(ctx, chunk, now); err != nil {
			return RefreshResult{}, err
		}
	}
	if err := s.chooseBestOf(ctx, now); err != nil {
		return RefreshResult{}, err
	}
	dur := time.Since(start)
	rows, err := s.q.SetSnapshotRefreshed(ctx, dbq.SetSnapshotRefreshedParams{RefreshedAt: now,
		DurationMs: int32(dur.Milliseconds()), ChangesXid: begun.Xmin})
	if err != nil {
		return RefreshResult{}, fmt.Errorf("db: refresh: meta: %w", err)
	}
	return RefreshResult{Rows: int(rows), Duration: dur, Redone: len(anchors)}, nil
}

// refreshChunk is how many anchors a refresh rolls up per query.
const refreshChunk = 2000

// RefreshSnapshot rebuilds feed_snapshot off to the side and swaps it in in one
// transaction, so readers see the old or the new snapshot, never a partial one. Only one
// instance refreshes at a time (pg_try_advisory_lock); the others skip.
func (s *Store) RefreshSnapshot(ctx context.Context, now time.Time) (RefreshResult, error) {
	start := time.Now()
	conn, unlock, err := s.refreshLock(ctx)
	if conn == nil {
		return RefreshResult{Skipped: err == nil}, err
	}
	defer unlock()

	buildStart, err := s.q.RefreshStart(ctx)
	if err != nil {
		return RefreshResult{}, fmt.Errorf("db: refresh: clock: %w", err)
	}
	if _, err := conn.Exec(ctx, `DROP TABLE IF EXISTS feed_snapshot_next;
		CREATE TABLE feed_snapshot_next (LIKE feed_snapshot INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`); err != nil {
		return RefreshResult{}, fmt.Errorf("db: refresh: create next: %w", err)
	}
	// The posts are read in one pass on a connection of their own and rolled up item by item
	// while COPY streams the rows out on this one: memory stays bounded.
	n, err := s.copyRollups(ctx, conn, now)
	if err != nil {
		return RefreshResult{}, err
	}
	// Indexes are built after the load (faster than maintaining them row by row). The rows
	// are then laid out in score order (CLUSTER): the logged-in path reads them in that order,
	// a few thousand at a time, and so touches a page per ~10 rows instead of one per row
	// (measured 4.3 -> 0.95 ms per 1,000 rows). The GIN index takes each change at once
	// (fastupdate off) rather than in a pending list that every search then reads through, and
	// the table is vacuumed early: each share rewrites its row. Migration 00003 does the same
	// for a snapshot made before.
	if _, err := conn.Exec(ctx, `ALTER TABLE feed_snapshot_next ADD CONSTRAINT feed_snapshot_next_pkey PRIMARY KEY (anchor_id);
		CREATE INDEX feed_snapshot_next_score_idx ON feed_snapshot_next (score DESC, date DESC, anchor_id);
		CLUSTER feed_snapshot_next USING feed_snapshot_next_score_idx;
		CREATE INDEX feed_snapshot_next_sharers_idx ON feed_snapshot_next USING gin (sharer_user_ids) WITH (fastupdate = off);
		CREATE INDEX feed_snapshot_next_groups_idx ON feed_snapshot_next USING gin (group_ids);
		CREATE INDEX feed_snapshot_next_vip_score_idx ON feed_snapshot_next (score DESC) WHERE any_vip_sharer;
		CREATE INDEX feed_snapshot_next_public_date_idx ON feed_snapshot_next (public_date) WHERE any_public;
		ALTER TABLE feed_snapshot_next SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.05);
		ANALYZE feed_snapshot_next`); err != nil {
		return RefreshResult{}, fmt.Errorf("db: refresh: index: %w", err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return RefreshResult{}, fmt.Errorf("db: refresh: begin swap: %w", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `LOCK TABLE feed_snapshot IN ACCESS EXCLUSIVE MODE;
		ALTER TABLE feed_snapshot RENAME TO feed_snapshot_old;
		ALTER TABLE feed_snapshot_next RENAME TO feed_snapshot;
		DROP TABLE feed_snapshot_old;
		ALTER INDEX feed_snapshot_next_pkey RENAME TO feed_snapshot_pkey;
		ALTER INDEX feed_snapshot_next_sharers_idx RENAME TO feed_snapshot_sharers_idx;
		ALTER INDEX feed_snapshot_next_groups_idx RENAME TO feed_snapshot_groups_idx;
		ALTER INDEX feed_snapshot_next_vip_score_idx RENAME TO feed_snapshot_vip_score_idx;
		ALTER INDEX feed_snapshot_next_public_date_idx RENAME TO feed_snapshot_public_date_idx;
		ALTER INDEX feed_snapshot_next_score_idx RENAME TO feed_snapshot_score_idx`); err != nil {
		return RefreshResult{}, fmt.Errorf("db: refresh: swap: %w", err)
	}
	dur := time.Since(start)
	if err := queries(tx).SetSnapshotMeta(ctx, dbq.SetSnapshotMetaParams{RefreshedAt: now, Rows: int32(n),
		DurationMs: int32(dur.Milliseconds()), Weights: s.weightsKey(), ChangesXid: buildStart.Xmin}); err != nil {
		return RefreshResult{}, fmt.Errorf("db: refresh: meta: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return RefreshResult{}, fmt.Errorf("db: refresh: commit swap: %w", err)
	}
	// Rows redone while the new snapshot was built went into the old one: redo them. They are
	// those of transactions the build's read may not have seen, not those marked since it
	// began: a share that marked its row a moment before and committed after the read began
	// is one of them.
	dirty, err := s.q.DirtySince(ctx, buildStart.Xmin)
	if err != nil {
		return RefreshResult{}, fmt.Errorf("db: refresh: catch up: %w", err)
	}
	if err := s.RefreshAnchors(ctx, dirty, now); err != nil {
		return RefreshResult{}, err
	}
	if err := s.q.ForgetDirty(ctx, buildStart.At); err != nil {
		return RefreshResult{}, fmt.Errorf("db: refresh: forget dirty: %w", err)
	}
	if err := s.chooseBestOf(ctx, now); err != nil {
		return RefreshResult{}, err
	}
	return RefreshResult{Rows: int(n), Duration: time.Since(start), Full: true}, nil
}

// bestOfTx is ChooseBestOf's transaction: room to hash the last week's items (80,000 at
// 4M posts) with their talk in memory, and no JIT compilation, which took longer than the
// query saved (70-100 ms).
var bestOfTx = pgx.TxOptions{BeginQuery: "BEGIN; SET LOCAL work_mem = '64MB'; SET LOCAL jit = off"}

// chooseBestOf chooses best of as of now, from the snapshot.
func (s *Store) chooseBestOf(ctx context.Context, now time.Time) error {
	return s.runTx(ctx, bestOfTx, func(_ pgx.Tx, q *dbq.Queries) error {
		if err := q.ChooseBestOf(ctx, dbq.ChooseBestOfParams{Since: now.Add(-BestOfSpan), Lim: BestOfSize}); err != nil {
			return fmt.Errorf("db: refresh: best of: %w", err)
		}
		return nil
	})
}

// copyRollups rolls up every item in the window as of now into feed_snapshot_next on conn,
// and returns how many rows it wrote.
func (s *Store) copyRollups(ctx context.Context, conn *pgxpool.Conn, now time.Time) (int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make(chan []any, 256)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(out)
		return s.rollUpWindow(gctx, now, out)
	})
	src := &chanRows{ctx: gctx, rows: out}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"feed_snapshot_next"}, snapshotColumns, src)
	if err != nil {
		cancel() // the reading stops
	}
	if gerr := g.Wait(); gerr != nil {
		return 0, gerr
	}
	if err != nil {
		return 0, fmt.Errorf("db: refresh: copy: %w", err)
	}
	return n, nil
}

// rollUpWindow reads every live post of the items in the window, by item, in one query (in
// a read-only transaction of its own, with room to sort the posts in memory) and sends each
// item's snapshot row to out.
func (s *Store) rollUpWindow(ctx context.Context, now time.Time, out chan<- []any) error {
	return pgx.BeginTxFunc(ctx, s.Pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL work_mem = '64MB'"); err != nil {
			return fmt.Errorf("db: refresh: %w", err)
		}
		g := rollupGroups{emit: func(r tributary.Rollup) error {
			if !r.Date.After(now.Add(-SnapshotWindow)) { // its newest live share left the window
				return nil
			}
			row, err := snapshotRow(r, s.Weights, now)
			if err != nil {
				return fmt.Errorf("db: refresh: %w", err)
			}
			select {
			case out <- row:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}}
		if err := dbq.New(tx).EachPostFactsInWindow(ctx, now.Add(-SnapshotWindow),
			func(r dbq.PostFact) error { return g.add(r, nil) }); err != nil { // snapshot rows keep no audience
			return fmt.Errorf("db: refresh: roll up: %w", err)
		}
		return g.end()
	})
}

// chanRows feeds COPY from a channel; a closed channel ends it.
type chanRows struct {
	ctx  context.Context
	rows <-chan []any
	cur  []any
}

func (r *chanRows) Next() bool {
	select {
	case row, ok := <-r.rows:
		r.cur = row
		return ok
	case <-r.ctx.Done():
		return false
	}
}

func (r *chanRows) Values() ([]any, error) { return r.cur, nil }
func (r *chanRows) Err() error             { return r.ctx.Err() }

// SnapshotState says when the snapshot was last rebuilt and how many rows it had.
type SnapshotState struct {
	RefreshedAt time.Time
	Rows        int
}

// Snapshot returns the snapshot's state; ok is false before the first refresh.
func (s *Store) Snapshot(ctx context.Context) (st SnapshotState, ok bool, err error) {
	m, err := s.q.SnapshotMeta(ctx)
	if errors.Is(err, pgx.ErrNoRows) {
		return SnapshotState{}, false, nil
	}
	if err != nil {
		return SnapshotState{}, false, fmt.Errorf("db: snapshot meta: %w", err)
	}
	return SnapshotState{RefreshedAt: m.RefreshedAt, Rows: int(m.Rows)}, true, nil
}
