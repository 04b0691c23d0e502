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

// A share that redid its item's row just before a full rebuild began, and committed after the
// rebuild read the posts, is redone again after the swap: the rebuild's read could not see it,
// and its row went into the table the swap drops. (Caught up from the rebuild's clock, a share
// whose row was redone a moment before it was lost until the next rebuild.)
func TestAShareAcrossTheStartOfARebuildIsKept(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Store(t)
	now := time.Now()
	var users []tributary.User
	for _, h := range []string{"pia", "otto"} {
		u, err := store.CreateUser(ctx, db.NewUser{Handle: h, DisplayName: h, CreatedAt: now.Add(-time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, u)
	}
	const url = "https://arxiv.org/abs/2611.00002"
	share := func(u tributary.User, title string, at time.Time) error {
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: u.ID, URL: url, Title: title, CreatedAt: at})
		if err != nil {
			return err
		}
		_, err = store.CreatePost(ctx, p)
		return err
	}
	if err := share(users[0], "pia's title", now.Add(-20*time.Minute)); err != nil {
		t.Fatal(err)
	}
	var anchor int64
	if err := store.Pool.QueryRow(ctx, "SELECT anchor_id FROM posts WHERE author_id = $1", users[0].ID).Scan(&anchor); err != nil {
		t.Fatal(err)
	}
	if _, err := store.RefreshSnapshot(ctx, now); err != nil {
		t.Fatal(err)
	}

	// The item's row, held by a transaction that redoes it too: otto's share redoes the row
	// (marking it dirty) and then waits for that transaction before it can commit.
	hold, err := store.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(ctx)
	if _, err := hold.Exec(ctx, "DELETE FROM feed_snapshot WHERE anchor_id = $1", anchor); err != nil {
		t.Fatal(err)
	}
	shared := make(chan error, 1)
	go func() {
		shared <- share(users[1], "otto's title", now.Add(-10*time.Minute))
	}()
	waitForLockWait(t, store, "ClearSnapshotRows", shared)

	// The rebuild starts after the share marked its row, reads the posts without it, and waits
	// to swap until the share commits.
	rebuilt := make(chan error, 1)
	go func() {
		_, err := store.RefreshSnapshot(ctx, now)
		rebuilt <- err
	}()
	waitForStatementWait(t, store, "LOCK TABLE feed_snapshot", rebuilt)
	if err := hold.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	for _, done := range []chan error{shared, rebuilt} {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}

	var title string
	var sharers []int64
	if err := store.Pool.QueryRow(ctx, "SELECT title, sharer_user_ids FROM feed_snapshot WHERE anchor_id = $1", anchor).Scan(&title, &sharers); err != nil {
		t.Fatal(err)
	}
	slices.Sort(sharers)
	if title != "otto's title" || !slices.Equal(sharers, []int64{users[0].ID, users[1].ID}) {
		t.Errorf("after the rebuild the item reads %q shared by %v; want otto's title, shared by both", title, sharers)
	}
}
