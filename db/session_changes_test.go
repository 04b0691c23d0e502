package db_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"tributary/db"
	"tributary/db/dbtest"
)

// A signed-in session that ends (deleted, or left by its user) is logged in the site's change
// log naming its user, so that every instance ends that reader's open streams; an anonymous
// session's end, and a session written again by the same user, log nothing.
func TestEndedSessionsAreLoggedWithTheirUsers(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Store(t)
	ss := store.Sessions()
	log := db.NewSiteLog(store.Pool)
	var from int64
	seen := map[int64]bool{}              // Since reads a change again while an older transaction runs
	heard := func() (readers [][]int64) { // the sessions changes since the last call
		t.Helper()
		changes, next, err := log.Since(ctx, from)
		if err != nil {
			t.Fatal(err)
		}
		from = next
		for _, c := range changes {
			if c.Kind == "sessions" && !seen[c.ID] {
				seen[c.ID] = true
				if !c.Live() {
					t.Errorf("a sessions change fences the replica: %+v", c)
				}
				readers = append(readers, c.Readers)
			}
		}
		return readers
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	heard()
	now := time.Now()
	ann, err := store.CreateUser(ctx, db.NewUser{Handle: "ann", DisplayName: "Ann", CreatedAt: now})
	must(err)
	bob, err := store.CreateUser(ctx, db.NewUser{Handle: "bob", DisplayName: "Bob", CreatedAt: now})
	must(err)
	commit := func(token string, user int64) {
		t.Helper()
		values := map[string]any{"flash": "hello"}
		if user != 0 {
			values[db.SessionUserKey] = user
		}
		b, err := db.SessionCodec{}.Encode(now.Add(time.Hour), values)
		must(err)
		must(ss.CommitCtx(ctx, token, b, now.Add(time.Hour)))
	}
	commit("anon", 0)
	commit("ann-laptop", ann.ID)
	commit("ann-phone", ann.ID)
	commit("bob", bob.ID)
	commit("ann-laptop", ann.ID) // a request's session written again
	if got := heard(); len(got) != 0 {
		t.Fatalf("sessions begun and written again: changes %v, want none", got)
	}
	must(ss.DeleteCtx(ctx, "anon"))
	if got := heard(); len(got) != 0 {
		t.Fatalf("an anonymous session ended: changes %v, want none", got)
	}
	must(ss.DeleteCtx(ctx, "ann-laptop"))
	if got := heard(); !slices.EqualFunc(got, [][]int64{{ann.ID}}, slices.Equal) {
		t.Fatalf("ann logged out: changes %v, want one naming ann (%d)", got, ann.ID)
	}
	commit("ann-phone", bob.ID) // the session changes hands
	if got := heard(); !slices.EqualFunc(got, [][]int64{{ann.ID}}, slices.Equal) {
		t.Fatalf("ann's session now bob's: changes %v, want one naming ann (%d)", got, ann.ID)
	}
	if _, err := store.Pool.Exec(ctx, "DELETE FROM sessions"); err != nil {
		t.Fatal(err)
	}
	if got := heard(); len(got) != 1 || !slices.Equal(got[0], []int64{bob.ID}) {
		t.Fatalf("every session swept: changes %v, want one naming bob (%d)", got, bob.ID)
	}
}
