package db_test

import (
	"context"
	"testing"
	"time"

	"tributary/db"
)

// An incremental refresh leaves the snapshot as a full rebuild would: over hours and days
// in which items' recency buckets turn and old items leave the window, and users' VIP flags
// and notability change, each incremental refresh's rows are those of a full rebuild at the
// same time (all but when each row was made), and it redoes far fewer items than there are.
func TestIncrementalRefreshEqualsFullRebuild(t *testing.T) {
	ctx := context.Background()
	s, _ := seeded(t, seedSmall(21))
	rows := func() map[int64]string {
		t.Helper()
		out := map[int64]string{}
		r, err := s.Pool.Query(ctx, `SELECT anchor_id, (to_jsonb(f) - 'refreshed_at')::text FROM feed_snapshot f`)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for r.Next() {
			var id int64
			var row string
			if err := r.Scan(&id, &row); err != nil {
				t.Fatal(err)
			}
			out[id] = row
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	now := seedEnd
	res, err := s.Refresh(ctx, now)
	if err != nil || !res.Full {
		t.Fatalf("the first refresh: %v, %v; want a full rebuild", res, err)
	}
	turnedOut, redone := 0, 0
	for i, step := range []time.Duration{time.Hour, 13 * time.Hour, 47 * time.Hour, 5 * 24 * time.Hour, 9 * time.Hour, 3 * 24 * time.Hour, 30 * time.Minute} {
		// A user's standing changes (as an operator would set it): the items they shared
		// rank anew.
		if _, err := s.Pool.Exec(ctx, `UPDATE users SET vip = NOT vip, notability = notability * 3 + 20000
			WHERE id = (SELECT author_id FROM posts ORDER BY id OFFSET $1 LIMIT 1)`, 37*i); err != nil {
			t.Fatal(err)
		}
		since := now
		now = now.Add(step)
		before := len(rows())
		res, err := s.RefreshSince(ctx, since, now)
		if err != nil {
			t.Fatal(err)
		}
		incremental := rows()
		if _, err := s.RefreshSnapshot(ctx, now); err != nil {
			t.Fatal(err)
		}
		full := rows()
		for id, row := range full {
			if incremental[id] != row {
				t.Errorf("step %d (+%s): item %d after the incremental refresh:\n  %s\nafter a full rebuild:\n  %s", i, step, id, incremental[id], row)
			}
		}
		for id := range incremental {
			if _, ok := full[id]; !ok {
				t.Errorf("step %d (+%s): item %d kept by the incremental refresh, not by a full rebuild", i, step, id)
			}
		}
		if res.Rows != len(full) {
			t.Errorf("step %d: the incremental refresh counts %d rows, want %d", i, res.Rows, len(full))
		}
		if res.Redone*2 > len(full) {
			t.Errorf("step %d (+%s): the incremental refresh redid %d items of %d", i, step, res.Redone, len(full))
		}
		turnedOut += before - len(full)
		redone += res.Redone
		if t.Failed() {
			t.FailNow()
		}
	}
	if turnedOut == 0 || redone == 0 {
		t.Fatalf("%d items left the window and %d were redone: the check is vacuous", turnedOut, redone)
	}
	t.Logf("%d items left the window, %d redone in all", turnedOut, redone)

	// Refresh itself: incremental within a day of a full rebuild with these weights, full
	// otherwise.
	if res, err := s.Refresh(ctx, now.Add(time.Hour)); err != nil || res.Full {
		t.Errorf("an hour after a rebuild: %v, %v; want an incremental refresh", res, err)
	}
	if res, err := s.Refresh(ctx, now.Add(db.RebuildEvery+time.Hour)); err != nil || !res.Full {
		t.Errorf("a day after a rebuild: %v, %v; want a full rebuild", res, err)
	}
	s.Weights.Sci++
	if res, err := s.Refresh(ctx, now.Add(db.RebuildEvery+2*time.Hour)); err != nil || !res.Full {
		t.Errorf("with other weights: %v, %v; want a full rebuild", res, err)
	}
}
