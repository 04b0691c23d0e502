package db_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// A directs page reads the posts of its reader's directs feeds, not every post tested against
// them: with one direct among many public posts, the plan (run, EXPLAIN ANALYZE) returns no
// more rows of posts than the direct's. Testing every post was seconds for every reader.
func TestDirectsPageReadsOnlyTheDirects(t *testing.T) {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(dbtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	calls := &queryCapture{name: "ChronoArrivals"}
	cfg.ConnConfig.Tracer = calls
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	store := db.NewStore(pool)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	ada, err := store.CreateUser(ctx, db.NewUser{Handle: "ada", DisplayName: "Ada", CreatedAt: now.Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	vera, err := store.CreateUser(ctx, db.NewUser{Handle: "vera", DisplayName: "Vera", CreatedAt: now.Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Follow(ctx, vera.ID, ada.ID); err != nil {
		t.Fatal(err)
	}
	share := func(i int, d db.Destination) {
		t.Helper()
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: ada.ID, URL: fmt.Sprintf("https://example.com/%d", i),
			CreatedAt: now.Add(-time.Duration(i) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.Share(ctx, p, d); err != nil {
			t.Fatal(err)
		}
	}
	const public = 300
	for i := range public {
		share(i+2, db.Destination{OwnFeed: true})
	}
	share(1, db.Destination{DirectTo: []int64{vera.ID}})
	if _, err := pool.Exec(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}

	access, err := store.ViewerAccess(ctx, vera.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.ChronoArrived(ctx, db.ChronoQuery{Directs: true, Viewer: access, To: now, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("vera's directs: %d posts, want her one direct", len(got))
	}
	sql, args := calls.last(t)
	if n := explain(t, pool, sql, args).rowsOf("posts"); n > 2 { // the direct, in the page's two reads of its scope
		t.Errorf("the directs page read %.0f rows of posts (of %d) for one direct, want at most 2", n, public+1)
	}

	// An author's page reads the author's posts by their index, not every post by time
	// (its scope's arguments folded into the plan: 148 ms at 20,000 posts when they were not).
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: vera.ID, URL: "https://example.com/vera", CreatedAt: now.Add(-time.Minute)})
	if err == nil {
		_, err = store.Share(ctx, p, db.Destination{OwnFeed: true})
	}
	if err != nil {
		t.Fatal(err)
	}
	if got, err := store.ChronoArrived(ctx, db.ChronoQuery{Author: vera.ID, Viewer: access, To: now, Limit: 20}); err != nil || len(got) != 1 {
		t.Fatalf("vera's page: %d posts, %v; want her one post", len(got), err)
	}
	sql, args = calls.last(t)
	if n := explain(t, pool, sql, args).scannedOf("posts"); n > 4 {
		t.Errorf("vera's page scanned %.0f rows of posts (of %d) for her one post, want at most 4", n, public+2)
	}
}

// explain runs a captured query under EXPLAIN (ANALYZE) on the plan the store runs it on:
// the generic one when the query is one of those (db.ForcesGeneric).
func explain(t *testing.T, pool *pgxpool.Pool, sql string, args []any) planNode {
	t.Helper()
	var plan string
	err := pgx.BeginFunc(t.Context(), pool, func(tx pgx.Tx) error {
		if db.ForcesGeneric(db.QueryName(sql)) {
			if _, err := tx.Exec(t.Context(), "SET LOCAL plan_cache_mode = force_generic_plan"); err != nil {
				return err
			}
		}
		return tx.QueryRow(t.Context(), "EXPLAIN (ANALYZE, FORMAT JSON) "+sql, args...).Scan(&plan)
	})
	if err != nil {
		t.Fatal(err)
	}
	return planOf(t, plan)
}

// planOf reads the root of EXPLAIN's JSON.
func planOf(t *testing.T, plan string) planNode {
	t.Helper()
	var root []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(plan), &root); err != nil || len(root) == 0 {
		t.Fatalf("EXPLAIN's JSON: %v (%.100s)", err, plan)
	}
	return root[0].Plan
}

// planNode is a node of EXPLAIN (ANALYZE, FORMAT JSON).
type planNode struct {
	Relation string     `json:"Relation Name"`
	Rows     float64    `json:"Actual Rows"`
	Removed  float64    `json:"Rows Removed by Filter"`
	Loops    float64    `json:"Actual Loops"`
	Plans    []planNode `json:"Plans"`
}

// rowsOf sums the rows the plan's scans of a table returned, over all their loops.
func (n planNode) rowsOf(table string) float64 {
	var sum float64
	if n.Relation == table {
		sum = n.Rows * n.Loops
	}
	for _, c := range n.Plans {
		sum += c.rowsOf(table)
	}
	return sum
}

// scannedOf sums the rows the plan's scans of a table read, kept or filtered out.
func (n planNode) scannedOf(table string) float64 {
	var sum float64
	if n.Relation == table {
		sum = (n.Rows + n.Removed) * n.Loops
	}
	for _, c := range n.Plans {
		sum += c.scannedOf(table)
	}
	return sum
}

// queryCapture keeps the text and arguments of the last run of one query (sqlc's name).
type queryCapture struct {
	name string
	mu   sync.Mutex
	sql  string
	args []any
}

func (c *queryCapture) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.keep(d.SQL, d.Args)
	return ctx
}

func (c *queryCapture) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// The queries that run on their generic plan go in a batch (db.ForcesGeneric).
func (c *queryCapture) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (c *queryCapture) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	c.keep(d.SQL, d.Args)
}

func (c *queryCapture) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (c *queryCapture) keep(sql string, args []any) {
	if db.QueryName(sql) != c.name {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sql, c.args = sql, nil
	for _, a := range args {
		if _, mode := a.(pgx.QueryExecMode); !mode {
			c.args = append(c.args, a)
		}
	}
}

func (c *queryCapture) last(t *testing.T) (string, []any) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sql == "" {
		t.Fatalf("%s did not run", c.name)
	}
	return c.sql, c.args
}
