package feed_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// TestRecentArrivalsAgreeWithArrivedAnchors lists the arrivals of random intervals of random
// worlds three ways: planned for the interval (ArrivedAnchors), by reading the interval's
// posts (RecentArrivals), and by reading at most two of them and asking ArrivedAnchors when
// there are more. Viewers, positions, skipped items and category filters vary; the lists
// must be the same.
func TestRecentArrivalsAgreeWithArrivedAnchors(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Store(t)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	worlds := 12
	if testing.Short() {
		worlds = 3
	}
	kinds := []tributary.Kind{"", tributary.KindArxiv, tributary.KindGitHub}
	checked, nonEmpty := 0, 0
	for w := range worlds {
		r := rand.New(rand.NewPCG(uint64(w), 7))
		if _, err := store.Pool.Exec(ctx, `TRUNCATE users, anchors, feed_snapshot, snapshot_meta, fences, fenceposts, filter_posts RESTART IDENTITY CASCADE`); err != nil {
			t.Fatal(err)
		}
		m := build(t, ctx, store, r, now)
		viewers := []int64{0}
		for _, u := range m.users {
			viewers = append(viewers, u.ID)
		}
		for _, id := range viewers {
			var q db.ArrivedQuery
			if id == 0 {
				q.Followed = tributary.NewIDSet(slicesOf(m.vips))
			} else {
				st, err := store.LoadViewer(ctx, db.ViewerQuery{ViewerID: id, SeenFrom: now, SeenTo: now, FreshSince: now})
				if err != nil {
					t.Fatal(err)
				}
				q.Viewer, q.Followed = st.Access, st.Followed
			}
			for range 6 {
				q.From = now.Add(-time.Duration(1+r.IntN(26)) * time.Hour) // posts are 1-24 h old
				q.To = q.From.Add(time.Duration(r.IntN(26)) * time.Hour)
				if q.To.After(now) {
					q.To = now
				}
				if r.IntN(4) == 0 {
					q.From = q.From.Add(-time.Nanosecond) // bounds on a post's time
				}
				q.Source, q.Limit, q.Skip, q.PosAt, q.PosID = kinds[r.IntN(len(kinds))], 1+r.IntN(8), nil, time.Time{}, 0
				all := arrived(t, ctx, store, q, 0)
				for _, a := range all {
					if r.IntN(4) == 0 {
						q.Skip = append(q.Skip, a.AnchorID)
					}
				}
				slices.Sort(q.Skip)
				if len(all) > 0 && r.IntN(2) == 0 { // list on after a position
					p := all[r.IntN(len(all))]
					q.PosAt, q.PosID = p.At, p.AnchorID
				}
				want := arrived(t, ctx, store, q, 0)
				for _, scan := range []int{db.DefaultRecentScan, 2} {
					// The followed set passed, and read from follows (as for 1,000+ followees).
					for _, byFollows := range []int{db.DefaultArrivalsByFollows, 1} {
						store.ArrivalsByFollows = byFollows
						got := arrived(t, ctx, store, q, scan)
						store.ArrivalsByFollows = db.DefaultArrivalsByFollows
						if !slices.Equal(got, want) {
							t.Fatalf("world %d, viewer %d, %+v, scanning %d posts, followed set read from follows from %d: %v, ArrivedAnchors: %v",
								w, id, q, scan, byFollows, got, want)
						}
					}
				}
				checked++
				if len(want) > 0 {
					nonEmpty++
				}
			}
		}
	}
	// A sixth at least: the worlds' group-only posts arrive in no home by their sharing.
	if nonEmpty < checked/6 {
		t.Fatalf("only %d of %d intervals had arrivals: the worlds test little", nonEmpty, checked)
	}
	t.Logf("%d intervals (%d with arrivals) listed alike", checked, nonEmpty)
}

// arrived lists q's arrivals reading at most scan posts of the interval (0: ArrivedAnchors).
func arrived(t *testing.T, ctx context.Context, store *db.Store, q db.ArrivedQuery, scan int) []db.Arrival {
	t.Helper()
	store.RecentScan, store.RecentSpan = scan, 1<<62
	defer func() { store.RecentScan, store.RecentSpan = db.DefaultRecentScan, db.DefaultRecentSpan }()
	out, err := store.Arrived(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func slicesOf(set map[int64]bool) []int64 {
	var out []int64
	for id := range set {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}
