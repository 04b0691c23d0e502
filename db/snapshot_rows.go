package db

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"tributary/db/internal/dbq"
)

// An item's snapshot row redone on its own, in the transaction of the write that changed it
// (a share, a deletion, an access change) or by a refresh's catch-up.

// RefreshAnchors recomputes the snapshot rows of some anchors right away (after a share,
// a deletion or an access change), so the snapshot path never lags the primary tables.
func (s *Store) RefreshAnchors(ctx context.Context, anchorIDs []int64, now time.Time) error {
	if len(anchorIDs) == 0 {
		return nil
	}
	return s.inPipedTx(ctx, func(tx *pipedTx, q *dbq.Queries) error { return s.redoAnchors(ctx, tx, q, anchorIDs, now) })
}

// redoAnchors redoes the snapshot rows of some anchors in the transaction tx (q runs on it):
// the lock goes with the read of the anchors' posts, and up to insertedRows rows are written
// with the statement after them or the commit (more by COPY, in round trips of its own).
func (s *Store) redoAnchors(ctx context.Context, tx *pipedTx, q *dbq.Queries, anchorIDs []int64, now time.Time) error {
	// Two writers redoing one anchor (a share and a refresh's catch-up) must not let the one
	// that read fewer posts write last. The read is a statement of its own after the lock:
	// its snapshot is taken once the lock is held.
	held := tx.hold()
	if err := held.LockAnchors(ctx, anchorIDs); err != nil {
		return fmt.Errorf("db: refresh anchors: lock: %w", err)
	}
	rs, err := rollups(ctx, q, anchorIDs, nil)
	if err != nil {
		return err
	}
	rows := make([][]any, 0, len(rs))
	for _, id := range anchorIDs {
		if r, ok := rs[id]; ok && r.Date.After(now.Add(-SnapshotWindow)) {
			row, err := snapshotRow(r, s.Weights, now)
			if err != nil {
				return fmt.Errorf("db: refresh anchors: %w", err)
			}
			rows = append(rows, row)
		}
	}
	if err := held.ClearSnapshotRows(ctx, anchorIDs); err != nil {
		return fmt.Errorf("db: refresh anchors: clear: %w", err)
	}
	if len(rows) <= insertedRows { // a share's item, a comment's: held, where COPY takes its own round trips
		if len(rows) > 0 {
			tx.holdExec(insertSnapshotRows(len(rows)), slices.Concat(rows...))
		}
		return nil
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"feed_snapshot"}, snapshotColumns, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("db: refresh anchors: insert: %w", err)
	}
	return nil
}

// insertedRows is how many snapshot rows redoAnchors inserts with a statement rather than COPY.
const insertedRows = 4

// insertSnapshotRows is the INSERT of n snapshot rows, their columns' values in
// snapshotColumns' order, row after row.
func insertSnapshotRows(n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO feed_snapshot (" + strings.Join(snapshotColumns, ", ") + ") VALUES ")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for j := range snapshotColumns {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "$%d", i*len(snapshotColumns)+j+1)
		}
		b.WriteByte(')')
	}
	return b.String()
}
