package db_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"tributary/db"
	"tributary/db/dbtest"
)

// The viewer-state read brings a fencepost along: the fence's latest, or the one at a time,
// as LatestFencepost and Fencepost read them.
func TestLoadViewerReadsTheFencepost(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Store(t)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	u, err := store.CreateUser(ctx, db.NewUser{Handle: "ada", DisplayName: "Ada", CreatedAt: now.Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	load := func(template string, at time.Time) db.ViewerState {
		t.Helper()
		st, err := store.LoadViewer(ctx, db.ViewerQuery{ViewerID: u.ID, SeenFrom: now, SeenTo: now, FreshSince: now,
			FenceTemplate: template, FenceAt: at})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := load("home", time.Time{}); st.FencepostFound {
		t.Fatalf("no fence yet, but a latest fencepost %+v", st.Fencepost)
	}
	first := db.FencepostRow{At: now.Add(-time.Minute), Head: []int64{3, 1, 2}}
	second := db.FencepostRow{At: now, PrevAt: first.At, Head: []int64{7}}
	for _, fp := range []db.FencepostRow{first, second} {
		if err := store.CommitFencepost(ctx, u.ID, "home", fp, now); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		template string
		at       time.Time
		want     *db.FencepostRow
	}{
		{"home", time.Time{}, &second}, {"home", first.At, &first}, {"home", second.At, &second},
		{"home", now.Add(time.Second), nil}, {"other", time.Time{}, nil}, {"other", first.At, nil},
	} {
		st := load(c.template, c.at)
		switch {
		case c.want == nil && st.FencepostFound:
			t.Errorf("%s at %v: fencepost %+v, want none", c.template, c.at, st.Fencepost)
		case c.want != nil && !st.FencepostFound:
			t.Errorf("%s at %v: no fencepost, want %+v", c.template, c.at, *c.want)
		case c.want != nil && (!st.Fencepost.At.Equal(c.want.At) || !st.Fencepost.PrevAt.Equal(c.want.PrevAt) ||
			!slices.Equal(st.Fencepost.Head, c.want.Head)):
			t.Errorf("%s at %v: fencepost %+v, want %+v", c.template, c.at, st.Fencepost, *c.want)
		}
	}
}
