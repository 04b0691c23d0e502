package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// RecentArrivals runs on its generic plan, planned once per connection rather than on every
// call, and the plan mode it sets for itself does not outlive it.
func TestRecentArrivalsKeepOnePlan(t *testing.T) {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(dbtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1 // every call on the one connection whose prepared statements are read below
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	store := db.NewStore(pool)
	store.Rivers.Off = true // the posts are read here; RiverArrivals has tests of its own
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	u, err := store.CreateUser(ctx, db.NewUser{Handle: "ada", DisplayName: "Ada", CreatedAt: now.Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: u.ID, URL: "https://example.com/a", CreatedAt: now.Add(-time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreatePost(ctx, p); err != nil {
		t.Fatal(err)
	}
	const calls = 8
	for range calls {
		got, err := store.Arrived(ctx, db.ArrivedQuery{Followed: tributary.NewIDSet([]int64{u.ID}), Viewer: tributary.Viewer{ID: u.ID},
			From: now.Add(-time.Hour), To: now, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || !got[0].At.Equal(p.CreatedAt) {
			t.Fatalf("arrivals %+v, want the one post's, at %v", got, p.CreatedAt)
		}
	}
	var generic, custom int64
	if err := pool.QueryRow(ctx, `SELECT generic_plans, custom_plans FROM pg_prepared_statements
		WHERE statement LIKE '-- name: RecentArrivals %'`).Scan(&generic, &custom); err != nil {
		t.Fatal(err)
	}
	if generic != calls || custom != 0 {
		t.Errorf("RecentArrivals ran on %d generic and %d custom plans, want %d generic", generic, custom, calls)
	}
	var mode string
	if err := pool.QueryRow(ctx, "SHOW plan_cache_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "auto" {
		t.Errorf("plan_cache_mode is %q after the queries, want auto", mode)
	}
}
