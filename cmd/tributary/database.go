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
	clusterDir string
}

func (f *dbFlags) register(fs *flag.FlagSet, e *env) {
	fs.StringVar(&f.url, "database-url", e.getenv("DATABASE_URL"),
		"PostgreSQL connection string (env DATABASE_URL); empty starts this checkout's private cluster")
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

// open connects to DATABASE_URL, or starts the private cluster, and migrates.
func (f *dbFlags) open(ctx context.Context, e *env) (*pgxpool.Pool, error) {
	dsn := f.url
	if dsn == "" {
		c := f.cluster()
		if err := c.Start(ctx, "tributary", e.stderr); err != nil {
			return nil, err
		}
		dsn = c.DSN("tributary")
	}
	pool, err := db.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
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
