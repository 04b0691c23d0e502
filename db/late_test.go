package db_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// A share whose transaction commits after a reader's fencepost, dated before it, is listed
// by neither interval around that fencepost; LateArrivals from the fencepost's snapshot
// lists it, once, and not the shares the fencepost saw (issue 44.17).
func TestLateCommittedShareArrivesOnce(t *testing.T) {
	ctx := context.Background()
	s := dbtest.Store(t)
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	ada, err := s.CreateUser(ctx, db.NewUser{Handle: "ada", DisplayName: "Ada", CreatedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	bob, err := s.CreateUser(ctx, db.NewUser{Handle: "bob", DisplayName: "Bob", CreatedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	// The slow share: dated first, its transaction still open when the fast one commits.
	slow, err := s.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Rollback(ctx)
	var slowAnchor int64
	if err := slow.QueryRow(ctx, `WITH a AS (INSERT INTO anchors (url) VALUES ('https://example.org/slow') RETURNING id)
		INSERT INTO posts (author_id, anchor_id, url, canonical_url, anchor_url, kind, anchor_kind, host, created_at, bumped_at)
		SELECT $1, a.id, 'https://example.org/slow', 'https://example.org/slow', 'https://example.org/slow', 'web', 'web', 'example.org', $2, $2 FROM a
		RETURNING anchor_id`, bob.ID, t0.Add(time.Minute)).Scan(&slowAnchor); err != nil {
		t.Fatal(err)
	}
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: bob.ID, URL: "https://example.org/fast", Title: "Fast", CreatedAt: t0.Add(2 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreatePost(ctx, p); err != nil {
		t.Fatal(err)
	}

	// Ada's first page: its snapshot, then its reads, up to its fencepost.
	snap, err := s.XactSnapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fence, later := t0.Add(3*time.Minute), t0.Add(10*time.Minute)
	v := tributary.Viewer{ID: ada.ID}
	followed := tributary.NewIDSet([]int64{bob.ID})
	arrived := func(from, to time.Time) []int64 {
		t.Helper()
		got, err := s.Arrived(ctx, db.ArrivedQuery{Viewer: v, Followed: followed, SetOnly: true, From: from, To: to, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		return anchorsOf(got)
	}
	first := arrived(t0, fence)
	if len(first) != 1 || first[0] == slowAnchor {
		t.Fatalf("first page's arrivals = %v, want the fast share alone", first)
	}
	if err := slow.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	// Ada's next fencepost: the interval after the first misses the slow share (dated
	// before it); the late arrivals hold it once, and not what the first page saw.
	all := slices.Concat(first, arrived(fence, later))
	late, err := s.LateArrivals(ctx, db.ArrivedQuery{Viewer: v, Followed: followed, From: fence, Late: snap})
	if err != nil {
		t.Fatal(err)
	}
	if got := anchorsOf(late); !slices.Equal(got, []int64{slowAnchor}) {
		t.Fatalf("late arrivals = %v, want [%d]", got, slowAnchor)
	}
	all = append(all, anchorsOf(late)...)
	seen := map[int64]int{}
	for _, id := range all {
		seen[id]++
	}
	if len(seen) != 2 || seen[slowAnchor] != 1 || len(all) != 2 {
		t.Fatalf("arrivals over both fenceposts = %v, want each share once", all)
	}

	// Another viewer, who follows no one among the authors, is told nothing late.
	if got, err := s.LateArrivals(ctx, db.ArrivedQuery{Viewer: v, Followed: tributary.NewIDSet([]int64{ada.ID}), From: fence, Late: snap}); err != nil || len(got) != 0 {
		t.Fatalf("late arrivals of another followed set = %v, %v; want none", got, err)
	}
}

func anchorsOf(as []db.Arrival) []int64 {
	out := make([]int64, len(as))
	for i, a := range as {
		out[i] = a.AnchorID
	}
	return out
}
