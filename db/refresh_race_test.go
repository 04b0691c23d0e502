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

// A user's change of standing (a VIP flag) made in a transaction begun before an incremental
// refresh and committed after it read the changes is redone by the next refresh: the log is
// read from the oldest transaction running when the last refresh began, not from its clock.
func TestAUserChangeAcrossARefreshIsRedoneByTheNext(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Store(t)
	start := time.Now()
	u, err := store.CreateUser(ctx, db.NewUser{Handle: "vic", DisplayName: "Vic", CreatedAt: start.Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: u.ID, URL: "https://arxiv.org/abs/2611.00003", CreatedAt: start.Add(-time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreatePost(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := store.RefreshSnapshot(ctx, start); err != nil {
		t.Fatal(err)
	}

	change, err := store.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer change.Rollback(ctx)
	if _, err := change.Exec(ctx, "UPDATE users SET vip = true WHERE id = $1", u.ID); err != nil {
		t.Fatal(err)
	}
	first := time.Now()
	if _, err := store.RefreshSince(ctx, start, first); err != nil {
		t.Fatal(err)
	}
	if err := change.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := store.RefreshSince(ctx, first, time.Now()); err != nil {
		t.Fatal(err)
	}
	var vip bool
	if err := store.Pool.QueryRow(ctx, "SELECT any_vip_sharer FROM feed_snapshot f JOIN posts p ON p.anchor_id = f.anchor_id WHERE p.author_id = $1", u.ID).Scan(&vip); err != nil {
		t.Fatal(err)
	}
	if !vip {
		t.Error("the item of a user made a VIP across a refresh is not a VIP's after the next")
	}
}
