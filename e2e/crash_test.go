package e2e

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"tributary/db/dbtest"
)

// kill -9 of the server in the middle of a snapshot refresh leaves the old snapshot serving
// and the work to the next start, which completes it.
func TestKilledDuringRefreshLeavesOldSnapshotAndNextStartCompletesIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := dbtest.DSN(t)
	f := newFixture(t, &server{DSN: dsn})
	f.user("vera", "Vera VIP", true)
	for i := range 30 {
		f.share("vera", fmt.Sprintf("https://arxiv.org/abs/2402.%05d", i), fmt.Sprintf("Paper %d", i), time.Duration(i+1)*time.Hour)
	}
	f.refresh()
	var before time.Time
	var rows int
	state := func() (time.Time, int, bool) {
		t.Helper()
		var at time.Time
		var n int
		var next bool
		err := f.store.Pool.QueryRow(ctx, `SELECT (SELECT refreshed_at FROM snapshot_meta), (SELECT count(*) FROM feed_snapshot),
			to_regclass('feed_snapshot_next') IS NOT NULL`).Scan(&at, &n, &next)
		must(t, err)
		return at, n, next
	}
	before, rows, _ = state()

	// Hold the snapshot so that the refresh of the next start stops at its swap.
	hold, err := pgx.Connect(ctx, dsn)
	must(t, err)
	defer hold.Close(ctx)
	tx, err := hold.Begin(ctx)
	must(t, err)
	_, err = tx.Exec(ctx, "LOCK TABLE feed_snapshot IN ACCESS SHARE MODE")
	must(t, err)
	first := startServerOn(t, dsn, "--poll-seconds", "-1", "--snapshot-rebuild")
	eventually(t, 30*time.Second, "the refresh to wait at its swap", func() bool {
		var waiting bool
		must(t, f.store.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE relation = 'feed_snapshot'::regclass
			AND mode = 'AccessExclusiveLock' AND NOT granted)`).Scan(&waiting))
		return waiting
	})
	must(t, first.proc.Kill()) // kill -9 in the middle of the refresh
	first.proc.Wait()
	// The killed server's backend goes on waiting for the snapshot; when it gets it, it finds
	// its client gone before any commit and rolls the swap back.
	must(t, tx.Commit(ctx))

	at, n, next := state()
	if !at.Equal(before) || n != rows || !next {
		t.Fatalf("after the kill: snapshot of %s with %d rows (half-built next: %v); want the old one, %s with %d rows",
			at, n, next, before, rows)
	}
	// The old snapshot still serves.
	second := startServerOn(t, dsn, "--poll-seconds", "-1")
	res, err := http.Get(second.URL + "/api/timeline")
	must(t, err)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("after the kill: status %d", res.StatusCode)
	}
	eventually(t, 30*time.Second, "the next start to complete the refresh", func() bool {
		at, n, next := state()
		return at.After(before) && n == rows && !next
	})
}
