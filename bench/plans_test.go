package bench

import (
	"context"
	"os"
	"testing"
	"time"

	"tributary/db"
)

// TestBenchPlans checks, on the bench dataset, that the snapshot path reads feed_snapshot
// through the indexes it is built around and never whole: a light follower's request through
// the GIN index on sharer_user_ids, a heavy follower's (2,000 followees) through it or the
// score index (read in score order, stopping early), the anonymous front page through the
// partial index on score. Plans depend on the data's size, so this runs only on the bench
// database: `make bench` runs it with BENCH_DATABASE_URL set.
func TestBenchPlans(t *testing.T) {
	dsn := os.Getenv("BENCH_DATABASE_URL")
	if dsn == "" {
		t.Skip("BENCH_DATABASE_URL is not set: this test checks query plans on the bench dataset; `make bench` runs it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pool, err := openPool(ctx, dsn, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var posts int64
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM posts").Scan(&posts); err != nil {
		t.Fatal(err)
	}
	if posts < 100_000 {
		t.Skipf("the database at BENCH_DATABASE_URL holds %d posts: plans are checked at bench scale (400k), not on the --quick dataset", posts)
	}
	// The ranker takes the snapshot path only when the snapshot is fresh.
	store := db.NewStore(pool)
	if st, ok, err := store.Snapshot(ctx); err != nil {
		t.Fatal(err)
	} else if !ok || time.Since(st.RefreshedAt) > 2*time.Hour {
		if _, err := store.RefreshSnapshot(ctx, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	cls, err := pickViewers(ctx, pool, 1)
	if err != nil {
		t.Fatal(err)
	}
	heavy := cls[len(cls)-1].Viewers[0]
	if n := len(heavy.Followees); n < 1000 {
		t.Fatalf("the heaviest follower follows %d people, want a heavy follower (~2,000)", n)
	}
	light := cls[0].Viewers[0]
	cases, err := capturePlans(ctx, dsn, planTarget{Light: light.ID, Heavy: heavy.ID}) // no Followees: no share is written
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checkPlans(ctx, pool, cases) {
		if c.Err != "" {
			t.Errorf("%s: %s", c.Case, c.Err)
			continue
		}
		if !c.Uses {
			t.Errorf("%s: the reads of feed_snapshot (%s) use indexes %q and read %q whole; want one of %q and no sequential scan of feed_snapshot",
				c.Case, c.Query, c.Indexes, c.SeqScans, c.Want)
		}
	}
}
