package db_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// A user's kept counts (user_stats: following, followers, waiting requests) agree with
// counting afresh after every step of random follows, approvals, declines, bans, shares,
// deletions, changes of visibility and account deletions.
func TestUserStatsAgreeWithCounts(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			s := dbtest.Store(t)
			ctx := context.Background()
			r := rand.New(rand.NewPCG(seed, 64))
			now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
			var users []int64
			for i := range 6 {
				u, err := s.CreateUser(ctx, db.NewUser{Handle: fmt.Sprintf("u%d", i), DisplayName: "U", PasswordHash: "x", CreatedAt: now})
				if err != nil {
					t.Fatal(err)
				}
				users = append(users, u.ID)
			}
			var posts []int64
			pick := func() int64 { return users[r.IntN(len(users))] }
			for step := range 150 {
				now = now.Add(time.Minute)
				a, b := pick(), pick()
				var err error
				op := r.IntN(10)
				switch op {
				case 0, 1, 2:
					if a != b {
						_, err = s.Follow(ctx, a, b)
					}
				case 3:
					err = s.Unfollow(ctx, a, b)
				case 4:
					if r.IntN(2) == 0 {
						err = s.Approve(ctx, a, b)
					} else {
						err = s.Decline(ctx, a, b)
					}
				case 5:
					if a != b {
						if r.IntN(3) == 0 {
							err = s.Unban(ctx, a, b)
						} else {
							err = s.Ban(ctx, a, b)
						}
					}
				case 6:
					err = s.SetVisibility(ctx, a, []string{"public", "protected", "private"}[r.IntN(3)], now)
				case 7, 8:
					p, perr := tributary.Prepare(tributary.NewPost{AuthorID: a, URL: fmt.Sprintf("https://example.com/%d/%d", seed, step),
						Title: "A post", CreatedAt: now})
					if perr != nil {
						t.Fatal(perr)
					}
					var id int64
					if id, err = s.CreatePost(ctx, p); err == nil {
						posts = append(posts, id)
					}
				case 9:
					if len(posts) > 0 {
						var author int64
						id := posts[r.IntN(len(posts))]
						if err = s.Pool.QueryRow(ctx, "SELECT author_id FROM posts WHERE id = $1", id).Scan(&author); err == nil {
							err = s.DeletePost(ctx, author, id, now)
						}
					}
				}
				if err != nil && tributary.ErrorCode(err) == "" {
					t.Fatalf("step %d, op %d: %v", step, op, err)
				}
				if step%50 == 49 { // now and then someone leaves
					if err := s.DeleteAccount(ctx, pick(), now); err != nil && tributary.ErrorCode(err) == "" {
						t.Fatal(err)
					}
				}
				var wrong string
				err = s.Pool.QueryRow(ctx, `SELECT coalesce(string_agg(format('user %s: kept %s, counted %s', u.id, k, c), '; '), '') FROM (
					SELECT u.id, ROW(coalesce(s.following, 0), coalesce(s.followers, 0), coalesce(s.requests, 0)) AS k,
					       ROW((SELECT count(*) FROM follows f WHERE f.follower_id = u.id AND f.state = 'active'),
					           (SELECT count(*) FROM follows f WHERE f.followed_id = u.id AND f.state = 'active'),
					           (SELECT count(*) FROM follows f WHERE f.followed_id = u.id AND f.state = 'pending')) AS c
					  FROM users u LEFT JOIN user_stats s ON s.user_id = u.id) u WHERE k::text <> c::text`).Scan(&wrong)
				if err != nil {
					t.Fatal(err)
				}
				if wrong != "" {
					t.Fatalf("after step %d (op %d): %s", step, op, wrong)
				}
			}
		})
	}
}
