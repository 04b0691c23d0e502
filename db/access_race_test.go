package db_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// A share carries its feeds' access as it is when the share commits: one made while its
// author goes private waits for that change and comes out private, where reading the access
// before the change committed would have left it public for good (the change's refold of the
// feed's posts cannot see a share not yet committed).
func TestAShareDuringAVisibilityChangeTakesTheNewAccess(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Store(t)
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	u, err := store.CreateUser(ctx, db.NewUser{Handle: "ada", DisplayName: "Ada", CreatedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	var feed int64
	if err := store.Pool.QueryRow(ctx, "SELECT id FROM feeds WHERE owner_id = $1 AND kind = 'posts' AND name = ''", u.ID).Scan(&feed); err != nil {
		t.Fatal(err)
	}

	// The visibility change, held open after its first write (SetVisibility's).
	change, err := store.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer change.Rollback(ctx)
	if _, err := change.Exec(ctx, "UPDATE feeds SET access = 'private' WHERE id = $1", feed); err != nil {
		t.Fatal(err)
	}
	shared := make(chan error, 1)
	go func() {
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: u.ID, URL: "https://arxiv.org/abs/2611.00001", CreatedAt: now})
		if err == nil {
			_, err = store.CreatePost(ctx, p)
		}
		shared <- err
	}()
	waitForLockWait(t, store, "InsertPost", shared)
	if _, err := change.Exec(ctx, "UPDATE users SET is_private = true WHERE id = $1", u.ID); err != nil {
		t.Fatal(err)
	}
	if err := change.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-shared; err != nil {
		t.Fatal(err)
	}
	var public bool
	var private []int64
	if err := store.Pool.QueryRow(ctx, "SELECT is_public, private_feed_ids FROM posts WHERE author_id = $1", u.ID).Scan(&public, &private); err != nil {
		t.Fatal(err)
	}
	if public || !slices.Equal(private, []int64{feed}) {
		t.Errorf("the share came out public %v, private to %v; want private to its feed %d", public, private, feed)
	}
}

// A like or a comment made while its post goes private is checked against the post as the
// change left it. Checked against the snapshot, a like would be stored marked public and name
// its liker on the item's public cards (likes.public: the change's trigger, which keeps that
// mark, cannot see a like not yet committed), and a comment would be stored by someone who
// may no longer read the post.
func TestTalkDuringAVisibilityChangeReadsTheNewAccess(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for _, act := range []struct {
		name, table string
		do          func(*db.Store, tributary.Viewer, int64) error
	}{
		{"Like", "likes", func(s *db.Store, v tributary.Viewer, post int64) error {
			return s.Like(ctx, v, post, now.Add(time.Minute))
		}},
		{"AddComment", "comments", func(s *db.Store, v tributary.Viewer, post int64) error {
			_, _, err := s.AddComment(ctx, v, post, "late to this", now.Add(time.Minute), tributary.DefaultBumpRule)
			return err
		}},
	} {
		t.Run(act.name, func(t *testing.T) {
			store := dbtest.Store(t)
			var users []int64
			for _, h := range []string{"ada", "bob"} {
				u, err := store.CreateUser(ctx, db.NewUser{Handle: h, DisplayName: h, CreatedAt: now})
				if err != nil {
					t.Fatal(err)
				}
				users = append(users, u.ID)
			}
			ada, bob := users[0], users[1]
			p, err := tributary.Prepare(tributary.NewPost{AuthorID: ada, URL: "https://arxiv.org/abs/2611.00002", CreatedAt: now})
			if err != nil {
				t.Fatal(err)
			}
			post, err := store.CreatePost(ctx, p)
			if err != nil {
				t.Fatal(err)
			}

			// Ada goes private (bob does not follow her: he may no longer read the post),
			// the change held open after it refolded the post.
			change, err := store.Pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer change.Rollback(ctx)
			if _, err := change.Exec(ctx, `UPDATE feeds SET access = 'private' WHERE owner_id = $1 AND kind = 'posts' AND name = ''`, ada); err != nil {
				t.Fatal(err)
			}
			if _, err := change.Exec(ctx, `UPDATE posts SET is_public = false, private_feed_ids = ARRAY(
				SELECT id FROM feeds WHERE owner_id = $1 AND kind = 'posts' AND name = '') WHERE id = $2`, ada, post); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- act.do(store, tributary.Viewer{ID: bob}, post) }()
			waitForLockWait(t, store, act.name, done)
			if err := change.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-done; tributary.ErrorCode(err) != tributary.ENotFound {
				t.Errorf("%s of a post bob may no longer read: %v, want not found", act.name, err)
			}
			var n int
			if err := store.Pool.QueryRow(ctx, "SELECT count(*) FROM "+act.table+" WHERE post_id = $1", post).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Errorf("bob's %s of a post he may no longer read was stored", act.name)
			}
		})
	}
}

// waitForLockWait waits until the statement named (by sqlc) waits for a lock, and fails the
// test if it does not within 20 s or ends first (done is its end; what it sends is kept).
func waitForLockWait(t *testing.T, store *db.Store, name string, done chan error) {
	t.Helper()
	waitForStatementWait(t, store, "%name: "+name+" ", done)
}

// waitForStatementWait waits until a statement whose text is like pattern waits for a lock,
// or done has a result (the statement did not wait).
func waitForStatementWait(t *testing.T, store *db.Store, pattern string, done chan error) {
	t.Helper()
	waiting := false
	for deadline := time.Now().Add(20 * time.Second); !waiting && len(done) == 0 && time.Now().Before(deadline); {
		if err := store.Pool.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1 || '%')`, pattern).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}
	if !waiting {
		t.Errorf("%q did not wait for the change", pattern)
	}
}
