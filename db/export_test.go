package db

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"tributary/db/internal/dbq"
)

// AfterRiverBlock makes s call f after each block a river reconstruction commits (a test
// cancels the reconstruction's context there, as a killed worker would stop).
func AfterRiverBlock(s *Store, f func()) { s.riverCounts.afterBlock = f }

// JobEvents subscribes to the ends of s's jobs (completed, or failed and to be retried); set
// s.Jobs first.
func JobEvents(s *Store) (<-chan *river.Event, func()) {
	c, err := s.jobClient(nil)
	if err != nil {
		panic(err)
	}
	return c.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed)
}

// settingsSeen reads the two settings generic plans run with.
const settingsSeen = "SELECT current_setting('jit'), current_setting('plan_cache_mode')"

// GenericSettingsSeen reads jit and plan_cache_mode as a statement run on its generic plan
// outside a transaction sees them (the context mark SearchRecent's query runs with).
func GenericSettingsSeen(ctx context.Context, pool *pgxpool.Pool) (jit, planMode string, err error) {
	err = planned{db: pool}.QueryRow(withGenericPlans(ctx), settingsSeen).Scan(&jit, &planMode)
	return jit, planMode, err
}

// PipedTxSettings reads jit and plan_cache_mode as a statement of a pipedTx (a share's)
// sees them.
func PipedTxSettings(ctx context.Context, s *Store) (jit, planMode string, err error) {
	err = s.inPipedTx(ctx, func(tx *pipedTx, _ *dbq.Queries) error {
		return tx.QueryRow(ctx, settingsSeen).Scan(&jit, &planMode)
	})
	return jit, planMode, err
}

// PipedStmt is a statement of a test's pipedTx: sent (its answer read), or held.
type PipedStmt struct {
	SQL     string
	Held    bool
	Swallow bool // a sent statement's error is not returned (its read is 0)
}

// PipedTx runs stmts in a pipedTx; reads gives what each sent statement's one number read.
func PipedTx(ctx context.Context, s *Store, stmts []PipedStmt) (reads []int64, err error) {
	err = s.inPipedTx(ctx, func(tx *pipedTx, _ *dbq.Queries) error {
		for _, st := range stmts {
			if st.Held {
				tx.holdExec(st.SQL, nil)
				continue
			}
			var n int64
			if err := tx.QueryRow(ctx, st.SQL).Scan(&n); err != nil && !st.Swallow {
				return err
			}
			reads = append(reads, n)
		}
		return nil
	})
	return reads, err
}
