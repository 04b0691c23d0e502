package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tributary/cluster"
	"tributary/db"
	"tributary/migrations"
)

// Dataset is what `tributary seed` is asked for, and what the bench database holds.
type Dataset struct {
	Users  int   `json:"users"`
	Posts  int   `json:"posts"`
	Events int   `json:"events_requested"` // 0: the seeder's default (12 per post)
	Seed   int64 `json:"seed"`
}

// FullDataset is the bench dataset; QuickDataset is --quick's. Scales are the
// datasets --scale names, for the cost-growth table: a tenth of the full one, the full one,
// ten times it (500,000 users, 4M posts over the same 180 days).
var (
	FullDataset  = Dataset{Users: 50_000, Posts: 400_000, Seed: 7}
	QuickDataset = Dataset{Users: 3_000, Posts: 20_000, Seed: 7}
	Scales       = map[string]Dataset{
		"40k":  {Users: 5_000, Posts: 40_000, Seed: 7},
		"400k": FullDataset,
		"4m":   {Users: 500_000, Posts: 4_000_000, Seed: 7},
	}
)

// datasetFormat changes when the bench's own bookkeeping or the seeder's output changes (4:
// posts carry their mentions): a new value reseeds.
const datasetFormat = "4"

// DatasetInfo describes the seeded database; it is stored in bench_dataset so that the next
// run reuses the data instead of seeding again.
type DatasetInfo struct {
	Dataset
	SchemaHash  string    `json:"schema_hash"`
	SeededAt    time.Time `json:"seeded_at"`
	SeedSeconds float64   `json:"seed_seconds"` // seeding, VACUUM (ANALYZE) included
	Reused      bool      `json:"reused"`       // this run found the data in place
	// Counts of what is there, and the largest seeded ids: rows beyond them were written by
	// an earlier bench run and are deleted before the next one.
	UserCount, FollowCount, PostCount, AnchorCount, EventCount int64
	MaxPost, MaxAnchor, MaxEvent                               int64
}

// schemaHash fingerprints the migrations, one "file:hash" per migration in order, after the
// bench's own format version.
func schemaHash() string {
	parts := []string{"v" + datasetFormat}
	fs.WalkDir(migrations.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".sql") {
			return err
		}
		b, err := fs.ReadFile(migrations.FS, path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		parts = append(parts, path+":"+hex.EncodeToString(sum[:6]))
		return nil
	})
	return strings.Join(parts, " ")
}

// schemaCompatible reports whether data seeded under the migrations fingerprinted by seeded
// still fits the current ones: the same migrations, or new ones added after them (the
// server applies those when it starts). A migration edited in place means a new dataset.
func schemaCompatible(seeded, current string) bool {
	return current == seeded || strings.HasPrefix(current, seeded+" ")
}

const datasetTable = `CREATE TABLE IF NOT EXISTS bench_dataset (
	id           boolean PRIMARY KEY DEFAULT true CHECK (id),
	users        integer     NOT NULL,
	posts        integer     NOT NULL,
	events       integer     NOT NULL,
	seed         bigint      NOT NULL,
	schema_hash  text        NOT NULL,
	seeded_at    timestamptz NOT NULL,
	seed_seconds float8      NOT NULL,
	max_post     bigint      NOT NULL,
	max_anchor   bigint      NOT NULL,
	max_event    bigint      NOT NULL
)`

