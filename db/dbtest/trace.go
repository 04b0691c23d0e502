package dbtest

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tributary/db"
)

// QueryLog records the names (sqlc's "-- name: X") of the queries a pool runs, those sent
// in batches (the queries on their generic plan, db/plans.go, and pipelines) included, and
// which of them went in one round trip.
type QueryLog struct {
	// Unnamed logs the statements sqlc did not write too, by their first word ("BEGIN",
	// "COMMIT", "SELECT").
	Unnamed bool
	mu      sync.Mutex
	names   []string
	trips   [][]string
}

// add logs a query, in its batch's round trip (trip, an index in trips) or in one of its own
// (-1).
func (l *QueryLog) add(sql string, trip int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	name := db.QueryName(sql)
	if name == "" && l.Unnamed {
		name, _, _ = strings.Cut(strings.TrimSpace(sql), " ")
		name = strings.ToUpper(name)
	}
	if name == "" {
		return
	}
	l.names = append(l.names, name)
	if trip < 0 || trip >= len(l.trips) {
		l.trips = append(l.trips, []string{name})
		return
	}
	l.trips[trip] = append(l.trips[trip], name)
}

func (l *QueryLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	l.add(d.SQL, -1)
	return ctx
}

func (l *QueryLog) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

type tripKey struct{}

func (l *QueryLog) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.trips = append(l.trips, nil)
	return context.WithValue(ctx, tripKey{}, len(l.trips)-1)
}

func (l *QueryLog) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	trip, ok := ctx.Value(tripKey{}).(int)
	if !ok {
		trip = -1
	}
	l.add(d.SQL, trip)
}

// TakeTrips returns the named queries run since the last Take or TakeTrips, grouped by round
// trip (a batch's in one).
func (l *QueryLog) TakeTrips() [][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var trips [][]string
	for _, t := range l.trips {
		if len(t) > 0 {
			trips = append(trips, t)
		}
	}
	l.names, l.trips = nil, nil
	return trips
}

func (l *QueryLog) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// Take returns the names logged since the last Take.
func (l *QueryLog) Take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	names := l.names
	l.names, l.trips = nil, nil
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
