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
	// The feed service's packed copy unpacks to the same rows.
	packed, _, _, err := s.SnapshotRanking(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(packed) != len(wantRank) {
		t.Fatalf("Store.SnapshotRanking read %d rows, SnapshotRanking %d", len(packed), len(wantRank))
	}
	tagged := 0
	for i, w := range wantRank {
		r := &packed[i]
		m, a := r.Match(0), r.Access()
		got := dbq.SnapshotRankingRow{AnchorID: m.AnchorID, Score: m.Score, SharerUserIds: m.SharerIDs, Date: m.Date, Url: m.URL,
			PrimaryUserID: m.PrimaryUserID, AllPublic: m.AllPublic, AnyPublic: a.Public, ProtectedOwnerIds: a.ProtectedOwners,
			PrivateFeedIds: a.PrivateFeeds, Kind: string(r.Kind()), Tags: r.Tags(), GroupIds: m.GroupIDs}
		for _, f := range []*[]int64{&got.ProtectedOwnerIds, &got.PrivateFeedIds, &got.GroupIds} {
			if *f == nil {
				*f = []int64{}
			}
		}
		if got.Tags == nil {
			got.Tags = []string{}
		}
		if len(got.Tags) > 0 {
			tagged++
		}
		if !got.Date.Equal(w.Date) {
			t.Fatalf("row %d: date %v, want %v", i, got.Date, w.Date)
		}
		got.Date = w.Date
		if !reflect.DeepEqual(got, w) {
			t.Fatalf("row %d unpacks to\n%+v\nwant\n%+v", i, got, w)
		}
	}
	if tagged == 0 {
		t.Error("no tagged row: the tags are not checked")
	}
}
