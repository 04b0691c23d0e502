// Package db is Tributary's storage: the connection pool, migrations, and the Store that wraps
// sqlc-generated queries and returns domain types.
package db

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"tributary/migrations"
)

// Options are how the app's connections are made beyond what the connection string says.
type Options struct {
	// ExecMode is how pgx sends statements (ParseExecMode); the zero value keeps pgx's
	// default, named prepared statements cached per connection.
	ExecMode pgx.QueryExecMode
}

// ExecModes names the statement modes an operator may choose. cache_describe works through
// a pooler in transaction mode (PgBouncer before 1.21), which cannot keep a connection's
// prepared statements from one transaction to the next: it sends each statement as an
// unnamed one, parsed, bound and run in one round trip. (pgx's describe_exec mode describes
// in a round trip of its own, which a pooler may send to another server connection; exec
// and simple_protocol guess parameters' types from Go's and send a jsonb value as bytea.)
var ExecModes = map[string]pgx.QueryExecMode{
	"cache_statement": pgx.QueryExecModeCacheStatement,
	"cache_describe":  pgx.QueryExecModeCacheDescribe,
}

// ParseExecMode reads a statement mode's name; "" is the default (cache_statement).
func ParseExecMode(name string) (pgx.QueryExecMode, error) {
	if name == "" {
		return 0, nil
	}
	m, ok := ExecModes[name]
	if !ok {
		return 0, fmt.Errorf("db: unknown exec mode %q (cache_statement or cache_describe)", name)
	}
	return m, nil
}

// Open connects a pool and checks the database answers.
func Open(ctx context.Context, dsn string) (*pgxpool.Pool, error) {
	return OpenWith(ctx, dsn, Options{})
}

// OpenWith connects a pool made as opts says and checks the database answers.
func OpenWith(ctx context.Context, dsn string, opts Options) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("db: parse DATABASE_URL: %w", err)
	}
	requestSettings(cfg, opts)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("db: open: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("db: ping: %w", err)
	}
	return pool, nil
}

// OpenReplica connects a pool to a read replica lazily: a replica that is down when the
// server starts is used once it answers (the replica check decides).
func OpenReplica(ctx context.Context, dsn string, opts Options) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("db: parse replica URL: %w", err)
	}
	requestSettings(cfg, opts)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("db: open replica: %w", err)
	}
	return pool, nil
}

// requestSettings sets what the app's connections run with, unless the URL sets it: requests
// are short and many run at once, and a parallel plan's worker start-up costs more than it
// saves and takes cores from the other requests. (A pooler passes no such startup
// parameter on: docs/operations.md sets it on the database instead.)
func requestSettings(cfg *pgxpool.Config, opts Options) {
	if opts.ExecMode != 0 {
		cfg.ConnConfig.DefaultQueryExecMode = opts.ExecMode
	}
	if _, set := cfg.ConnConfig.RuntimeParams["max_parallel_workers_per_gather"]; !set {
		cfg.ConnConfig.RuntimeParams["max_parallel_workers_per_gather"] = "0"
	}
}

// Migrate applies every pending goose migration, then River's (the job queue's tables);
// applied ones are skipped.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	sqlDB := stdlib.OpenDBFromPool(pool)
	defer sqlDB.Close()
	if err := migrate(ctx, sqlDB); err != nil {
		return err
	}
	return migrateJobs(ctx, pool)
}

func migrate(ctx context.Context, sqlDB *sql.DB) error {
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS)
	if err != nil {
		return fmt.Errorf("db: migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("db: migrate: %w", err)
	}
	return nil
}
