// Package dbtest gives each test a fresh PostgreSQL database, cloned from a migrated template
// database (fast: a file copy). It uses TEST_DATABASE_URL's server when set, otherwise the
// checkout's private cluster, started on demand.
package dbtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tributary/cluster"
	"tributary/db"
	"tributary/migrations"
)

var (
	setupOnce sync.Once
	setupErr  error
	serverDSN func(dbname string) string
	template  string
	counter   atomic.Int64
)

// DSN returns the connection string of a fresh, migrated database dropped when t ends.
func DSN(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	setupOnce.Do(func() { setupErr = setup(ctx) })
	if setupErr != nil {
		t.Fatalf("dbtest: %v", setupErr)
	}
	name := fmt.Sprintf("test_%d_%d", os.Getpid(), counter.Add(1))
	conn, err := pgx.Connect(ctx, serverDSN("postgres"))
	if err != nil {
		t.Fatalf("dbtest: connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, template)); err != nil {
		t.Fatalf("dbtest: create database: %v", err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, serverDSN("postgres"))
		if err != nil {
			t.Errorf("dbtest: connect for cleanup: %v", err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dbtest: drop database: %v", err)
		}
	})
	return serverDSN(name)
}

// Pool returns a pool on a fresh, migrated database, closed and dropped when t ends.
func Pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool, err := db.Open(context.Background(), DSN(t))
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// Store returns a Store on a fresh, migrated database.
func Store(t testing.TB) *db.Store {
	return db.NewStore(Pool(t))
}

// ServerDSN returns a DSN for database name on the test server (for tests that manage
// databases themselves).
func ServerDSN(t testing.TB, name string) string {
	t.Helper()
	setupOnce.Do(func() { setupErr = setup(context.Background()) })
	if setupErr != nil {
		t.Fatalf("dbtest: %v", setupErr)
	}
	return serverDSN(name)
}

func setup(ctx context.Context) error {
	if url := os.Getenv("TEST_DATABASE_URL"); url != "" {
		if _, err := pgx.ParseConfig(url); err != nil {
			return fmt.Errorf("TEST_DATABASE_URL: %w", err)
		}
		serverDSN = func(name string) string { return replaceDB(url, name) }
	} else {
		root, err := moduleRoot()
		if err != nil {
			return err
		}
		c := cluster.Cluster{Dir: cluster.DefaultDir(root) + "-test"}
		if err := c.Start(ctx, "postgres", io.Discard); err != nil {
			return err
		}
		serverDSN = c.DSN
	}
	return ensureTemplate(ctx)
}

// ensureTemplate creates the template database for the current migrations once per
// server; its name carries a hash of the migrations so a schema change makes a new one.
func ensureTemplate(ctx context.Context) error {
	h := sha256.New()
	err := fs.WalkDir(migrations.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations.FS, path)
		h.Write([]byte(path))
		h.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	h.Write([]byte(db.JobSchemaVersion())) // River's tables, migrated after ours
	template = "tmpl_" + hex.EncodeToString(h.Sum(nil))[:16]

	conn, err := pgx.Connect(ctx, serverDSN("postgres"))
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	// One process builds the template; the others wait on the lock and then find it.
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(7321)"); err != nil {
		return err
	}
	defer conn.Exec(ctx, "SELECT pg_advisory_unlock(7321)")
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate)", template).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+template); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+template); err != nil {
		return err
	}
	pool, err := db.Open(ctx, serverDSN(template))
	if err != nil {
		return err
	}
	err = db.Migrate(ctx, pool)
	pool.Close()
	if err != nil {
		return err
	}
	_, err = conn.Exec(ctx, "ALTER DATABASE "+template+" WITH IS_TEMPLATE true")
	return err
}

// replaceDB points a URL or key=value DSN at another database.
func replaceDB(dsn, name string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		i := strings.LastIndex(dsn, "/")
		rest := ""
		if q := strings.Index(dsn[i:], "?"); q >= 0 {
			rest = dsn[i+q:]
		}
		return dsn[:i+1] + name + rest
	}
	return dsn + " dbname=" + name // a later key wins in key=value DSNs
}

// moduleRoot finds the directory holding go.mod, so every package's tests share a cluster.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("dbtest: go.mod not found above the working directory")
		}
		dir = parent
	}
}

// StockCluster starts a private PostgreSQL server of the test's own with PostgreSQL's default
// settings (as a real server has them), with a migrated database "tributary"; it is stopped
// and removed when t ends. Tests that stop and start the server use it, and tests that must
// hold on a stock server (imports: max_locks_per_transaction 64).
func StockCluster(t testing.TB) (cluster.Cluster, string) {
	t.Helper()
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "tributary-stock-")
	if err != nil {
		t.Fatal(err)
	}
	c := cluster.Cluster{Dir: dir, Stock: true}
	t.Cleanup(func() {
		if err := c.Stop(context.Background()); err != nil {
			t.Errorf("dbtest: stop stock cluster: %v", err)
		}
		os.RemoveAll(dir)
		os.Remove(dir + ".lock") // cluster.Start's lock beside it
	})
	if err := c.Start(ctx, "tributary", io.Discard); err != nil {
		t.Fatalf("dbtest: stock cluster: %v", err)
	}
	dsn := c.DSN("tributary")
	pool, err := db.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	defer pool.Close()
	if err := db.Migrate(ctx, pool); err != nil {
		t.Fatalf("dbtest: migrate: %v", err)
	}
	return c, dsn
}

// Replica starts a streaming replica of the stock cluster primary (pg_basebackup -R) on a
// socket of its own; it is stopped and removed when t ends. It returns the cluster and the
// DSN of its database "tributary".
func Replica(t testing.TB, primary cluster.Cluster) (cluster.Cluster, string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "tributary-replica-")
	if err != nil {
		t.Fatal(err)
	}
	c := cluster.Cluster{Dir: dir, Stock: true}
	t.Cleanup(func() {
		c.Stop(context.Background())
		os.RemoveAll(dir)
		os.Remove(dir + ".lock") // cluster.Start's lock beside it
	})
	if err := c.StartReplicaOf(context.Background(), primary); err != nil {
		t.Fatalf("dbtest: replica: %v", err)
	}
	return c, c.DSN("tributary")
}

// Bouncer puts a PgBouncer in transaction mode (round robin over two server connections, so
// that state left on a connection is not found again) in front of the test server and
// returns the connection string of the database dsn names through it. The test is skipped
// when pgbouncer is not installed.
func Bouncer(t testing.TB, dsn string) string {
	t.Helper()
	if _, err := cluster.BouncerBinary(); err != nil {
		t.Skipf("no PgBouncer, so not tested through one: %v", err)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "tributary-pgbouncer-") // the postgres user must reach it
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	port, err := cluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	b := cluster.Bouncer{Dir: dir, Port: port, ServerHost: cfg.Host, ServerPort: int(cfg.Port), PoolSize: 2, RoundRobin: true}
	if err := b.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Stop(); err != nil {
			t.Error(err)
		}
	})
	return b.DSN(cfg.Database)
}
