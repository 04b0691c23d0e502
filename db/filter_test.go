package db_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"tributary"
	"tributary/db"
)

// filterDrift counts the filter feed entries that differ from what post_filters computes
// from posts, likes and comments: missing or extra either way, or placed lower than due (a
// place may stay higher: it never moves down, see refilter_posts).
func filterDrift(t *testing.T, s *db.Store) int {
	t.Helper()
	if _, err := s.ApplyFilterBumps(context.Background()); err != nil { // the filter-bumps job's work
		t.Fatal(err)
	}
	return int(seedInt(t, s, `SELECT count(*) FROM filter_posts f FULL JOIN post_filters(NULL) d USING (feed, post_id)
		WHERE f.at IS NULL OR d.at IS NULL OR f.at < d.at`))
}

// The seeder fills every kind of filter feed, and live writes (likes, unlikes, comments
// with mentions and tags, their edits and deletions, bumps, new posts, bans and their end)
// keep filter_posts to its definition.
func TestFilterFeedsFollowWrites(t *testing.T) {
	s, res := seeded(t, seedSmall(3))
	ctx := context.Background()
	for _, kind := range []string{"l", "c", "m", "t", "d"} {
		if n := seedInt(t, s, "SELECT count(*) FROM filter_posts WHERE feed LIKE $1", kind+":%"); n == 0 {
			t.Errorf("no %q filter feed entries after seeding", kind)
		}
	}
	if n := filterDrift(t, s); n != 0 {
		t.Fatalf("after seeding: %d filter feed entries differ from post_filters", n)
	}

	rng := rand.New(rand.NewPCG(3, 5))
	now := time.Now().UTC().Truncate(time.Microsecond)
	handles := []string{}
	rows, err := s.Pool.Query(ctx, "SELECT handle FROM users ORDER BY id LIMIT 40")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			t.Fatal(err)
		}
		handles = append(handles, h)
	}
	var comments []struct {
		id int64
		v  tributary.Viewer
	}
	for step := range 400 {
		now = now.Add(time.Duration(rng.IntN(3600)) * time.Second)
		user := int64(1 + rng.IntN(40))
		v, err := s.ViewerAccess(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		post := int64(res.Posts - rng.IntN(60)) // a few posts, so actions meet
		body := fmt.Sprintf("step %d: @%s and #topic%d", step, handles[rng.IntN(len(handles))], rng.IntN(4))
		var op string
		switch r := rng.IntN(11); {
		case r == 10:
			// A ban (or its end) between the actor and someone mentioned.
			other := int64(1 + rng.IntN(40))
			if other == user {
				continue
			}
			if rng.IntN(2) == 0 {
				op, err = "ban", s.Ban(ctx, user, other)
			} else {
				op, err = "unban", s.Unban(ctx, user, other)
			}
		case r < 3:
			op, err = "like", s.Like(ctx, v, post, now)
		case r < 5:
			op, err = "unlike", s.Unlike(ctx, v, post)
		case r < 8:
			op = "comment"
			var c tributary.Comment
			if c, _, err = s.AddComment(ctx, v, post, body, now, tributary.DefaultBumpRule); err == nil {
				comments = append(comments, struct {
					id int64
					v  tributary.Viewer
				}{c.ID, v})
			}
		case r < 9 && len(comments) > 0:
			op = "edit"
			c := comments[rng.IntN(len(comments))]
			_, err = s.EditComment(ctx, c.v, c.id, body+" (edited)", now)
		case len(comments) > 0:
			op = "delete"
			i := rng.IntN(len(comments))
			_, err = s.DeleteComment(ctx, comments[i].v, comments[i].id)
			comments = append(comments[:i], comments[i+1:]...)
		default:
			op = "post"
			var p tributary.Prepared
			if p, err = tributary.Prepare(tributary.NewPost{AuthorID: user, URL: fmt.Sprintf("https://example.org/filter/%d", step),
				Body: body, CreatedAt: now}); err == nil {
				_, err = s.CreatePost(ctx, p)
			}
		}
		if err != nil && tributary.ErrorCode(err) != tributary.ENotFound {
			t.Fatalf("step %d (%s): %v", step, op, err)
		}
		if step%50 == 49 {
			if n := filterDrift(t, s); n != 0 {
				t.Fatalf("after step %d (%s): %d filter feed entries differ from post_filters", step, op, n)
			}
		}
	}
	if n := seedInt(t, s, "SELECT count(*) FROM filter_posts WHERE feed LIKE 'm:%' AND at > $1", time.Now().Add(-time.Hour)); n == 0 {
		t.Error("no mention arrived from the live comments")
	}
}
