package db_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"tributary"
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

// accessWorld is a small world of users and groups whose access random steps change.
type accessWorld struct {
	s      *db.Store
	users  []int64
	groups []db.Group
	mu     sync.Mutex
	posts  []int64
}

func newAccessWorld(t *testing.T, ctx context.Context, s *db.Store, now time.Time) *accessWorld {
	w := &accessWorld{s: s}
	for i := range 6 {
		u, err := s.CreateUser(ctx, db.NewUser{Handle: fmt.Sprintf("u%d", i), DisplayName: "U", PasswordHash: "x", CreatedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		w.users = append(w.users, u.ID)
	}
	for i, access := range []string{"public", "public", "private"} {
		g, err := s.CreateGroup(ctx, w.users[i], fmt.Sprintf("g%d", i), "G", access, i > 0)
		if err != nil {
			t.Fatal(err)
		}
		w.groups = append(w.groups, g)
	}
	return w
}

// step makes one random change of someone's access (or of what they may read): bans both
// ways, follows of private feeds and their approvals, going private and public, shares,
// hides, mutes, group joins, approvals and removals, a membership's state changed by hand.
// Errors a user would be shown (tributary.ErrorCode) are not failures.
func (w *accessWorld) step(ctx context.Context, r *rand.Rand, now time.Time) (op int, err error) {
	pick := func() int64 { return w.users[r.IntN(len(w.users))] }
	a, b := pick(), pick()
	op = r.IntN(13)
	switch op {
	case 0, 1:
		if a != b {
			if r.IntN(3) == 0 {
				err = w.s.Unban(ctx, a, b)
			} else {
				err = w.s.Ban(ctx, a, b)
			}
		}
	case 2:
		if a != b {
			_, err = w.s.Follow(ctx, a, b)
		}
	case 3: // a waiting follow, if any
		var owner, follower int64
		if w.s.Pool.QueryRow(ctx, `SELECT followed_id, follower_id FROM follows WHERE state = 'pending'
			ORDER BY 1, 2 OFFSET $1 LIMIT 1`, r.IntN(3)).Scan(&owner, &follower) == nil {
			err = w.s.Approve(ctx, owner, follower)
		}
	case 4:
		err = w.s.SetVisibility(ctx, a, []string{"public", "private"}[r.IntN(2)], now)
	case 5:
		p, perr := tributary.Prepare(tributary.NewPost{AuthorID: a, URL: fmt.Sprintf("https://example.com/%d", r.Int64()),
			Title: "A post", CreatedAt: now})
		if perr != nil {
			return op, perr
		}
		var id int64
		if id, err = w.s.CreatePost(ctx, p); err == nil {
			w.mu.Lock()
			w.posts = append(w.posts, id)
			w.mu.Unlock()
		}
	case 6:
		w.mu.Lock()
		posts := slices.Clone(w.posts)
		w.mu.Unlock()
		if len(posts) > 0 {
			var v tributary.Viewer
			if v, err = w.s.ViewerAccess(ctx, a); err == nil {
				id := posts[r.IntN(len(posts))]
				if r.IntN(3) == 0 {
					err = w.s.UnhideItem(ctx, v, id)
				} else {
					err = w.s.HideItem(ctx, v, id, now)
				}
			}
		}
	case 7:
		word := []string{"llm", "rust", "crypto"}[r.IntN(3)]
		if r.IntN(3) == 0 {
			err = w.s.Unmute(ctx, a, word)
		} else {
			err = w.s.Mute(ctx, a, tributary.Mute{Word: word, Collapse: r.IntN(2) == 0}, now)
		}
	case 8, 9:
		g := w.groups[r.IntN(len(w.groups))]
		_, err = w.s.Join(ctx, g, a)
	case 10: // a waiting member, if any
		var feed, user int64
		if w.s.Pool.QueryRow(ctx, `SELECT feed_id, user_id FROM group_members WHERE state = 'pending'
			ORDER BY 1, 2 OFFSET $1 LIMIT 1`, r.IntN(3)).Scan(&feed, &user) == nil {
			for _, g := range w.groups {
				if g.ID == feed {
					err = w.s.ApproveMember(ctx, g, g.OwnerID, user)
				}
			}
		}
	case 11:
		g := w.groups[r.IntN(len(w.groups))]
		err = w.s.RemoveMember(ctx, g, g.OwnerID, a)
	case 12: // a membership's state changed by hand, with no reader row along
		_, err = w.s.Pool.Exec(ctx, `UPDATE group_members SET state = CASE state WHEN 'active' THEN 'pending' ELSE 'active' END
			WHERE (feed_id, user_id) = (SELECT feed_id, user_id FROM group_members WHERE role <> 'admin' ORDER BY 1, 2 OFFSET $1 LIMIT 1)`, r.IntN(3))
	}
	if tributary.ErrorCode(err) != "" {
		err = nil
	}
	return op, err
}

// A user's kept access (user_access) agrees with computing it afresh after every step of
// random changes (accessWorld.step) and now and then an account's deletion.
func TestUserAccessAgreesWithSources(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			s := dbtest.Store(t)
			ctx := context.Background()
			r := rand.New(rand.NewPCG(seed, 65))
			now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
			w := newAccessWorld(t, ctx, s, now)
			for step := range 150 {
				now = now.Add(time.Minute)
				op, err := w.step(ctx, r, now)
				if err != nil {
					t.Fatalf("step %d, op %d: %v", step, op, err)
				}
				if step%50 == 49 { // now and then someone leaves
					if err := s.DeleteAccount(ctx, w.users[r.IntN(len(w.users))], now); err != nil && tributary.ErrorCode(err) == "" {
						t.Fatal(err)
					}
				}
				if wrong := accessDisagreement(t, ctx, s); wrong != "" {
					t.Fatalf("after step %d (op %d): %s", step, op, wrong)
				}
			}
			var kept int
			if err := s.Pool.QueryRow(ctx, `SELECT count(*) FROM user_access WHERE blocked <> '{}'`).Scan(&kept); err != nil || kept == 0 {
				t.Fatalf("no kept bans to compare (%d, %v)", kept, err)
			}
		})
	}
}

// Random changes of the same few users' access from eight clients at once: none fails (a
// deadlock between the triggers' locks would), and the kept access agrees after.
func TestUserAccessUnderConcurrentChanges(t *testing.T) {
	s := dbtest.Store(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	w := newAccessWorld(t, ctx, s, now)
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
