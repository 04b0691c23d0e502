package feed_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// queryLog records the names (sqlc's "-- name: X") of the queries a pool runs.
type queryLog struct {
	mu    sync.Mutex
	names []string
}

func (l *queryLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if name := db.QueryName(d.SQL); name != "" {
		l.mu.Lock()
		l.names = append(l.names, name)
		l.mu.Unlock()
	}
	return ctx
}

func (l *queryLog) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// The queries that run on their generic plan go in batches (db/plans.go).
func (l *queryLog) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (l *queryLog) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	if name := db.QueryName(d.SQL); name != "" {
		l.mu.Lock()
		l.names = append(l.names, name)
		l.mu.Unlock()
	}
}

func (l *queryLog) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (l *queryLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	names := l.names
	l.names = nil
	return names
}

// tracedWorld is a world on a fresh database whose queries are named in the log.
func tracedWorld(t *testing.T) (*world, *queryLog) {
	t.Helper()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(dbtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	log := &queryLog{}
	cfg.ConnConfig.Tracer = log
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return &world{t: t, ctx: ctx, store: db.NewStore(pool), now: t0, users: map[string]tributary.User{}}, log
}

// A page reads the fencepost it starts from together with the viewer's state: neither a
// first page nor a next page spends a round trip of its own on it.
func TestPagesReadTheirFencepostWithTheViewerState(t *testing.T) {
	ctx := context.Background()
	w, log := tracedWorld(t)
	w.user("viewer", false, 0)
	w.user("ada", false, 0)
	w.follow("viewer", "ada")
	for i := range 30 {
		w.share("ada", fmt.Sprintf("https://ada.example.com/note-%d", i), time.Duration(i+1)*time.Hour, false)
	}
	w.refresh()
	s := w.service(nil)
	viewer := w.users["viewer"]
	page := func(cursor string) tributary.Timeline {
		t.Helper()
		p, err := s.Timeline(ctx, &viewer, tributary.FeedQuery{Limit: 10, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	check := func(what string, p tributary.Timeline) {
		t.Helper()
		names := log.take()
		if len(p.Items) == 0 {
			t.Fatalf("%s: no items", what)
		}
		if !slices.Contains(names, "ViewerState") || slices.Contains(names, "LatestFencepost") || slices.Contains(names, "GetFencepost") {
			t.Errorf("%s ran %v: want the fencepost read with ViewerState, not on its own", what, names)
		}
	}
	log.take()
	first := page("")
	check("a cold first page", first)
	second := page(first.NextCursor)
	check("a next page", second)
	check("the page after", page(second.NextCursor))
	w.now = w.now.Add(time.Minute)
	w.share("ada", "https://ada.example.com/late", 0, false)
	log.take()
	check("a returning first page", page(""))
}
