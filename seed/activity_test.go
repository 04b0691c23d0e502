package seed_test

import (
	"context"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/seed"
)

// The seeded world's kept counts (user_stats) agree with counting afresh.
func TestSeedKeepsUserStats(t *testing.T) {
	s, _ := seeded(t, seedSmall(2))
	wrong := seedInt(t, s, `SELECT count(*) FROM users u LEFT JOIN user_stats s ON s.user_id = u.id
		WHERE (coalesce(s.following, 0), coalesce(s.followers, 0), coalesce(s.requests, 0)) <>
		      ((SELECT count(*) FROM follows f WHERE f.follower_id = u.id AND f.state = 'active'),
		       (SELECT count(*) FROM follows f WHERE f.followed_id = u.id AND f.state = 'active'),
		       (SELECT count(*) FROM follows f WHERE f.followed_id = u.id AND f.state = 'pending'))`)
	if wrong != 0 {
		t.Errorf("%v users' kept counts differ from their counts", wrong)
	}
	if n := seedInt(t, s, "SELECT count(*) FROM user_stats WHERE followers > 0"); n == 0 {
		t.Error("no user has followers")
	}
}

// The demo's activity gives each login notifications to find: likes, a comment with its
// words, follows (a mention comes through the job queue, not running here).
func TestSeedActivity(t *testing.T) {
	s, res := seeded(t, seedSmall(1))
	ctx := context.Background()
	if err := seed.Activity(ctx, s, res.Logins, 1, seedEnd.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, l := range res.Logins {
		u, v, err := userAccess(ctx, s, l.Handle)
		if err != nil {
			t.Fatal(err)
		}
		page, err := s.Notifications(ctx, v, tributary.NotificationCursor{}, 50)
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]int{}
		for _, n := range page.Lines {
			kinds[n.Type]++
			if n.Type == "comment" && n.Comment == "" {
				t.Errorf("%s: a comment line without its words: %+v", u.Handle, n)
			}
		}
		if kinds["like"] == 0 || kinds["follow"] == 0 || kinds["comment"] == 0 {
			t.Errorf("%s's notifications: %v", u.Handle, kinds)
		}
	}
}

func userAccess(ctx context.Context, s *db.Store, handle string) (tributary.User, tributary.Viewer, error) {
	u, err := s.UserByHandle(ctx, handle)
	if err != nil {
		return u, tributary.Viewer{}, err
	}
	return s.UserWithAccess(ctx, u.ID)
}
