package db

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// Durable background work goes through River (riverqueue), its jobs in PostgreSQL: enqueued
// in the transaction of the change that causes them, worked by any instance, retried after
// an error, and rescued from a killed worker. Every job is idempotent.

// riversQueue holds the rivers' reconstructions.
const riversQueue = "rivers"

// RebuildRiverArgs asks for a reader's river to be re-aggregated (RebuildRiver) after their
// follows changed.
type RebuildRiverArgs struct {
	Reader int64 `json:"reader"`
}

// Kind names the job in River's table.
func (RebuildRiverArgs) Kind() string { return "rebuild_river" }

// InsertOpts: on the rivers' queue. Jobs are not unique: a second one for a reader finds the
// river up to date and returns (uniqueness would skip a job inserted while one runs, and the
// running one may have read the follows before the change).
func (RebuildRiverArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: riversQueue, MaxAttempts: 20}
}

type rebuildRiverWorker struct {
	river.WorkerDefaults[RebuildRiverArgs]
	s *Store
}

func (w *rebuildRiverWorker) Work(ctx context.Context, job *river.Job[RebuildRiverArgs]) error {
	_, err := w.s.RebuildRiver(ctx, job.Args.Reader)
	return err
}

// JobConfig is how an instance works the jobs.
type JobConfig struct {
	Workers int // at once, per instance
	// CardWorkers fetch link cards at once, per instance: mostly waiting on other sites.
	CardWorkers int
	Poll        time.Duration // how often an instance looks for jobs
	// Timeout is how long a job may run; a job running for Rescue (a killed worker's) is
	// given to another worker.
	Timeout, Rescue time.Duration
}

// DefaultJobConfig suits the site: reconstructions take seconds.
var DefaultJobConfig = JobConfig{Workers: 2, CardWorkers: 32, Poll: time.Second, Timeout: time.Minute, Rescue: 2 * time.Minute}

// jobs is the store's River client, made on first use.
type jobs struct {
	once   sync.Once
	client *river.Client[pgx.Tx]
	err    error
}

func (s *Store) jobClient(log *slog.Logger) (*river.Client[pgx.Tx], error) {
	cfg := s.Jobs
	s.jobs.once.Do(func() {
		workers := river.NewWorkers()
		river.AddWorker(workers, &rebuildRiverWorker{s: s})
		river.AddWorker(workers, &purgeUserWorker{s: s})
		river.AddWorker(workers, &fanOutWorker{s: s})
		queues := map[string]river.QueueConfig{riversQueue: {MaxWorkers: max(cfg.Workers, 1)},
			notifyQueue: {MaxWorkers: max(cfg.Workers, 1)}}
		if s.Fetcher != nil {
			river.AddWorker(workers, &fetchCardWorker{s: s})
			queues[cardsQueue] = river.QueueConfig{MaxWorkers: max(cfg.CardWorkers, 1)}
		}
		if log == nil {
			log = slog.New(slog.DiscardHandler)
		}
		s.jobs.client, s.jobs.err = river.NewClient(riverpgxv5.New(s.Pool), &river.Config{
			Logger:  log,
			Queues:  queues,
			Workers: workers,
			// Jobs are found by polling: no listening connection of River's own, and no
			// NOTIFY in the transactions that enqueue them (a NOTIFY there serializes
			// commits server-wide). Jobs are enqueued as scheduled for the same reason.
			PollOnly:             true,
			FetchPollInterval:    cfg.Poll,
			FetchCooldown:        min(cfg.Poll, 100*time.Millisecond),
			JobTimeout:           cfg.Timeout,
			RescueStuckJobsAfter: cfg.Rescue,
		})
	})
	return s.jobs.client, s.jobs.err
}

// RunJobs works the site's durable jobs on this instance (as s.Jobs says) until ctx is done, then waits for
// the running ones (up to 10 s; the others are rescued later).
func (s *Store) RunJobs(ctx context.Context, log *slog.Logger) error {
	c, err := s.jobClient(log)
	if err != nil {
		return fmt.Errorf("db: jobs: %w", err)
	}
	for {
		err := c.Start(ctx)
		if err == nil {
			break
		}
		if log != nil {
			log.Error("durable jobs cannot start; trying again in 5 s", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(5 * time.Second):
		}
	}
	<-ctx.Done()
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := c.Stop(stopCtx); err != nil {
		return fmt.Errorf("db: stop jobs: %w", err)
	}
	return nil
}

// enqueueRebuild asks, in tx, for reader's river to be rebuilt when they have one. It runs
// after the change to their follows in tx: that change locked the reader's row, which
// OpenRiver reads first, so a river opened meanwhile is either seen here or made after the
// change.
func (s *Store) enqueueRebuild(ctx context.Context, tx pgx.Tx, reader int64) error {
	has, err := queries(tx).HasRiver(ctx, reader)
	if err != nil || !has {
		return err
	}
	c, err := s.jobClient(nil)
	if err != nil {
		return fmt.Errorf("db: jobs: %w", err)
	}
	if _, err := c.InsertTx(ctx, tx, RebuildRiverArgs{Reader: reader}, &river.InsertOpts{ScheduledAt: time.Now()}); err != nil {
		return fmt.Errorf("db: enqueue river rebuild: %w", err)
	}
	return nil
}

// migrateJobs brings River's own tables to the version this build knows.
func migrateJobs(ctx context.Context, pool *pgxpool.Pool) error {
	m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("db: job migrations: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("db: job migrate: %w", err)
	}
	return nil
}

// JobSchemaVersion names River's schema version (test templates are made again when it moves).
func JobSchemaVersion() string {
	m, err := rivermigrate.New(riverpgxv5.New(nil), nil)
	if err != nil {
		return "?"
	}
	all := m.AllVersions()
	return fmt.Sprintf("river-%d", all[len(all)-1].Version)
}
