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
	var plan string
	if err := pool.QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) "+sql, args...).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	var root []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(plan), &root); err != nil {
		t.Fatal(err)
	}
	if n := root[0].Plan.rowsOf("posts"); n > 2 { // the direct, in the page's two reads of its scope
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
	if err := pool.QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) "+sql, args...).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(plan), &root); err != nil {
		t.Fatal(err)
	}
	if n := root[0].Plan.scannedOf("posts"); n > 4 {
		t.Errorf("vera's page scanned %.0f rows of posts (of %d) for her one post, want at most 4", n, public+2)
	}
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
	if db.QueryName(d.SQL) != c.name {
		return ctx
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sql, c.args = d.SQL, nil
	for _, a := range d.Args {
		if _, mode := a.(pgx.QueryExecMode); !mode {
			c.args = append(c.args, a)
		}
	}
	return ctx
}

func (c *queryCapture) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *queryCapture) last(t *testing.T) (string, []any) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sql == "" {
		t.Fatalf("%s did not run", c.name)
	}
	return c.sql, c.args
}
