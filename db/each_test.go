package db_test

import (
	"context"
	"reflect"
	"testing"

	"tributary/db"
	"tributary/db/internal/dbq"
)

// The queries read row by row (dbq/each.go, written by hand) read what sqlc's code for the
// same queries reads: their column lists have not drifted apart.
func TestEachReadsWhatTheGeneratedQueriesRead(t *testing.T) {
	ctx := context.Background()
	s, _ := seeded(t, seedSmall(5))
	if _, err := s.RefreshSnapshot(ctx, seedEnd); err != nil {
		t.Fatal(err)
	}
	q := dbq.New(s.Pool)
	since := seedEnd.Add(-db.SnapshotWindow)
	want, err := q.PostFactsInWindow(ctx, since)
	if err != nil {
		t.Fatal(err)
	}
	var got []dbq.PostFact
	if err := q.EachPostFactsInWindow(ctx, since, func(r dbq.PostFact) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(want) < 1000 || !reflect.DeepEqual(got, want) {
		t.Errorf("EachPostFactsInWindow read %d rows, PostFactsInWindow %d (or other values)", len(got), len(want))
	}
	wantRank, err := q.SnapshotRanking(ctx, []int64{})
	if err != nil {
		t.Fatal(err)
	}
	var gotRank []dbq.SnapshotRankingRow
	if err := q.EachSnapshotRanking(ctx, []int64{}, func(r dbq.SnapshotRankingRow) { gotRank = append(gotRank, r) }); err != nil {
		t.Fatal(err)
	}
	if len(wantRank) < 100 || !reflect.DeepEqual(gotRank, wantRank) {
		t.Errorf("EachSnapshotRanking read %d rows, SnapshotRanking %d (or other values)", len(gotRank), len(wantRank))
	}
}
