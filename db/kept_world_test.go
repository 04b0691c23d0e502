package db_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// keptWorld is a small world of users, groups and posts that random steps change, for the
// tests of what triggers keep on write (user_stats, user_access).
type keptWorld struct {
	s      *db.Store
	users  []int64
	groups []db.Group
	mu     sync.Mutex
	posts  []int64
}

func newKeptWorld(t *testing.T, ctx context.Context, s *db.Store, now time.Time) *keptWorld {
	w := &keptWorld{s: s}
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

// step makes one random change: follows, unfollows, approvals and declines (of private
// feeds too), bans both ways, going private and public, shares and their deletion, hides,
// mutes, group joins, approvals and removals, a membership's state changed by hand.
// Errors a user would be shown (tributary.ErrorCode) are not failures.
func (w *keptWorld) step(ctx context.Context, r *rand.Rand, now time.Time) (op int, err error) {
	pick := func() int64 { return w.users[r.IntN(len(w.users))] }
	a, b := pick(), pick()
	op = r.IntN(16)
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
	case 13:
		err = w.s.Unfollow(ctx, a, b)
	case 14:
		err = w.s.Decline(ctx, a, b)
	case 15:
		w.mu.Lock()
		posts := slices.Clone(w.posts)
		w.mu.Unlock()
		if len(posts) > 0 {
			var author int64
			id := posts[r.IntN(len(posts))]
			if err = w.s.Pool.QueryRow(ctx, "SELECT author_id FROM posts WHERE id = $1", id).Scan(&author); err == nil {
				err = w.s.DeletePost(ctx, author, id, now)
			}
		}
	case 12: // a membership's state changed by hand, with no reader row along
		_, err = w.s.Pool.Exec(ctx, `UPDATE group_members SET state = CASE state WHEN 'active' THEN 'pending' ELSE 'active' END
			WHERE (feed_id, user_id) = (SELECT feed_id, user_id FROM group_members WHERE role <> 'admin' ORDER BY 1, 2 OFFSET $1 LIMIT 1)`, r.IntN(3))
	}
	if tributary.ErrorCode(err) != "" {
		err = nil
	}
	return op, err
}

// checkEveryStep runs 150 random steps (and now and then an account's deletion) on three
// fresh worlds, failing at the first step after which disagreement reports something; then
// done, if given, checks each world.
func checkEveryStep(t *testing.T, disagreement func(*testing.T, context.Context, *db.Store) string, done func(*testing.T, context.Context, *db.Store)) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			s := dbtest.Store(t)
			ctx := context.Background()
			r := rand.New(rand.NewPCG(seed, 65))
			now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
			w := newKeptWorld(t, ctx, s, now)
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
				if wrong := disagreement(t, ctx, s); wrong != "" {
					t.Fatalf("after step %d (op %d): %s", step, op, wrong)
				}
			}
			if done != nil {
				done(t, ctx, s)
			}
		})
	}
}
