package db

import (
	"context"
	"errors"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"tributary/db/internal/dbq"
)

// pipeline runs sqlc's queries in one round trip, as one batch on one connection: each step
// runs its query twice, first on a recorder that keeps the statement and its arguments, then
// on the batch's answer, which it scans as the query always does. A step returns its query's
// error; the steps after a failed one fail too (the batch is one implicit transaction).
// Each query runs as a prepared statement, like the queries of genericPlans; those that
// always run on their generic plan (forcedGeneric) do here too: the setting goes before the
// first of them and holds to the end of the batch.
func (s *Store) pipeline(ctx context.Context, steps ...func(*dbq.Queries) error) []error {
	b := &pgx.Batch{}
	rec := &recorder{batch: b}
	settingBefore := make([]bool, len(steps))
	for i, step := range steps {
		set := rec.generic
		if err := step(dbq.New(rec)); !errors.Is(err, errRecorded) {
			panic("db: pipeline: a step ran no query, or more than one")
		}
		settingBefore[i] = rec.generic && !set
	}
	errs := make([]error, len(steps))
	br := s.Pool.SendBatch(ctx, b)
	answers := answered{br}
	for i, step := range steps {
		if settingBefore[i] {
			if _, err := br.Exec(); err != nil {
				for j := i; j < len(steps); j++ {
					errs[j] = err
				}
				break
			}
		}
		errs[i] = step(dbq.New(answers))
	}
	// Closing reports the first failed query's error again (its step has it), or a failure
	// of the connection: then every step fails.
	if err := br.Close(); err != nil && !slices.ContainsFunc(errs, func(err error) bool { return err != nil }) {
		for i := range errs {
			errs[i] = err
		}
	}
	return errs
}

// errRecorded ends a step's recording run.
var errRecorded = errors.New("db: pipeline: recorded")

// recorder queues the statements a pipeline's steps run.
type recorder struct {
	batch   *pgx.Batch
	generic bool // the generic-plan setting is queued
}

func (r *recorder) queue(sql string, args []any) {
	if !r.generic && forcedGeneric[QueryName(sql)] {
		r.batch.Queue(genericSettings)
		r.generic = true
	}
	r.batch.Queue(sql, args...)
}

func (r *recorder) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	r.queue(sql, args)
	return pgconn.CommandTag{}, errRecorded
}

func (r *recorder) Query(_ context.Context, sql string, args ...any) (pgx.Rows, error) {
	r.queue(sql, args)
	return nil, errRecorded
}

func (r *recorder) QueryRow(_ context.Context, sql string, args ...any) pgx.Row {
	r.queue(sql, args)
	return recordedRow{}
}

func (r *recorder) CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error) {
	return 0, errors.New("db: pipeline: COPY cannot be pipelined")
}

type recordedRow struct{}

func (recordedRow) Scan(...any) error { return errRecorded }

// answered gives each step the batch's next answer, in the order the steps were recorded.
type answered struct{ br pgx.BatchResults }

func (a answered) Exec(context.Context, string, ...any) (pgconn.CommandTag, error) {
	return a.br.Exec()
}

func (a answered) Query(context.Context, string, ...any) (pgx.Rows, error) { return a.br.Query() }

func (a answered) QueryRow(context.Context, string, ...any) pgx.Row { return a.br.QueryRow() }

func (a answered) CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error) {
	return 0, errors.New("db: pipeline: COPY cannot be pipelined")
}
