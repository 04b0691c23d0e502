package db_test

import (
	"context"
	"testing"
	"time"

	"tributary/db"
	"tributary/db/dbtest"
)

// A request still running when its session is ended (another browser changed the password)
// writes its session at its end, as scs does: the session must stay ended. A session the
// request did not read (a new token) is written anew.
func TestEndedSessionStaysEndedAfterARequestInFlight(t *testing.T) {
	s := dbtest.Store(t)
	ctx := context.Background()
	u, err := s.CreateUser(ctx, db.NewUser{Handle: "ada", DisplayName: "Ada", PasswordHash: "x", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	ss := s.Sessions()
	deadline := time.Now().Add(time.Hour)
	data, err := db.SessionData(u.ID, deadline)
	if err != nil {
		t.Fatal(err)
	}
	if err := ss.CommitCtx(ctx, "token-in-flight", data, deadline); err != nil {
		t.Fatal(err)
	}

	reqCtx, _ := db.WithSessionUser(ctx) // the request reads its session...
	if _, found, err := ss.FindCtx(reqCtx, "token-in-flight"); err != nil || !found {
		t.Fatalf("the session is not found (%v)", err)
	}
	if err := s.ChangePassword(ctx, u.ID, "y", ""); err != nil { // ...another ends it...
		t.Fatal(err)
	}
	if err := ss.CommitCtx(reqCtx, "token-in-flight", data, deadline); err != nil { // ...and it writes it
		t.Fatal(err)
	}
	if _, found, err := ss.FindCtx(ctx, "token-in-flight"); err != nil || found {
		t.Errorf("the ended session is back after the request in flight wrote it (found %v, err %v)", found, err)
	}

	newCtx, _ := db.WithSessionUser(ctx)
	if err := ss.CommitCtx(newCtx, "new-token", data, deadline); err != nil {
		t.Fatal(err)
	}
	if _, found, err := ss.FindCtx(ctx, "new-token"); err != nil || !found {
		t.Errorf("a new session was not written (found %v, err %v)", found, err)
	}
}
