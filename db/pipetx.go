package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"tributary/db/internal/dbq"
)

// pipedTx is a transaction whose statements travel together: its BEGIN goes with its first
// statement, and the writes whose answers nothing waits for (held) go with the next
// statement or with its COMMIT. A write whose steps depend on each other's answers costs a
// round trip per dependency, not per statement: a share (insert it; lock its item and read
// the item's posts; write the item's snapshot row) took 8 round trips and takes 3. A held
// write's error is the error of the statement or the commit it went with.
//
// Every statement runs as a prepared statement (batches run in the pool's default mode, which
// caches statements; so the queries are dbq.New(p)'s, never planned's), on its generic plan and
// without JIT compilation (genericSettings, for the whole transaction): it is for the small
// statements of genericPlans. PostgreSQL's own choice (plan_cache_mode auto) kept planning
// a statement for its arguments while that plan's estimate was cheaper, however little: the
// rollup and the access of one share's anchor were planned on every share, 0.4 ms each, to
// run in 0.2-0.3 ms.
type pipedTx struct {
	conn  *pgxpool.Conn
	begun bool     // BEGIN has been sent
	held  []queued // sent before the next statement
	err   error    // a batch failed: the transaction is over, every later statement fails with it
}

type queued struct {
	sql  string
	args []any
}

// inPipedTx runs fn in a pipedTx, committed (with the writes still held) only when fn succeeds.
func (s *Store) inPipedTx(ctx context.Context, fn func(p *pipedTx, q *dbq.Queries) error) error {
	conn, err := s.Pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("db: begin: %w", err)
	}
	// A connection left inside a transaction (a failed commit or rollback) is closed by the
	// pool, not reused.
	defer conn.Release()
	p := &pipedTx{conn: conn}
	if err := fn(p, dbq.New(p)); err != nil {
		p.rollback(ctx)
		return err
	}
	if err := p.commit(ctx); err != nil {
		p.rollback(ctx)
		return fmt.Errorf("db: commit: %w", err)
	}
	return nil
}

// hold queues writes to go with the next statement: q's statements return no error and no
// rows at once (only :exec queries belong there).
func (p *pipedTx) hold() *dbq.Queries { return dbq.New(holder{p}) }

// holdExec queues a write of SQL that sqlc did not write.
func (p *pipedTx) holdExec(sql string, args []any) {
	p.held = append(p.held, queued{sql: sql, args: args})
}

func (p *pipedTx) commit(ctx context.Context) error {
	if !p.begun && len(p.held) == 0 {
		return nil // nothing was read or written
	}
	tag, err := p.Exec(ctx, "COMMIT")
	if err == nil && tag.String() == "ROLLBACK" {
		// A statement failed and fn went on: PostgreSQL answers COMMIT so, without an error.
		err = pgx.ErrTxCommitRollback
	}
	return err
}

// rollback ends a transaction left open, even when ctx is done (rather than have the pool
// close the connection for it).
func (p *pipedTx) rollback(ctx context.Context) {
	if p.conn.Conn().PgConn().TxStatus() != 'I' {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_, _ = p.conn.Exec(ctx, "ROLLBACK")
	}
}

// batch is the transaction's BEGIN (the first time), the held writes, then sql.
func (p *pipedTx) batch(sql string, args []any) *pgx.Batch {
	b := &pgx.Batch{}
	if !p.begun {
		b.Queue("BEGIN")
		b.Queue(genericSettings)
		p.begun = true
	}
	for _, h := range p.held {
		b.Queue(h.sql, h.args...)
	}
	p.held = p.held[:0]
	b.Queue(sql, args...)
	return b
}

func (p *pipedTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	rows, err := p.Query(ctx, sql, args...)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	rows.Close()
	return rows.CommandTag(), rows.Err()
}

// Query sends sql with what goes before it (BEGIN, the held writes).
func (p *pipedTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if p.err != nil {
		return nil, p.err
	}
	b := p.batch(sql, args)
	rows, err := lastRows(p.conn.SendBatch(ctx, b), b.Len())
	p.err = err
	return rows, err
}

func (p *pipedTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	rows, err := p.Query(ctx, sql, args...)
	return genericRow{rows, err}
}

func (p *pipedTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	if !p.begun || len(p.held) > 0 || p.err != nil {
		if _, err := p.Exec(ctx, "SELECT 1"); err != nil {
			return 0, err
		}
	}
	n, err := p.conn.CopyFrom(ctx, table, columns, src)
	p.err = err
	return n, err
}

// holder queues a pipedTx's writes (pipedTx.hold).
type holder struct{ p *pipedTx }

func (h holder) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	h.p.holdExec(sql, args)
	return pgconn.CommandTag{}, nil
}

func (h holder) Query(context.Context, string, ...any) (pgx.Rows, error) {
	return nil, errors.New("db: a held statement has no rows to read")
}

func (h holder) QueryRow(context.Context, string, ...any) pgx.Row {
	return genericRow{err: errors.New("db: a held statement has no row to read")}
}

func (h holder) CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error) {
	return 0, errors.New("db: COPY cannot be held")
}
