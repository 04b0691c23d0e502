package db_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"tributary/db"
	"tributary/db/dbtest"
)

// accessDisagreement lists the users whose kept access (viewer_access, read from user_access)
// differs from their access computed afresh from bans, readers, hides, mutes and groups.
func accessDisagreement(t *testing.T, ctx context.Context, s *db.Store) string {
	t.Helper()
	var wrong string
	if err := s.Pool.QueryRow(ctx, `SELECT coalesce(string_agg(format('user %s: kept %s, computed %s', c.viewer_id, k, c), '; '), '')
		FROM viewer_access_computed c JOIN viewer_access k USING (viewer_id) WHERE k::text <> c::text`).Scan(&wrong); err != nil {
		t.Fatal(err)
	}
	return wrong
}

// A user's kept access (user_access) agrees with computing it afresh after every random step
// (keptWorld.step), and the worlds had bans to keep.
func TestUserAccessAgreesWithSources(t *testing.T) {
	checkEveryStep(t, accessDisagreement, func(t *testing.T, ctx context.Context, s *db.Store) {
		var kept int
		if err := s.Pool.QueryRow(ctx, `SELECT count(*) FROM user_access WHERE blocked <> '{}'`).Scan(&kept); err != nil || kept == 0 {
			t.Fatalf("no kept bans to compare (%d, %v)", kept, err)
		}
	})
}

// Random changes of the same few users' access from eight clients at once: none fails (a
// deadlock between the triggers' locks would), and the kept access agrees after.
func TestUserAccessUnderConcurrentChanges(t *testing.T) {
	s := dbtest.Store(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	w := newKeptWorld(t, ctx, s, now)
	var g errgroup.Group
	for c := range uint64(8) {
		g.Go(func() error {
			r := rand.New(rand.NewPCG(c, 66))
			for step := range 60 {
				if op, err := w.step(ctx, r, now.Add(time.Duration(step)*time.Minute)); err != nil {
					return fmt.Errorf("client %d, step %d, op %d: %w", c, step, op, err)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if wrong := accessDisagreement(t, ctx, s); wrong != "" {
		t.Fatal(wrong)
	}
}

// Two bans of one user, the second waiting on the first's lock of the user's kept row and
// the first committed after: the row holds both. Written from the second's snapshot, taken
// before the first committed, it would hold only the second's.
func TestUserAccessKeepsConcurrentBans(t *testing.T) {
	s := dbtest.Store(t)
	ctx := context.Background()
	var ids []int64
	for _, h := range []string{"ada", "bob", "cy"} {
		u, err := s.CreateUser(ctx, db.NewUser{Handle: h, DisplayName: h, PasswordHash: "x", CreatedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, u.ID)
	}
	ada, bob, cy := ids[0], ids[1], ids[2]
	if err := s.Ban(ctx, ada, cy); err != nil { // cy's row exists: the later bans update it
		t.Fatal(err)
	}
	if err := s.Unban(ctx, ada, cy); err != nil {
		t.Fatal(err)
	}

	first, err := s.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback(ctx)
	if _, err := first.Exec(ctx, `SELECT FROM user_access WHERE user_id = $1 FOR UPDATE`, cy); err != nil {
		t.Fatal(err)
	}
	var firstPID int
	if err := first.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&firstPID); err != nil {
		t.Fatal(err)
	}
	second := make(chan error, 1)
	go func() { second <- s.Ban(ctx, bob, cy) }()
	// The second ban waits on cy's kept row, which the first holds.
	for {
		var waiting bool
		if err := s.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE $1 = ANY (pg_blocking_pids(pid)))`, firstPID).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		select {
		case err := <-second:
			t.Fatalf("the second ban did not wait for the first: %v", err)
		default:
		}
	}
	if _, err := first.Exec(ctx, `INSERT INTO bans (user_id, banned_id) VALUES ($1, $2)`, ada, cy); err != nil {
		t.Fatal(err)
	}
	if err := first.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	v, err := s.ViewerAccess(ctx, cy)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(v.Blocked) != fmt.Sprint([]int64{ada, bob}) {
		t.Errorf("cy's kept bans: %v, want [%d %d]", v.Blocked, ada, bob)
	}
	if wrong := accessDisagreement(t, ctx, s); wrong != "" {
		t.Error(wrong)
	}
}
