package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tributary"
	"tributary/cluster"
	"tributary/db"
	"tributary/db/dbtest"
	"tributary/seed"
)

// The restore drill: a backup of a site with users, posts, likes, comments and sessions,
// restored into a fresh cluster, holds the same rows in every table, the same sequence
// positions (new rows take new ids), and serves the same post pages; a restore into a
// database that holds tables is refused.
func TestBackupRestoreDrill(t *testing.T) {
	ctx := context.Background()
	src := dbtest.DSN(t)
	pool, err := db.Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	store := db.NewStore(pool)
	if _, err := seed.Fill(ctx, store, seed.Config{Users: 80, Posts: 400, Seed: 5, End: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		DemoPasswordHash: "$2a$04$test-hash", DemoPassword: "tributary"}); err != nil {
		t.Fatal(err)
	}
	if err := store.Sessions().Commit("a-session-token", []byte("data"), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}

	file := filepath.Join(t.TempDir(), "site.dump")
	if out, err := runCmd(t, "backup", "--database-url", src, "--out", file); err != nil {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	dir, err := os.MkdirTemp("", "tributary-restore-")
	if err != nil {
		t.Fatal(err)
	}
	fresh := cluster.Cluster{Dir: dir}
	t.Cleanup(func() {
		fresh.Stop(context.Background())
		os.RemoveAll(dir)
		os.Remove(dir + ".lock")
	})
	if err := fresh.Start(ctx, "restored", io.Discard); err != nil {
		t.Fatal(err)
	}
	dst := fresh.DSN("restored")
	if out, err := runCmd(t, "restore", "--database-url", dst, file); err != nil {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	if _, err := runCmd(t, "restore", "--database-url", dst, file); err == nil {
		t.Errorf("a second restore into the restored database was not refused")
	}

	rpool, err := db.Open(ctx, dst)
	if err != nil {
		t.Fatal(err)
	}
	defer rpool.Close()
	want, got := fingerprint(t, pool), fingerprint(t, rpool)
	if len(want) < 10 {
		t.Fatalf("only %d tables and sequences fingerprinted: %v", len(want), want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: restored %q, backed up %q", name, got[name], w)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: restored, not in the source", name)
		}
	}

	// A sample of post pages as a reader sees them.
	restored := db.NewStore(rpool)
	rows, err := pool.Query(ctx, `SELECT id, author_id FROM posts WHERE deleted_at IS NULL ORDER BY id LIMIT 20`)
	if err != nil {
		t.Fatal(err)
	}
	type sample struct{ post, author int64 }
	var samples []sample
	for rows.Next() {
		var s sample
		if err := rows.Scan(&s.post, &s.author); err != nil {
			t.Fatal(err)
		}
		samples = append(samples, s)
	}
	if rows.Err() != nil || len(samples) == 0 {
		t.Fatalf("no posts to sample: %v", rows.Err())
	}
	for _, s := range samples {
		page := func(st *db.Store) any {
			v, err := st.ViewerAccess(ctx, s.author)
			if err != nil {
				t.Fatal(err)
			}
			p, likers, err := st.PostPage(ctx, v, s.post, 20)
			if err != nil {
				t.Fatal(err)
			}
			thread, err := st.PostThread(ctx, v, s.post, tributary.ThreadCursor{}, 50)
			if err != nil {
				t.Fatal(err)
			}
			return []any{p, likers, thread}
		}
		if w, g := page(store), page(restored); !reflect.DeepEqual(w, g) {
			t.Errorf("post %d's page: restored\n  %+v\nbacked up\n  %+v", s.post, g, w)
		}
	}
}

// runCmd runs a tributary command and returns what it printed.
func runCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), args, func(string) string { return "" }, &out, &out)
	return out.String(), err
}

// fingerprint is each table's row count and a hash of its rows in order, and each
// sequence's position.
func fingerprint(t *testing.T, pool *pgxpool.Pool) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	rows, err := pool.Query(ctx, `SELECT schemaname, tablename FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []pgx.Identifier
	for rows.Next() {
		var schema, name string
		if err := rows.Scan(&schema, &name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, pgx.Identifier{schema, name})
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	for _, tbl := range tables {
		var fp string
		q := `SELECT count(*) || ' rows ' || coalesce(md5(string_agg(t::text, E'\n' ORDER BY t::text)), '') FROM ` + tbl.Sanitize() + ` t`
		if err := pool.QueryRow(ctx, q).Scan(&fp); err != nil {
			t.Fatalf("%s: %v", tbl.Sanitize(), err)
		}
		out["table "+tbl.Sanitize()] = fp
	}
	seqs, err := pool.Query(ctx, `SELECT schemaname || '.' || sequencename, coalesce(last_value::text, 'unused') FROM pg_sequences`)
	if err != nil {
		t.Fatal(err)
	}
	for seqs.Next() {
		var name, v string
		if err := seqs.Scan(&name, &v); err != nil {
			t.Fatal(err)
		}
		out["sequence "+name] = v
	}
	if seqs.Err() != nil {
		t.Fatal(seqs.Err())
	}
	return out
}
