package site_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"tributary/db"
	"tributary/db/dbtest"
	"tributary/site"
)

// recorder keeps what a bus delivered.
type recorder struct {
	mu     sync.Mutex
	ids    []int64
	resets int
}

func (r *recorder) handle(changes []db.SiteChange, reset bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if reset {
		r.resets++
	}
	for _, c := range changes {
		r.ids = append(r.ids, c.ID)
	}
}

func (r *recorder) got() ([]int64, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ids), r.resets
}

func start(t *testing.T, dsn string) (*site.Bus, *recorder, *db.Store) {
	t.Helper()
	pool, err := db.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	store := db.NewStore(pool)
	b := site.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.Poll = time.Hour // only wake-ups and reconnects read the log here
	rec := &recorder{}
	b.Subscribe(rec.handle)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); b.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; pool.Close() })
	waitFor(t, b.Up)
	return b, rec, store
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

// change records one site change (a cursor key) and returns its id.
func change(t *testing.T, store *db.Store) int64 {
	t.Helper()
	ctx := context.Background()
	if _, _, err := store.RotateCursorKey(ctx, time.Now(), time.Hour); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := store.Pool.QueryRow(ctx, "SELECT max(id) FROM site_changes").Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestSyncReachesEveryInstanceOnce(t *testing.T) {
	dsn := dbtest.DSN(t)
	a, recA, store := start(t, dsn)
	_, recB, _ := start(t, dsn)
	var want []int64
	for range 3 {
		want = append(want, change(t, store))
		a.Sync(context.Background()) // returns when both have caught up
		for name, r := range map[string]*recorder{"A": recA, "B": recB} {
			if ids, _ := r.got(); !slices.Equal(ids, want) {
				t.Fatalf("instance %s got changes %v, want %v (each once, in order)", name, ids, want)
			}
		}
	}
}

// A listener that loses its connection is down (nothing kept may be trusted) until it has
// reconnected; then it catches up on what was recorded meanwhile, woken or not.
func TestListenerCatchesUpAfterLostConnection(t *testing.T) {
	dsn := dbtest.DSN(t)
	b, rec, store := start(t, dsn)
	_, resets := rec.got()
	ctx := context.Background()
	kill := func() {
		t.Helper()
		if _, err := store.Pool.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()", site.ListenerName); err != nil {
			t.Fatal(err)
		}
	}
	kill()
	id := change(t, store) // no wake-up sent: only the catch-up after reconnecting finds it
	waitFor(t, func() bool { ids, r := rec.got(); return r > resets && slices.Contains(ids, id) })
	waitFor(t, b.Up)
	if ids, _ := rec.got(); len(ids) != 1 {
		t.Fatalf("after reconnecting: changes %v, want just %d", ids, id)
	}
}

// Syncs of changes made at the same moment share one wake-up: an instance sends at most one
// NOTIFY every WakeEvery, whatever the number of changes.
func TestSyncsShareWakeUps(t *testing.T) {
	dsn := dbtest.DSN(t)
	pool, err := db.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	store := db.NewStore(pool)
	b := site.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.WakeEvery, b.SyncTimeout = time.Second, 10*time.Second
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); b.Run(ctx) }()
	defer func() { cancel(); <-done }()
	waitFor(t, b.Up)
	log := db.NewSiteLog(pool)
	before, err := log.WakeToken(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() { b.Sync(context.Background()) })
	}
	wg.Wait()
	after, err := log.WakeToken(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := after - before; n < 1 || n > 2 {
		t.Fatalf("20 Syncs within a second sent %d wake-ups, want 1 or 2", n)
	}
}
