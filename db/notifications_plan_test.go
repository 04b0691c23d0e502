package db_test

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"tributary/db"
	"tributary/db/dbtest"
)

// A signed-in request's session read finds its reader's newest notification on the reader's
// own rows. While a btree index ordered the rows by time alone, the generic plan walked it
// backwards through everyone's rows for a reader with none whenever a few readers held most
// rows and the readers' index had grown larger than it (the bench's data: 3 ms at 10,000
// rows): no index may offer that order, and the plan reads none of the others' rows.
func TestSessionReadSkipsOthersNotifications(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.Pool(t)
	store := db.NewStore(pool)
	now := time.Now()
	var users []int64
	for _, h := range []string{"ada", "bob", "carl", "dan"} {
		u, err := store.CreateUser(ctx, db.NewUser{Handle: h, DisplayName: h, CreatedAt: now.Add(-time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, u.ID)
	}
	ada, bob, carl, dan := users[0], users[1], users[2], users[3]
	// Three readers hold every row, written as they come (oldest first): each row goes into
	// the middle of the index of readers' rows, which grows larger than the index of times.
	const held = 9000
	if _, err := pool.Exec(ctx, `INSERT INTO notifications (recipient_id, type, actor_id, created_at)
		SELECT ($1::bigint[])[1 + g % 3], 'mention', $2, now() - ($3 - g) * interval '1 minute' FROM generate_series(1, $3::int) g`,
		[]int64{ada, carl, dan}, bob, held); err != nil {
		t.Fatal(err)
	}
	token := sha256.Sum256([]byte("bob's session"))
	if _, err := pool.Exec(ctx, `INSERT INTO sessions (token_hash, data, expiry, user_id) VALUES ($1, '', now() + interval '1 hour', $2)`,
		token[:], bob); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}

	rows, err := pool.Query(ctx, `SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		JOIN pg_am am ON am.oid = c.relam JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
		WHERE i.indrelid = 'notifications'::regclass AND am.amname = 'btree' AND a.attname = 'created_at'`)
	if err != nil {
		t.Fatal(err)
	}
	timeOrdered, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(timeOrdered) > 0 {
		t.Errorf("notifications has btree indexes led by created_at %v: plans may walk everyone's rows by time", timeOrdered)
	}

	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	var plan string
	for _, sql := range []string{"SET plan_cache_mode = force_generic_plan",
		"PREPARE session_read(bytea) AS SELECT * FROM session_users s WHERE s.token_hash = $1"} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	if err := conn.QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE session_read($1)", pgx.QueryExecModeSimpleProtocol,
		token[:]).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	root := planOf(t, plan)
	if n := root.rowsOf("sessions"); n != 1 {
		t.Fatalf("the plan read %.0f sessions, want bob's", n)
	}
	if n := root.scannedOf("notifications"); n > 0 {
		t.Errorf("bob's session read scanned %.0f rows of notifications (of %d), want none: he has none", n, held)
	}
}