// storedDataset reads bench_dataset; ok is false when the database holds no bench data.
func storedDataset(ctx context.Context, pool *pgxpool.Pool) (DatasetInfo, bool, error) {
	var exists bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('bench_dataset') IS NOT NULL`).Scan(&exists); err != nil {
		return DatasetInfo{}, false, fmt.Errorf("bench: dataset: %w", err)
	}
	if !exists {
		return DatasetInfo{}, false, nil
	}
	var d DatasetInfo
	err := pool.QueryRow(ctx, `SELECT users, posts, events, seed, schema_hash, seeded_at, seed_seconds, max_post, max_anchor, max_event
		FROM bench_dataset`).Scan(&d.Users, &d.Posts, &d.Events, &d.Seed, &d.SchemaHash, &d.SeededAt, &d.SeedSeconds,
		&d.MaxPost, &d.MaxAnchor, &d.MaxEvent)
	if errors.Is(err, pgx.ErrNoRows) {
		return DatasetInfo{}, false, nil
	}
	if err != nil {
		return DatasetInfo{}, false, fmt.Errorf("bench: dataset: %w", err)
	}
	return d, true, nil
}

// hasData reports whether the database has users (seeded or not).
func hasData(ctx context.Context, pool *pgxpool.Pool) (bool, error) {
	var exists bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('users') IS NOT NULL`).Scan(&exists); err != nil || !exists {
		return false, err
	}
	var any bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM users)`).Scan(&any); err != nil {
		return false, fmt.Errorf("bench: check database: %w", err)
	}
	return any, nil
}

// seed runs `tributary seed` on the bench database (which ends with VACUUM (ANALYZE): the
// visibility map a steady-state database has, so index-only scans are index-only), and
// records the dataset.
func seed(ctx context.Context, bin, dsn string, want Dataset, pool *pgxpool.Pool, log io.Writer) (DatasetInfo, error) {
	start := time.Now()
	args := []string{"seed", "--database-url", dsn, "--users", strconv.Itoa(want.Users),
		"--posts", strconv.Itoa(want.Posts), "--seed", strconv.FormatInt(want.Seed, 10)}
	if want.Events > 0 {
		args = append(args, "--events", strconv.Itoa(want.Events))
	}
	fmt.Fprintf(log, "bench: seeding %d users, %d posts (seed %d); this happens once per dataset\n", want.Users, want.Posts, want.Seed)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return DatasetInfo{}, fmt.Errorf("bench: tributary seed: %w", err)
	}
	d := DatasetInfo{Dataset: want, SchemaHash: schemaHash(), SeededAt: time.Now().UTC(), SeedSeconds: time.Since(start).Seconds()}
	err := pool.QueryRow(ctx, `SELECT coalesce((SELECT max(id) FROM posts), 0), coalesce((SELECT max(id) FROM anchors), 0),
		coalesce((SELECT max(id) FROM events), 0)`).Scan(&d.MaxPost, &d.MaxAnchor, &d.MaxEvent)
	if err != nil {
		return DatasetInfo{}, fmt.Errorf("bench: dataset ids: %w", err)
	}
	if _, err := pool.Exec(ctx, datasetTable); err != nil {
		return DatasetInfo{}, fmt.Errorf("bench: dataset table: %w", err)
	}
	_, err = pool.Exec(ctx, `INSERT INTO bench_dataset (users, posts, events, seed, schema_hash, seeded_at, seed_seconds, max_post, max_anchor, max_event)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, d.Users, d.Posts, d.Events, d.Seed, d.SchemaHash, d.SeededAt,
		d.SeedSeconds, d.MaxPost, d.MaxAnchor, d.MaxEvent)
	if err != nil {
		return DatasetInfo{}, fmt.Errorf("bench: record dataset: %w", err)
	}
	return d, nil
}

// restore deletes what earlier bench runs added to the seeded data (shares, events, and
// any anchor a share created) and all transient state (fences, sessions), so that every run
// starts from the same database. The snapshot is rebuilt when the server starts.
func restore(ctx context.Context, pool *pgxpool.Pool, d DatasetInfo) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("bench: restore dataset: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	// Deleting an anchor makes PostgreSQL look for events that reference it, and events
	// have no index on anchor_id: one scan of millions of rows per anchor. What referenced
	// the bench's anchors is deleted first, so a superuser may skip those checks, as the
	// seeder does.
	var super bool
	if err := tx.QueryRow(ctx, "SELECT current_setting('is_superuser') = 'on'").Scan(&super); err != nil {
		return fmt.Errorf("bench: restore dataset: %w", err)
	}
	if super {
		if _, err := tx.Exec(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
			return fmt.Errorf("bench: restore dataset: %w", err)
		}
	}
	stmts := []struct {
		sql string
		arg int64
	}{
		{"DELETE FROM events WHERE id > $1", d.MaxEvent},
		// The bench talks only about its own posts (foreign keys are not enforced here, so
		// what cascades from them is deleted too: notifications of their likes and comments).
		{"DELETE FROM notifications WHERE post_id > $1", d.MaxPost},
		{"DELETE FROM likes WHERE post_id > $1", d.MaxPost},
		{"DELETE FROM comments WHERE post_id > $1", d.MaxPost},
		{"DELETE FROM post_bumps WHERE post_id > $1", d.MaxPost},
		{"DELETE FROM filter_posts WHERE post_id > $1", d.MaxPost},
		{"DELETE FROM filter_bumps WHERE post_id > $1", d.MaxPost},
		{"DELETE FROM feed_posts WHERE post_id > $1", d.MaxPost},
		{"DELETE FROM posts WHERE id > $1", d.MaxPost},
		{"DELETE FROM feed_snapshot WHERE anchor_id > $1", d.MaxAnchor},
		{"DELETE FROM anchors WHERE id > $1", d.MaxAnchor},
	}
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s.sql, s.arg); err != nil {
			return fmt.Errorf("bench: restore dataset (%s): %w", s.sql, err)
		}
	}
	if _, err := tx.Exec(ctx, "TRUNCATE fences, fenceposts, sessions"); err != nil {
		return fmt.Errorf("bench: restore dataset: %w", err)
	}
	// The items' talk counts, as the deletions above (with triggers off) left them: again.
	if err := db.RecountItemTalk(ctx, tx); err != nil {
		return fmt.Errorf("bench: restore dataset: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("bench: restore dataset: %w", err)
	}
	// Each run starts from the same tables: without this, the dead rows of the last run's
	// writes (and of their deletion just above) wait for autovacuum, which then runs during
	// the scenarios.
	if _, err := pool.Exec(ctx, "VACUUM (ANALYZE) events, feed_posts, posts, notifications, feed_snapshot, snapshot_dirty, anchors, fences, fenceposts, sessions"); err != nil {
		return fmt.Errorf("bench: restore dataset: vacuum: %w", err)
	}
	return nil
}

