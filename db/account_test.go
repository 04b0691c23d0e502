package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"tributary/db"
	"tributary/db/dbtest"
	"tributary/migrations"
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

// Migration 42 hashes the tokens of the sessions it finds: nobody is logged out by it.
func TestMigrationKeepsExistingSessions(t *testing.T) {
	ctx := context.Background()
	dsn := dbtest.DSN(t)
	pool, err := db.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	sqlDB := stdlib.OpenDBFromPool(pool)
	defer sqlDB.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(ctx, 41); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := pool.QueryRow(ctx, `INSERT INTO users (handle, display_name, password_hash, created_at)
		VALUES ('ada', 'Ada', 'x', now()) RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Hour)
	data, err := db.SessionData(id, deadline)
	if err != nil {
		t.Fatal(err)
	}
	const token = "a-token-from-before-migration-42_0123456789"
	if _, err := pool.Exec(ctx, "INSERT INTO sessions (token, data, expiry, user_id) VALUES ($1, $2, $3, $4)",
		token, data, deadline, id); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	fresh, err := db.Open(ctx, dsn) // statements prepared before the migration describe the old table
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	sctx, su := db.WithSessionUser(ctx)
	if _, found, err := db.NewStore(fresh).Sessions().FindCtx(sctx, token); err != nil || !found || su.User.ID != id {
		t.Errorf("the session from before the migration: found %v, user %d (want %d), err %v", found, su.User.ID, id, err)
	}
}
