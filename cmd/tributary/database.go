package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"tributary/cluster"
	"tributary/db"
)

// dbFlags are the database flags every command shares.
type dbFlags struct {
	url        string
	directURL  string // "" : url itself
	execMode   string
	clusterDir string
}

func (f *dbFlags) register(fs *flag.FlagSet, e *env) {
	fs.StringVar(&f.url, "database-url", e.getenv("DATABASE_URL"),
		"PostgreSQL connection string (env DATABASE_URL); empty starts this checkout's private cluster")
	fs.StringVar(&f.directURL, "direct-database-url", e.getenv("DATABASE_DIRECT_URL"),
		"PostgreSQL itself, when --database-url is a pooler in transaction mode: migrations, the site listener and the snapshot's lock go here (env DATABASE_DIRECT_URL; default --database-url)")
	fs.StringVar(&f.execMode, "db-exec-mode", e.getenv("DATABASE_EXEC_MODE"),
		"how statements are sent: cache_statement (default; named prepared statements), or cache_describe through PgBouncer in transaction mode (env DATABASE_EXEC_MODE)")
	fs.StringVar(&f.clusterDir, "cluster-dir", e.getenv("TRIBUTARY_CLUSTER_DIR"),
		"directory of the private PostgreSQL cluster (env TRIBUTARY_CLUSTER_DIR; default derived from the working directory)")
}

func (f *dbFlags) cluster() cluster.Cluster {
	dir := f.clusterDir
	if dir == "" {
		wd, _ := os.Getwd()
		dir = cluster.DefaultDir(wd)
	}
	return cluster.Cluster{Dir: dir}
}

// options are the connections' settings beyond the URL.
func (f *dbFlags) options() (db.Options, error) {
	mode, err := db.ParseExecMode(f.execMode)
	if err != nil {
		return db.Options{}, fmt.Errorf("--db-exec-mode: %w", err)
	}
	return db.Options{ExecMode: mode}, nil
}

// open connects to DATABASE_URL, or starts the private cluster, and migrates (over the
// direct URL when there is one).
func (f *dbFlags) open(ctx context.Context, e *env) (*pgxpool.Pool, error) {
	opts, err := f.options()
	if err != nil {
		return nil, err
	}
	dsn := f.url
	if dsn == "" {
		c := f.cluster()
		if err := c.Start(ctx, "tributary", e.stderr); err != nil {
			return nil, err
		}
		dsn = c.DSN("tributary")
	}
	pool, err := db.OpenWith(ctx, dsn, opts)
	if err != nil {
		return nil, err
	}
	migrator := pool
	if f.directURL != "" {
		if migrator, err = db.OpenWith(ctx, f.directURL, opts); err != nil {
			pool.Close()
			return nil, fmt.Errorf("--direct-database-url: %w", err)
		}
		defer migrator.Close()
	}
	if err := db.Migrate(ctx, migrator); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// openStore opens the store as open does, its session connections on the direct URL when
// there is one; done closes both pools.
func (f *dbFlags) openStore(ctx context.Context, e *env) (store *db.Store, done func(), err error) {
	pool, err := f.open(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	store = db.NewStore(pool)
	if f.directURL == "" {
		return store, pool.Close, nil
	}
	opts, _ := f.options() // checked by open
	direct, err := db.OpenWith(ctx, f.directURL, opts)
	if err != nil {
		pool.Close()
		return nil, nil, fmt.Errorf("--direct-database-url: %w", err)
	}
	store.Session = direct
	return store, func() { direct.Close(); pool.Close() }, nil
}

func cmdMigrate(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "migrate", "migrate [flags]")
	var dbf dbFlags
	dbf.register(fs, e)
	if err := fs.Parse(args); err != nil {
		return err
	}
	pool, err := dbf.open(ctx, e)
	if err != nil {
		return err
	}
	pool.Close()
	fmt.Fprintln(e.stdout, "migrations applied")
	return nil
}

func cmdCluster(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "cluster", "cluster start|stop|dsn [flags]")
	var dbf dbFlags
	dbf.register(fs, e)
	if len(args) == 0 {
		fs.Usage()
		return fmt.Errorf("cluster: say start, stop or dsn")
	}
	verb := args[0]
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	c := dbf.cluster()
	switch verb {
	case "start":
		if err := c.Start(ctx, "tributary", e.stderr); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, c.DSN("tributary"))
	case "stop":
		if err := c.Stop(ctx); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, "private PostgreSQL cluster stopped")
	case "dsn":
		fmt.Fprintln(e.stdout, c.DSN("tributary"))
	default:
		return fmt.Errorf("cluster: unknown action %q (start, stop or dsn)", verb)
	}
	return nil
}