// count fills the dataset's row counts.
func count(ctx context.Context, pool *pgxpool.Pool, d *DatasetInfo) error {
	err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM follows),
		(SELECT count(*) FROM posts), (SELECT count(*) FROM anchors), (SELECT count(*) FROM events)`).
		Scan(&d.UserCount, &d.FollowCount, &d.PostCount, &d.AnchorCount, &d.EventCount)
	if err != nil {
		return fmt.Errorf("bench: count dataset: %w", err)
	}
	return nil
}

// database is the bench database: its DSN, and how to drop and recreate it when it is
// this checkout's private cluster.
type database struct {
	DSN     string
	Name    string
	cluster *cluster.Cluster // nil when --database-url was given
}

// lock makes sure no other bench run uses the database at the same time: two runs would
// reset each other's fences, delete each other's shares and share the cores. It holds an
// advisory lock on a connection of its own (in the cluster's maintenance database, which
// outlives a reseed's DROP DATABASE, when the cluster is the bench's).
func (d database) lock(ctx context.Context) (func(), error) {
	dsn := d.DSN
	if d.cluster != nil {
		dsn = d.cluster.DSN("postgres")
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("bench: lock: %w", err)
	}
	key := "tributary bench " + d.Name
	var ok bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock(hashtext($1))", key).Scan(&ok); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("bench: lock: %w", err)
	}
	if !ok {
		conn.Close(ctx)
		return nil, fmt.Errorf("bench: another bench run is using this database; wait for it to finish")
	}
	return func() { conn.Close(context.WithoutCancel(ctx)) }, nil // closing releases the lock
}

// recreate drops and creates the private cluster's bench database.
func (d database) recreate(ctx context.Context, log io.Writer) error {
	if d.cluster == nil {
		return fmt.Errorf("bench: the database at --database-url holds other data or another dataset; give an empty database (it is never dropped)")
	}
	conn, err := pgx.Connect(ctx, d.cluster.DSN("postgres"))
	if err != nil {
		return fmt.Errorf("bench: connect to the cluster: %w", err)
	}
	defer conn.Close(ctx)
	name := pgx.Identifier{d.Name}.Sanitize()
	fmt.Fprintf(log, "bench: recreating database %s\n", d.Name)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("bench: drop database: %w", err)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return fmt.Errorf("bench: create database: %w", err)
	}
	return nil
}

// prepareDataset makes sure the bench database holds the wanted dataset, seeding it when it
// does not, and restores it to its seeded state.
func prepareDataset(ctx context.Context, cfg Config, dbase database) (DatasetInfo, error) {
	pool, err := db.Open(ctx, dbase.DSN)
	if err != nil {
		return DatasetInfo{}, err
	}
	have, ok, err := storedDataset(ctx, pool)
	if err != nil {
		pool.Close()
		return DatasetInfo{}, err
	}
	want := cfg.Dataset
	if ok && !cfg.Reseed && have.Dataset == want && schemaCompatible(have.SchemaHash, schemaHash()) {
		have.Reused = true
		fmt.Fprintf(cfg.Log, "bench: reusing the dataset seeded %s (%d users, %d posts, seed %d)\n",
			have.SeededAt.Format(time.DateTime), have.Users, have.Posts, have.Seed)
		err := restore(ctx, pool, have)
		if err == nil {
			err = count(ctx, pool, &have)
		}
		pool.Close()
		return have, err
	}
	full, err := hasData(ctx, pool)
	pool.Close()
	if err != nil {
		return DatasetInfo{}, err
	}
	if full || ok {
		if ok && !schemaCompatible(have.SchemaHash, schemaHash()) {
			fmt.Fprintln(cfg.Log, "bench: a migration changed since the dataset was seeded")
		}
		if err := dbase.recreate(ctx, cfg.Log); err != nil {
			return DatasetInfo{}, err
		}
	}
	if pool, err = db.Open(ctx, dbase.DSN); err != nil {
		return DatasetInfo{}, err
	}
	defer pool.Close()
	d, err := seed(ctx, cfg.Binary, dbase.DSN, want, pool, cfg.Log)
	if err != nil {
		return DatasetInfo{}, err
	}
	return d, count(ctx, pool, &d)
}
