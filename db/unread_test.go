package db_test

import (
	"context"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// The unread count an instance keeps is used while the session read finds nothing it can
// see changed (a new notification, a read-up-to marker, a ban: counted again at once), and
// dropped when the site's change log says a notification was read or removed or a post's
// access changed.
func TestUnreadCountKeptUntilAChangeSaysOtherwise(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Store(t)
	store.KeepUnread(func() bool { return true })
	ss := store.Sessions()
	log := db.NewSiteLog(store.Pool)
	var from int64
	hear := func() { // what the site listener does
		t.Helper()
		changes, next, err := log.Since(ctx, from)
		if err != nil {
			t.Fatal(err)
		}
		from = next
		store.UnreadHeard(changes, false)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	hear() // from now on
	now := time.Now()
	users := map[string]tributary.User{}
	for _, h := range []string{"ann", "bob", "cy"} {
		u, err := store.CreateUser(ctx, db.NewUser{Handle: h, DisplayName: h, CreatedAt: now})
		must(err)
		users[h] = u
	}
	access := func(h string) tributary.Viewer {
		v, err := store.ViewerAccess(ctx, users[h].ID)
		must(err)
		return v
	}
	token := "ann-token"
	b, err := db.SessionCodec{}.Encode(now.Add(time.Hour), map[string]any{db.SessionUserKey: users["ann"].ID})
	must(err)
	must(ss.CommitCtx(ctx, token, b, now.Add(time.Hour)))
	badge := func() int {
		t.Helper()
		rctx, su := db.WithSessionUser(ctx)
		if _, ok, err := ss.FindCtx(rctx, token); err != nil || !ok {
			t.Fatalf("session read: %v %v", ok, err)
		}
		return su.Unread
	}
	expect := func(when string, want int) {
		t.Helper()
		if got := badge(); got != want {
			t.Errorf("%s: the badge says %d, want %d", when, got, want)
		}
	}
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: users["ann"].ID, URL: "https://example.com/a", Title: "A", CreatedAt: now})
	must(err)
	post, err := store.CreatePost(ctx, p)
	must(err)
	comment := func(h string) tributary.Comment {
		t.Helper()
		c, _, err := store.AddComment(ctx, access(h), post, "hello", time.Now(), tributary.DefaultBumpRule)
		must(err)
		return c
	}
	expect("at first", 0)
	bobs := comment("bob")
	expect("after bob's comment", 1) // a new newest notification: counted again
	comment("cy")
	expect("after cy's comment", 2)
	hear()
	expect("read again", 2)

	// A notification removed is not seen by the read: the kept count stands until the
	// change is heard, then the count is read again.
	_, err = store.DeleteComment(ctx, access("bob"), bobs.ID)
	must(err)
	expect("bob's comment deleted, not yet heard", 2)
	hear()
	expect("bob's comment deleted, heard", 1)

	// A ban is seen by the read itself.
	must(store.Ban(ctx, users["ann"].ID, users["cy"].ID))
	expect("cy banned", 0)
	must(store.Unban(ctx, users["ann"].ID, users["cy"].ID))
	expect("cy unbanned", 1)
	hear()

	// So is the read-up-to marker, on whichever instance it moved.
	bobs = comment("bob")
	expect("bob comments again", 2)
	must(store.MarkNotificationsRead(ctx, users["ann"].ID, time.Now()))
	expect("all read", 0)
	hear()

	// A post's access is seen by the read itself: bob mentions ann, then goes private.
	p2, err := tributary.Prepare(tributary.NewPost{AuthorID: users["bob"].ID, URL: "https://example.com/b", Title: "B", Body: "cc @ann", CreatedAt: time.Now()})
	must(err)
	note, err := store.CreatePost(ctx, p2)
	must(err)
	_, err = store.FanOut(ctx, db.FanOutArgs{PostID: note})
	must(err)
	hear()
	expect("bob mentions ann", 1)
	expect("read again", 1)
	must(store.SetVisibility(ctx, users["bob"].ID, "private", time.Now()))
	expect("bob's post gone private", 0)
	hear()
	must(store.DeletePost(ctx, users["ann"].ID, post, time.Now()))
	expect("ann's post deleted", 0)

	// Kept under a change heard while the count was read: never (the next read counts).
	store.UnreadHeard(nil, true)
	expect("after a reset", 0)
}
