package db_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// TestRefreshIsAtomic alternates refreshes between two clocks whose 180-day windows hold
// different numbers of anchors, while readers count the snapshot: every count must be one of
// the two full sizes, never an empty or half-built snapshot.
func TestRefreshIsAtomic(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Store(t)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	u, err := store.CreateUser(ctx, db.NewUser{Handle: "ada", DisplayName: "Ada", CreatedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 400 {
		// Half of the shares are 100 days old, half 1 day old.
		age := 24 * time.Hour
		if i%2 == 0 {
			age = 100 * 24 * time.Hour
		}
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: u.ID, URL: fmt.Sprintf("https://example.com/p/%d", i), CreatedAt: now.Add(-age)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.CreatePost(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	later := now.Add(100 * 24 * time.Hour) // the 100-day-old half falls out of the window
	refresh := func(at time.Time) {
		if _, err := store.RefreshSnapshot(ctx, at); err != nil {
			t.Error(err)
		}
	}
	refresh(now)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	counts := make(chan int, 100000)
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				var n int
				if err := store.Pool.QueryRow(ctx, "SELECT count(*) FROM feed_snapshot").Scan(&n); err != nil {
					t.Error(err)
					return
				}
				if _, err := store.SnapshotFeed(ctx, db.SnapshotQuery{Followed: tributary.NewIDSet([]int64{u.ID}), Limit: 40}); err != nil {
					t.Error(err)
					return
				}
				counts <- n
			}
		})
	}
	for i := range 8 {
		if i%2 == 0 {
			refresh(later)
		} else {
			refresh(now)
		}
	}
	close(stop)
	wg.Wait()
	close(counts)
	seen := map[int]int{}
	for n := range counts {
		seen[n]++
	}
	for n := range seen {
		if n != 400 && n != 200 {
			t.Errorf("a reader saw %d snapshot rows; want 400 or 200 (seen: %v)", n, seen)
		}
	}
	if len(seen) < 2 {
		t.Logf("readers saw only %v; the swap happened between reads", seen)
	}
}

func TestRefreshSkipsWhenLocked(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Store(t)
	conn, err := store.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", 0x7472_6962); err != nil {
		t.Fatal(err)
	}
	res, err := store.RefreshSnapshot(ctx, time.Now())
	if err != nil || !res.Skipped {
		t.Fatalf("refresh while another instance holds the lock: %+v, %v; want skipped", res, err)
	}
	conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", 0x7472_6962)
	res, err = store.RefreshSnapshot(ctx, time.Now())
	if err != nil || res.Skipped {
		t.Fatalf("refresh after the lock is released: %+v, %v", res, err)
	}
}

// TestConcurrentSharesOfOneAnchor: many people share one paper at once; each share redoes
// the paper's snapshot row, and the last row written must count every share.
func TestConcurrentSharesOfOneAnchor(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Store(t)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	var users []int64
	for i := range 12 {
		u, err := store.CreateUser(ctx, db.NewUser{Handle: fmt.Sprintf("u%d", i), DisplayName: "U", CreatedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, u.ID)
	}
	var wg sync.WaitGroup
	for i, id := range users {
		wg.Go(func() {
			p, err := tributary.Prepare(tributary.NewPost{AuthorID: id, URL: "https://arxiv.org/abs/2401.00001",
				CreatedAt: now.Add(time.Duration(i) * time.Minute)})
			if err == nil {
				_, err = store.CreatePost(ctx, p)
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	var total int
	if err := store.Pool.QueryRow(ctx, "SELECT total_share FROM feed_snapshot").Scan(&total); err != nil {
		t.Fatal(err)
	}
	if total != len(users) {
		t.Fatalf("the snapshot row counts %d sharers, want %d", total, len(users))
	}
}

// A full rebuild makes the snapshot table again: it comes back with the indexes and
// constraints the migrations gave it, under their names.
func TestRebuiltSnapshotKeepsTheMigratedIndexes(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Store(t)
	defs := func() []string {
		t.Helper()
		rows, err := store.Pool.Query(ctx, `
			SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'feed_snapshot'
			UNION ALL
			SELECT conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'feed_snapshot'::regclass
			ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		d, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	migrated := defs()
	if len(migrated) < 5 {
		t.Fatalf("the migrated snapshot has %d indexes and constraints: %q", len(migrated), migrated)
	}
	if _, err := store.RefreshSnapshot(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	if rebuilt := defs(); !slices.Equal(rebuilt, migrated) {
		t.Errorf("after a full rebuild the snapshot has\n%s\nwhere the migrations made\n%s", strings.Join(rebuilt, "\n"), strings.Join(migrated, "\n"))
	}
}
