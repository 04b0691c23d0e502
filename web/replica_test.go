package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"tributary/db"
	"tributary/db/dbtest"
)

// A real streaming replica (pg_basebackup -R on loopback) takes the feed reads while it
// keeps up; a change of access, a reader's own write, a paused (lagging) or lost replica send
// reads back to the primary, and nothing a reader may not read comes from the replica.
func TestReadReplica(t *testing.T) {
	primary, dsn := dbtest.StockCluster(t)
	replicaCluster, rdsn := dbtest.Replica(t, primary)
	ctx := context.Background()
	pool, err := db.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	rpool, err := db.OpenReplica(ctx, rdsn, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rpool.Close)
	store := db.NewStore(pool)
	store.UseReplica(rpool)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go store.RunReplicaCheck(rctx, 20*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	a, _ := startInstance(t, store, nil, 0, nil)
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}

	ada := a.client()
	ada.signup("ada")
	for i := range 5 {
		ada.post("/share", url.Values{"url": {fmt.Sprintf("https://example.com/replica/%d", i)}})
	}
	bob := a.client() // has written nothing yet: his reads may go to the replica
	bob.signup("bob")
	// The sign-ups' changes reach the event path after their answers, and one may fence the
	// replica off until it has replayed it: a page read in that moment comes from the
	// primary. Once the replica keeps up, pages come from it.
	waitFor("a user page read from the replica", func() bool {
		waitFor("the replica to catch up", store.ReplicaUsable)
		before := store.ReplicaReads()
		if !strings.Contains(bob.get("/u/ada").body, "example.com/replica/") {
			t.Fatal("bob does not see ada's public posts")
		}
		return store.ReplicaReads() > before
	})

	// The replica stops replaying (as a lagging one does); ada goes private. From the next
	// request on, her posts come from nowhere, the replica's old copy included.
	if _, err := rpool.Exec(ctx, "SELECT pg_wal_replay_pause()"); err != nil {
		t.Fatal(err)
	}
	if r := ada.post("/settings/visibility", url.Values{"visibility": {"private"}}); r.status != 303 {
		t.Fatalf("go private: %d", r.status)
	}
	if store.ReplicaUsable() {
		t.Fatal("the replica still takes reads after a change of access it has not replayed")
	}
	if strings.Contains(bob.get("/u/ada").body, "example.com/replica/") || strings.Contains(a.client().get("/u/ada").body, "example.com/replica/") {
		t.Fatal("a private user's posts were shown from the paused replica")
	}
	if _, err := rpool.Exec(ctx, "SELECT pg_wal_replay_resume()"); err != nil {
		t.Fatal(err)
	}
	waitFor("the replica to replay past the change", store.ReplicaUsable)
	if strings.Contains(bob.get("/u/ada").body, "example.com/replica/") {
		t.Fatal("a private user's posts were shown from the replica")
	}

	// A reader's own writes: read from the primary, even while the replica lags behind them.
	if _, err := rpool.Exec(ctx, "SELECT pg_wal_replay_pause()"); err != nil {
		t.Fatal(err)
	}
	bob.post("/share", url.Values{"url": {"https://example.com/bobs-own"}})
	if !strings.Contains(bob.get("/u/bob").body, "example.com/bobs-own") {
		t.Fatal("bob does not see his own share just after making it")
	}
	if _, err := rpool.Exec(ctx, "SELECT pg_wal_replay_resume()"); err != nil {
		t.Fatal(err)
	}

	// A lost replica: reads go to the primary, answers stay 200.
	if err := replicaCluster.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor("the lost replica to be left", func() bool { return !store.ReplicaUsable() })
	if r := a.client().get("/u/bob"); r.status != 200 || !strings.Contains(r.body, "example.com/bobs-own") {
		t.Fatalf("with the replica gone: status %d", r.status)
	}
}
