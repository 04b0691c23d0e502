package db_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// notified lists who was told what (recipient handle, type, actor handle), sorted.
func notified(t *testing.T, ctx context.Context, store *db.Store) []string {
	t.Helper()
	rows, err := store.Pool.Query(ctx, `SELECT r.handle || ' ' || n.type || ' ' || a.handle FROM notifications n
		JOIN users r ON r.id = n.recipient_id JOIN users a ON a.id = n.actor_id ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// The fan-out of a comment tells the thread's other commenters (not those who muted it,
// nor anyone in a ban with the commenter) and the people it mentions (the first 20 handles),
// each once however often the job runs; follows, requests, approvals and group joins are
// told in their own transaction.
func TestNotificationFanOut(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Store(t)
	now := time.Now()
	users := map[string]tributary.User{}
	var handles []string
	for i := range 25 {
		h := fmt.Sprintf("u%02d", i)
		u, err := store.CreateUser(ctx, db.NewUser{Handle: h, DisplayName: h, CreatedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		users[h], handles = u, append(handles, h)
	}
	id := func(h string) int64 { return users[h].ID }
	access := func(h string) tributary.Viewer {
		v, err := store.ViewerAccess(ctx, id(h))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: id("u00"), URL: "https://example.com/a", Title: "A", CreatedAt: now})
	must(err)
	post, err := store.CreatePost(ctx, p)
	must(err)
	comment := func(h, body string) tributary.Comment {
		t.Helper()
		c, _, err := store.AddComment(ctx, access(h), post, body, now, tributary.DefaultBumpRule)
		must(err)
		return c
	}
	comment("u01", "first")
	comment("u02", "second")
	comment("u03", "third")
	must(store.MuteThread(ctx, id("u02"), post, true))
	must(store.Ban(ctx, id("u03"), id("u04")))
	if _, err := store.Pool.Exec(ctx, "DELETE FROM notifications"); err != nil {
		t.Fatal(err)
	}
	// u04 mentions 22 people (u05..u24 are the first 20 after u01, u00 and u03 are named too).
	body := "@u01 @u00 @u03"
	for _, h := range handles[5:] {
		body += " @" + h
	}
	c := comment("u04", body)
	for range 2 {
		if _, err := store.FanOut(ctx, db.FanOutArgs{PostID: post, CommentID: c.ID}); err != nil {
			t.Fatal(err)
		}
	}
	var want []string
	want = append(want, "u00 comment u04", "u01 mention u04") // u00 is told of the comment itself; u02 muted; u03 banned u04
	for _, h := range handles[5:22] {                         // the first 20 handles: u01, u00, u03 and u05..u21
		want = append(want, h+" mention u04")
	}
	slices.Sort(want)
	if got := notified(t, ctx, store); !slices.Equal(got, want) {
		t.Errorf("after the fan-out:\n got  %s\n want %s", strings.Join(got, ", "), strings.Join(want, ", "))
	}

	// Replies: the thread's commenters hear of u05's comment.
	if _, err := store.Pool.Exec(ctx, "DELETE FROM notifications"); err != nil {
		t.Fatal(err)
	}
	c = comment("u05", "a reply")
	_, err = store.FanOut(ctx, db.FanOutArgs{PostID: post, CommentID: c.ID})
	must(err)
	want = []string{"u00 comment u05", "u01 reply u05", "u03 reply u05", "u04 reply u05"} // u02 muted the thread
	if got := notified(t, ctx, store); !slices.Equal(got, want) {
		t.Errorf("after a reply:\n got  %s\n want %s", strings.Join(got, ", "), strings.Join(want, ", "))
	}

	// Follows, requests and approvals; group join requests to the admins and approvals.
	if _, err := store.Pool.Exec(ctx, "DELETE FROM notifications"); err != nil {
		t.Fatal(err)
	}
	_, err = store.Follow(ctx, id("u06"), id("u07"))
	must(err)
	must(store.SetVisibility(ctx, id("u08"), "private", now))
	_, err = store.Follow(ctx, id("u06"), id("u08"))
	must(err)
	must(store.Approve(ctx, id("u08"), id("u06")))
	g, err := store.CreateGroup(ctx, id("u09"), "club", "", "public", true)
	must(err)
	_, err = store.Join(ctx, g, id("u10"))
	must(err)
	must(store.ApproveMember(ctx, g, id("u09"), id("u10")))
	want = []string{"u06 follow_approved u08", "u07 follow u06", "u08 follow_request u06", "u09 join_request u10", "u10 join_approved u09"}
	if got := notified(t, ctx, store); !slices.Equal(got, want) {
		t.Errorf("follows and joins:\n got  %s\n want %s", strings.Join(got, ", "), strings.Join(want, ", "))
	}

	// Older than 90 days: pruned.
	if _, err := store.Pool.Exec(ctx, "UPDATE notifications SET created_at = now() - interval '91 days' WHERE type = 'follow'"); err != nil {
		t.Fatal(err)
	}
	n, err := store.PruneNotifications(ctx, now.Add(-90*24*time.Hour))
	if err != nil || n != 1 {
		t.Errorf("prune: %d, %v; want 1", n, err)
	}
}
