package seed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"tributary"
	"tributary/db"
)

// demoComments are what the demo's people say on each other's posts.
var demoComments = []string{
	"The ablations in section 4 are what convinced me.",
	"Does this hold up at smaller scale? The appendix only shows the large runs.",
	"Bookmarked for the reading group on Thursday.",
	"Clearest write-up of this I have read so far.",
	"We tried something close to this last year; the data pipeline mattered more than the model.",
}

// Activity gives the demo logins something to be told of when they first log in: over the
// last hours before now, some of their followers like their latest posts and comment on one,
// someone mentions them, and a few people follow them. All of it is written through the
// store, as the site's own requests write it, so their notifications (and the jobs that fan
// out a comment's mentions) are written as any are. The seed's history tells nobody.
func Activity(ctx context.Context, store *db.Store, logins []DemoLogin, seed uint64, now time.Time) error {
	r := rand.New(rand.NewPCG(seed, 46))
	for _, l := range logins {
		u, err := store.UserByHandle(ctx, l.Handle)
		if err != nil {
			return fmt.Errorf("seed: activity: %w", err)
		}
		if err := activityFor(ctx, store, r, u.ID, u.Handle, now); err != nil {
			return fmt.Errorf("seed: activity for %s: %w", l.Handle, err)
		}
	}
	return nil
}

func activityFor(ctx context.Context, store *db.Store, r *rand.Rand, user int64, handle string, now time.Time) error {
	var posts, followers, strangers []int64
	var followed int64 // a recent public post of someone they follow, to be mentioned on
	err := store.Pool.QueryRow(ctx, `
		SELECT ARRAY(SELECT id FROM posts WHERE author_id = $1 AND deleted_at IS NULL AND is_public
		              ORDER BY created_at DESC LIMIT 3),
		       coalesce((SELECT p.id FROM posts p JOIN follows f ON f.followed_id = p.author_id
		                  WHERE f.follower_id = $1 AND f.state = 'active' AND p.deleted_at IS NULL AND p.is_public
		                  ORDER BY p.created_at DESC LIMIT 1), 0),
		       ARRAY(SELECT follower_id FROM follows WHERE followed_id = $1 AND state = 'active'
		              ORDER BY follower_id LIMIT 40),
		       ARRAY(SELECT u.id FROM users u WHERE u.id <> $1 AND u.deleted_at IS NULL AND NOT u.is_private
		                AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = u.id AND f.followed_id = $1)
		                AND NOT EXISTS (SELECT 1 FROM bans b WHERE (b.user_id, b.banned_id) IN ((u.id, $1), ($1, u.id)))
		              ORDER BY u.id LIMIT 40)`, user).Scan(&posts, &followed, &followers, &strangers)
	if err != nil || len(posts) == 0 || len(followers) == 0 {
		return err
	}
	at := now.Add(-6 * time.Hour)
	step := func() time.Time { at = at.Add(time.Duration(5+r.IntN(20)) * time.Minute); return at }
	act := func(who int64, f func(tributary.Viewer) error) error {
		_, v, err := store.UserWithAccess(ctx, who)
		if err == nil {
			err = f(v)
		}
		return err
	}
	for _, post := range posts {
		for _, i := range r.Perm(len(followers))[:min(len(followers), 2+r.IntN(4))] {
			if err := act(followers[i], func(v tributary.Viewer) error { return store.Like(ctx, v, post, step()) }); err != nil {
				return err
			}
		}
	}
	comment := func(who, post int64, body string) error {
		return act(who, func(v tributary.Viewer) error {
			_, _, err := store.AddComment(ctx, v, post, body, step(), tributary.DefaultBumpRule)
			return err
		})
	}
	if err := comment(followers[r.IntN(len(followers))], posts[0], demoComments[r.IntN(len(demoComments))]); err != nil {
		return err
	}
	if followed != 0 {
		if err := comment(followers[r.IntN(len(followers))], followed, "@"+handle+" "+demoComments[r.IntN(len(demoComments))]); err != nil {
			return err
		}
	}
	for _, i := range r.Perm(len(strangers))[:min(len(strangers), 3)] {
		if _, err := store.Follow(ctx, strangers[i], user); err != nil {
			return err
		}
	}
	return nil
}
