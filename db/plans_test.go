package db_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// RecentArrivals runs on its generic plan, planned once per connection rather than on every
// call, and the plan mode it sets for itself does not outlive it.
func TestRecentArrivalsKeepOnePlan(t *testing.T) {
	ctx := context.Background()
	store, pool := oneConnStore(t)
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
	checkOnePlan(t, pool, "RecentArrivals", calls)
}

// A like, a query of one row, runs on its generic plan too (PostgreSQL's auto choice planned
// it on every call on the bench's data), and reads as QueryRow reads: its row, or no row.
func TestLikesKeepOnePlan(t *testing.T) {
	ctx := context.Background()
	store, pool := oneConnStore(t)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	var users, posts []int64
	for i, h := range []string{"ada", "bob"} {
		u, err := store.CreateUser(ctx, db.NewUser{Handle: h, DisplayName: h, CreatedAt: now.Add(-time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: u.ID, URL: "https://example.com/" + h, CreatedAt: now.Add(time.Duration(i) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		id, err := store.CreatePost(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		users, posts = append(users, u.ID), append(posts, id)
	}
	const calls = 8
	for i := range calls {
		v := tributary.Viewer{ID: users[i%2]}
		talk, err := store.LikeTalk(ctx, v, posts[i%2], now)
		if err != nil {
			t.Fatal(err)
		}
		if talk.Likes != 1 || !talk.Liked {
			t.Fatalf("like %d: talk %+v, want one like, the viewer's", i, talk)
		}
		if _, err := store.UnlikeTalk(ctx, v, posts[i%2]); err != nil {
			t.Fatal(err)
		}
	}
	checkOnePlan(t, pool, "Like", calls)
	if _, _, err := store.AddComment(ctx, tributary.Viewer{ID: users[0]}, posts[1]+1, "hi", now, tributary.DefaultBumpRule); tributary.ErrorCode(err) != tributary.ENotFound {
		t.Errorf("a comment on no post: %v, want not found", err)
	}
}

// oneConnStore is a store on a pool of one connection, whose prepared statements checkOnePlan
// reads.
func oneConnStore(t *testing.T) (*db.Store, *pgxpool.Pool) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dbtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return db.NewStore(pool), pool
}

// checkOnePlan checks that the query named ran calls times on its generic plan and never on
// a custom one, and that the plan mode it set for itself did not outlive it.
func checkOnePlan(t *testing.T, pool *pgxpool.Pool, name string, calls int64) {
	t.Helper()
	ctx := context.Background()
	var generic, custom int64
	if err := pool.QueryRow(ctx, `SELECT generic_plans, custom_plans FROM pg_prepared_statements
		WHERE statement LIKE '-- name: ' || $1 || ' %'`, name).Scan(&generic, &custom); errors.Is(err, pgx.ErrNoRows) {
		t.Fatalf("%s is not a prepared statement: it was planned on every call", name)
	} else if err != nil {
		t.Fatal(err)
	}
	if generic != calls || custom != 0 {
		t.Errorf("%s ran on %d generic and %d custom plans, want %d generic", name, generic, custom, calls)
	}
	var mode string
	if err := pool.QueryRow(ctx, "SHOW plan_cache_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "auto" {
		t.Errorf("plan_cache_mode is %q after the queries, want auto", mode)
	}
}

// The results posted in the last minutes of a search (SearchRecent, what a search's kept
// candidates lack) are read on the narrow query's generic plan, a walk of the time index
// whatever the words, planned once per connection rather than on every call.
func TestRecentSearchesKeepOnePlan(t *testing.T) {
	ctx := context.Background()
	store, pool := oneConnStore(t)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	u, err := store.CreateUser(ctx, db.NewUser{Handle: "ada", DisplayName: "Ada", CreatedAt: now.Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	var want []int64
	for i, title := range []string{"Sparse models learn faster", "A recipe for bread", "How models learn to plan"} {
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: u.ID, URL: "https://example.com/" + strconv.Itoa(i), Title: title,
			CreatedAt: now.Add(time.Duration(i-3) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		id, err := store.CreatePost(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if i != 1 {
			want = append([]int64{id}, want...) // newest first
		}
	}
	const calls = 8
	for range calls {
		got, err := store.SearchRecent(ctx, db.Search{Text: "model & learn"}, db.ChronoQuery{Viewer: tributary.Viewer{ID: u.ID},
			From: now.Add(-5 * time.Minute), To: now, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]int64, len(got))
		for i, a := range got {
			ids[i] = a.PostID
		}
		if !slices.Equal(ids, want) {
			t.Fatalf("recent results %v, want %v", ids, want)
		}
	}
	checkOnePlan(t, pool, "SearchNarrowArrivals", calls)
}

// The site listener reads the change log after every wake-up on its generic plan, planned
// once on its connection, and that plan reads the transaction id index, not the whole log.
func TestSiteLogKeepsOnePlanOnItsIndex(t *testing.T) {
	ctx := context.Background()
	conn := listenerConn(t)
	log := db.NewSiteLog(conn)
	_, xmin, err := log.Since(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	const calls = 4
	for range calls {
		if _, _, err := log.Since(ctx, xmin); err != nil {
			t.Fatal(err)
		}
	}
	var name string
	var generic, custom int64
	if err := conn.QueryRow(ctx, `SELECT name, generic_plans, custom_plans FROM pg_prepared_statements
		WHERE statement LIKE '-- name: SiteChangesFrom %'`).Scan(&name, &generic, &custom); err != nil {
		t.Fatal(err)
	}
	if generic != calls || custom != 0 {
		t.Errorf("SiteChangesFrom ran on %d generic and %d custom plans, want %d generic", generic, custom, calls)
	}
	rows, err := conn.Query(ctx, "EXPLAIN (COSTS OFF) EXECUTE "+pgx.Identifier{name}.Sanitize()+"(1, 2)")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(plan, "\n"); !strings.Contains(text, "site_changes_xid_idx") {
		t.Errorf("the listener's plan of SiteChangesFrom does not read the xid index:\n%s", text)
	}
}

// Statements on their generic plans are never JIT-compiled: PostgreSQL chooses to compile
// from a plan's estimated cost, which a generic plan states for any arguments (at 4M posts a
// search's last minutes, an index walk of 0.4 ms, was estimated at 820,000 and compiled for
// 600-800 ms on every call). The setting ends with them: other statements compile as the
// server chooses (the live path's heavy scans gain from it).
func TestGenericPlansAreNotJITCompiled(t *testing.T) {
	ctx := context.Background()
	store, pool := oneConnStore(t)
	var before string
	if err := pool.QueryRow(ctx, "SELECT current_setting('jit')").Scan(&before); err != nil {
		t.Fatal(err)
	}
	if jit, mode, err := db.GenericSettingsSeen(ctx, pool); err != nil || jit != "off" || mode != "force_generic_plan" {
		t.Errorf("a statement on its generic plan runs with jit %q and plan_cache_mode %q (%v), want off and force_generic_plan", jit, mode, err)
	}
	if jit, mode, err := db.PipedTxSettings(ctx, store); err != nil || jit != "off" || mode != "force_generic_plan" {
		t.Errorf("a share's transaction runs its statements with jit %q and plan_cache_mode %q (%v), want off and force_generic_plan", jit, mode, err)
	}
	var after string
	if err := pool.QueryRow(ctx, "SELECT current_setting('jit')").Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("after them the connection runs with jit %q, want the server's %q", after, before)
	}

	conn := listenerConn(t)
	var jit string
	if err := conn.QueryRow(ctx, "SELECT current_setting('jit')").Scan(&jit); err != nil || jit != "off" {
		t.Errorf("the site listener's connection runs with jit %q (%v), want off", jit, err)
	}
}

// listenerConn is a connection set up as the site listener's (db.PrepareListener).
func listenerConn(t *testing.T) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	if err := db.PrepareListener(ctx, conn); err != nil {
		t.Fatal(err)
	}
	return conn
}
