package db_test

import (
	"context"
	"testing"

	"tributary/db"
)

// statsDisagreement lists the users whose kept follow counts (user_stats: following,
// followers, waiting requests) differ from counting afresh.
func statsDisagreement(t *testing.T, ctx context.Context, s *db.Store) string {
	t.Helper()
	var wrong string
	if err := s.Pool.QueryRow(ctx, `SELECT coalesce(string_agg(format('user %s: kept %s, counted %s', u.id, k, c), '; '), '') FROM (
		SELECT u.id, ROW(coalesce(s.following, 0), coalesce(s.followers, 0), coalesce(s.requests, 0)) AS k,
		       ROW((SELECT count(*) FROM follows f WHERE f.follower_id = u.id AND f.state = 'active'),
		           (SELECT count(*) FROM follows f WHERE f.followed_id = u.id AND f.state = 'active'),
		           (SELECT count(*) FROM follows f WHERE f.followed_id = u.id AND f.state = 'pending')) AS c
		  FROM users u LEFT JOIN user_stats s ON s.user_id = u.id) u WHERE k::text <> c::text`).Scan(&wrong); err != nil {
		t.Fatal(err)
	}
	return wrong
}

// A user's kept counts (user_stats) agree with counting afresh after every random step
// (keptWorld.step: follows, unfollows, approvals, declines, bans, shares, deletions, changes
// of visibility) and account deletions.
func TestUserStatsAgreeWithCounts(t *testing.T) {
	checkEveryStep(t, statsDisagreement, nil)
}
