package db_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// A share to one's own feed is three round trips in its transaction: its BEGIN goes with the
// insert, the item's lock with the read of its posts, and the item's snapshot row with the
// COMMIT.
func TestAShareIsThreeRoundTrips(t *testing.T) {
	ctx := context.Background()
	store, log := dbtest.TracedStore(t)
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	u, err := store.CreateUser(ctx, db.NewUser{Handle: "ada", DisplayName: "Ada", CreatedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	share := func(url string) {
		t.Helper()
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: u.ID, URL: url, Title: "A paper", CreatedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		if id, err := store.CreatePost(ctx, p); err != nil || id == 0 {
			t.Fatalf("share %s: id %d, %v", url, id, err)
		}
	}
	share("https://arxiv.org/abs/2611.00001") // statements prepared on the connection
	log.Unnamed = true
	log.TakeTrips()
	share("https://arxiv.org/abs/2611.00002")
	got := log.TakeTrips()
	want := [][]string{
		{"BEGIN", "SELECT", "InsertPost"},
		{"LockAnchors", "PostFactsByAnchors"},
		{"ClearSnapshotRows", "INSERT", "COMMIT"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("a share ran %v, want %v", got, want)
	}

	var posts, rows, feedPosts int64
	if err := store.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM posts), (SELECT count(*) FROM feed_snapshot),
		(SELECT count(*) FROM feed_posts fp JOIN feeds f ON f.id = fp.feed_id WHERE f.owner_id = $1 AND f.kind = 'posts')`, u.ID).
		Scan(&posts, &rows, &feedPosts); err != nil {
		t.Fatal(err)
	}
	if posts != 2 || rows != 2 || feedPosts != 2 {
		t.Errorf("after two shares: %d posts, %d snapshot rows, %d in ada's feed; want 2 of each", posts, rows, feedPosts)
	}
}

// A held write goes with the next statement, which sees it, or with the commit; when it
// fails, the transaction fails with its error and nothing of it is kept, and the connection
// serves the next transaction.
func TestPipedTransactionsHoldWrites(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Store(t)
	if _, err := store.Pool.Exec(ctx, "CREATE TABLE scratch (n int)"); err != nil {
		t.Fatal(err)
	}
	count := func() int64 {
		t.Helper()
		var n int64
		if err := store.Pool.QueryRow(ctx, "SELECT count(*) FROM scratch").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	insert := db.PipedStmt{SQL: "INSERT INTO scratch VALUES (1)", Held: true}
	tests := []struct {
		name      string
		stmts     []db.PipedStmt
		wantReads []int64
		wantErr   string
		wantRows  int64
	}{
		{name: "held to the commit", stmts: []db.PipedStmt{insert, insert}, wantRows: 2},
		{name: "held before a read", stmts: []db.PipedStmt{insert, {SQL: "SELECT count(*) FROM scratch"}, insert},
			wantReads: []int64{1}, wantRows: 2},
		{name: "a held write fails at the commit", stmts: []db.PipedStmt{insert, {SQL: "SELECT 1/0", Held: true}},
			wantErr: "division by zero"},
		{name: "a held write fails with the read", stmts: []db.PipedStmt{insert, {SQL: "SELECT 1/0", Held: true}, {SQL: "SELECT 1"}},
			wantErr: "division by zero"},
		{name: "a read fails", stmts: []db.PipedStmt{insert, {SQL: "SELECT count(*) FROM nowhere"}},
			wantErr: `relation "nowhere" does not exist`},
		{name: "nothing", stmts: nil},
		// A transaction that went on past a failed statement does not commit.
		{name: "a failed read not returned", stmts: []db.PipedStmt{insert, {SQL: "SELECT 1/0", Swallow: true}},
			wantReads: []int64{0}, wantErr: "division by zero"},
		// The read's first row came: the error of its second is the statement's alone.
		{name: "a failed read not returned, its first row read", stmts: []db.PipedStmt{insert, {SQL: "SELECT 1/(n-1) FROM generate_series(2, 1, -1) AS n", Swallow: true}},
			wantReads: []int64{1}, wantErr: "commit unexpectedly resulted in rollback"},
		{name: "a failed held write not returned", stmts: []db.PipedStmt{insert, {SQL: "SELECT 1/0", Held: true}, {SQL: "SELECT 1", Swallow: true}, insert},
			wantReads: []int64{0}, wantErr: "division by zero"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := store.Pool.Exec(ctx, "TRUNCATE scratch"); err != nil {
				t.Fatal(err)
			}
			reads, err := db.PipedTx(ctx, store, tc.stmts)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			if !slices.Equal(reads, tc.wantReads) {
				t.Errorf("reads %v, want %v", reads, tc.wantReads)
			}
			if n := count(); n != tc.wantRows {
				t.Errorf("%d rows kept, want %d", n, tc.wantRows)
			}
			// The next transaction runs as usual.
			if reads, err := db.PipedTx(ctx, store, []db.PipedStmt{{SQL: "SELECT 7"}}); err != nil || !slices.Equal(reads, []int64{7}) {
				t.Errorf("the next transaction read %v, %v", reads, err)
			}
		})
	}
}
