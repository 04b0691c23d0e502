package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/jackc/pgx/v5"

	"tributary/cluster"
)

// A backup is pg_dump's custom format of the whole database (schema, data, sequences, the
// job queue), taken in one snapshot; a restore loads one into an empty database in one
// transaction. docs/operations.md has the drill.

func cmdBackup(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "backup", "backup --out FILE [flags]")
	var dbf dbFlags
	dbf.register(fs, e)
	out := fs.String("out", "", "write the backup to this file (pg_dump's custom format)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		fs.Usage()
		return fmt.Errorf("backup: --out is required")
	}
	dsn, err := dbf.directDSN(ctx, e)
	if err != nil {
		return err
	}
	bin, err := cluster.Tool("pg_dump")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	tmp := *out + ".partial" // a backup cut short never passes for a whole one
	cmd := exec.CommandContext(ctx, bin, "--format=custom", "--no-owner", "--file", tmp, "--dbname", dsn)
	if b, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("backup: pg_dump: %w\n%s", err, b)
	}
	if err := os.Rename(tmp, *out); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "backup written to %s\n", *out)
	return nil
}

func cmdRestore(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "restore", "restore [flags] FILE")
	var dbf dbFlags
	dbf.register(fs, e)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("restore: name one backup file")
	}
	dsn, err := dbf.directDSN(ctx, e)
	if err != nil {
		return err
	}
	if err := requireEmpty(ctx, dsn); err != nil {
		return err
	}
	bin, err := cluster.Tool("pg_restore")
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, bin, "--no-owner", "--single-transaction", "--exit-on-error", "--dbname", dsn, fs.Arg(0))
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("restore: pg_restore: %w\n%s", err, b)
	}
	fmt.Fprintf(e.stdout, "restored %s\n", fs.Arg(0))
	return nil
}

// directDSN is the database itself (never a pooler: pg_dump and pg_restore hold session
// state), starting the private cluster when no URL is given. It does not migrate.
func (f *dbFlags) directDSN(ctx context.Context, e *env) (string, error) {
	switch {
	case f.directURL != "":
		return f.directURL, nil
	case f.url != "":
		return f.url, nil
	}
	c := f.cluster()
	if err := c.Start(ctx, "tributary", e.stderr); err != nil {
		return "", err
	}
	return c.DSN("tributary"), nil
}

// requireEmpty refuses a database holding any table: a restore goes into a fresh one.
func requireEmpty(ctx context.Context, dsn string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer conn.Close(ctx)
	var tables int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`).Scan(&tables); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if tables > 0 {
		return fmt.Errorf("restore: the database holds %d tables: restore only into an empty database (createdb a fresh one)", tables)
	}
	return nil
}
