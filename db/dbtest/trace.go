package dbtest

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tributary/db"
)

// QueryLog records the names (sqlc's "-- name: X") of the queries a pool runs, those sent
// in batches (the queries on their generic plan, db/plans.go) included.
type QueryLog struct {
	mu    sync.Mutex
	names []string
}

func (l *QueryLog) add(sql string) {
	if name := db.QueryName(sql); name != "" {
		l.mu.Lock()
		l.names = append(l.names, name)
		l.mu.Unlock()
	}
}

func (l *QueryLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	l.add(d.SQL)
	return ctx
}

func (l *QueryLog) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (l *QueryLog) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (l *QueryLog) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	l.add(d.SQL)
}

func (l *QueryLog) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// Take returns the names logged since the last Take.
func (l *QueryLog) Take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	names := l.names
	l.names = nil
	return names
}

// TracedStore returns a Store on a fresh, migrated database whose queries are named in the
// log.
func TracedStore(t testing.TB) (*db.Store, *QueryLog) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	log := &QueryLog{}
	cfg.ConnConfig.Tracer = log
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return db.NewStore(pool), log
}
