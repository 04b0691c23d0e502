// Package db is Tributary's storage: the connection pool, migrations, and the Store that wraps
// sqlc-generated queries and returns domain types.
package db

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"tributary/migrations"
)

// Open connects a pool and checks the database answers.
func Open(ctx context.Context, dsn string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("db: parse DATABASE_URL: %w", err)
	}
	requestSettings(cfg)
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
func OpenReplica(ctx context.Context, dsn string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("db: parse replica URL: %w", err)
	}
	requestSettings(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("db: open replica: %w", err)
	}
	return pool, nil
}

// requestSettings sets what the app's connections run with, unless the URL sets it: requests
// are short and many run at once, and a parallel plan's worker start-up costs more than it
// saves and takes cores from the other requests.
func requestSettings(cfg *pgxpool.Config) {
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
