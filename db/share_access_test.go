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
	// The share waits for the change (or, unlocked, is done already).
	waiting := false
	for deadline := time.Now().Add(20 * time.Second); !waiting && len(shared) == 0 && time.Now().Before(deadline); {
		if err := store.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%InsertPost%')`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}
	if !waiting {
		t.Error("the share did not wait for the change of its feed's access")
	}
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
