package feed_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"tributary"
	"tributary/db/dbtest"
	"tributary/feed"
)

// The access oracle over activity in the home feed (seed 003): random small worlds (build,
// oracle_model_test.go) where every logged-in viewer opens their home feed (committing a
// fencepost), then, the clock moved on a little, random people like, unlike, comment on,
// delete and edit comments on random posts (readable to them or not: those are refused), share
// links again and sometimes change who may read what. Each viewer's "N new" count
// (NewCount) and the items above their page (NewItems) must be exactly what the model says
// arrived in the interval:
//
//   - shared: an item with a share by the viewer or someone they follow (active) that the
//     viewer may read, made in the interval;
//   - activity (home_activity on, the interval no longer than a day, not the viewer's first
//     fencepost): an item with a post the viewer may read that someone they follow (active)
//     liked or commented on in the interval, as their likes and comments feeds place it
//     (filter_posts 'l:<u>' and 'c:<u>': a like's time, the latest comment's, a place that
//     never moves down when a comment goes), not shared in the interval; its card says who
//     (the latest such like or comment) unless someone the viewer follows, or the viewer,
//     shared the item in a post they may read;
//   - never an item the viewer hid or has seen, nor one whose only activity in the interval
//     is on posts the viewer may not read or by people they do not follow.
//
// A world's viewers come back activityRounds times, each time counting from the fencepost
// the last visit committed (or the one before, when nothing arrived); the last action of a
// round is at the very time of the fencepost then committed, so it must not arrive again. In
// some worlds one return comes a day later (exactly a day: activity still counts; a second
// more: it does not). Each world has a newcomer who follows only a friend with no shares yet:
// with no fencepost, nothing arrives for them by activity (their first fencepost ranks their
// whole feed by shares). Heads of one to three items in most worlds make NewItems' page reach
// into older fenceposts, whose tails are listed again with their activity.
//
// Worlds are not exactly reproducible from their number: build and change (shared with the
// access oracle) range over maps. Failures are reported by kind, the first three of each in
// full (the world, round and viewer, what arrived and what happened in the interval).

func TestActivityOracle(t *testing.T) {
	worlds := 36 // about 3,000 cases, 35-45 s on two shared cores
	if testing.Short() {
		worlds = 6
	}
	start := time.Now()
	// Two workers (go test runs two parallel tests on two cores), each on a database of its
	// own, take the worlds in turn; in a round, a world's viewers are checked at once.
	const workers = 2
	rep := &activityReport{failures: tally{}, cases: tally{}, cover: tally{}}
	t.Run("worlds", func(t *testing.T) {
		for k := range workers {
			t.Run(fmt.Sprint(k), func(t *testing.T) {
				t.Parallel()
				aw := &activityWorker{t: t, ctx: context.Background(), store: dbtest.Store(t), rep: rep}
				for w := k; w < worlds; w += workers {
					aw.world(w)
				}
			})
		}
	})
	cases := rep.cases["activity"] + rep.cases["activity off"]
	t.Logf("%d (world, viewer, round) activity cases checked in %d worlds (%d with home_activity off), %d actions made, in %s",
		cases, worlds, rep.cases["activity off"], rep.cases["activity action"], time.Since(start).Round(time.Millisecond))
	t.Logf("exercised: %s", rep.cover)
	if len(rep.failures) > 0 {
		t.Errorf("failures by kind (the first 3 of each above): %s", rep.failures)
	}
	if testing.Short() {
		return
	}
	if cases < 2500 || rep.cases["activity off"] < 300 {
		t.Errorf("only %d activity cases checked (%d with home_activity off), want at least 2,500 (300)", cases, rep.cases["activity off"])
	}
	for _, what := range []string{"arrived by activity", "arrived by a share", "arrived by activity, shared by someone followed",
		"activity shown on the card", "activity on a hidden or seen item", "followee activity on an unreadable post",
		"activity by a non-followee", "followee activity, home_activity off", "followee activity, more than a day",
		"followee activity, no fencepost yet", "arrived by activity after exactly a day",
		"comment deleted, not the latest", "comments entry kept its place", "refused action", "access changed", "a day's return",
		"arrived by activity on a post only in a group the viewer is not in"} {
		if rep.cover[what] == 0 {
			t.Errorf("no case of %q: the check is vacuous", what)
		}
	}
}

// postOf is the id of handle's share of url in a hand-made world.
func (w *world) postOf(handle, url string) int64 {
	w.t.Helper()
	var id int64
	if err := w.store.Pool.QueryRow(w.ctx, `SELECT id FROM posts WHERE author_id = $1 AND url = $2`, w.users[handle].ID, url).Scan(&id); err != nil {
		w.t.Fatal(err)
	}
	return id
}

// accessOf is a user's access in a hand-made world.
func (w *world) accessOf(handle string) tributary.Viewer {
	w.t.Helper()
	a, err := w.store.ViewerAccess(w.ctx, w.users[handle].ID)
	if err != nil {
		w.t.Fatal(err)
	}
	return a
}

// The oracle's first kind of failure, made by hand: a reader whose home feed is empty has no
// fencepost, so nothing arrives for them by activity (their first fencepost ranks their feed
// by shares), yet the "N new" count counts their followee's like.
func TestActivityOracleNoFencepostYet(t *testing.T) {
	w := newWorld(t)
	w.user("ada", false, 0)
	w.user("bob", false, 0)
	w.user("cy", false, 0)
	w.follow("ada", "bob") // bob has shared nothing: ada's home feed is empty
	w.share("cy", "https://arxiv.org/abs/2402.00001", time.Hour, false)
	s := w.service(nil)
	q := tributary.FeedQuery{Limit: 5}
	ada := w.users["ada"]
	first, err := s.Timeline(w.ctx, &ada, q)
	if err != nil {
		t.Fatal(err)
	}
	after := w.now // the page's fencepost: when it was read, as there is none
	if first.Fencepost != "" {
		if after, err = feed.ParseFencepost(first.Fencepost); err != nil {
			t.Fatal(err)
		}
	}
	w.now = w.now.Add(time.Minute)
	if err := w.store.Like(w.ctx, w.accessOf("bob"), w.postOf("cy", "https://arxiv.org/abs/2402.00001"), w.now); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(time.Minute)
	n, err := s.NewCount(w.ctx, &ada, q, after, 100)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := s.NewItems(w.ctx, &ada, q, after)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Items) != 0 || len(tl.Items) != 0 {
		t.Fatalf("ada's feed: first page %d items, new items %d, want none", len(first.Items), len(tl.Items))
	}
	if n != 0 {
		t.Errorf("NewCount %d after bob's like, with no fencepost: NewItems shows nothing (the first fencepost ranks shares only), want 0", n)
	}
}

// The oracle's second kind of failure, made by hand: an item that arrived by activity in an
// older fencepost's tail and again in a new fencepost shows, in NewItems, the older
// fencepost's reason (listing the older tail on the same page overwrites it).
func TestActivityOracleOlderFencepostReason(t *testing.T) {
	w := newWorld(t)
	w.user("ada", false, 0)
	w.user("bob", false, 0)
	w.user("cy", false, 0)
	w.user("dee", false, 0)
	w.follow("ada", "bob", "dee")
	x := "https://example.com/x" // cy's: ada follows no one who shared it
	w.share("cy", x, 3*time.Hour, false)
	w.share("bob", "https://arxiv.org/abs/2402.00010", 2*time.Hour, false)
	s := w.service(func(c *feed.Config) { c.HeadSize = 2 })
	q := tributary.FeedQuery{Limit: 5}
	ada := w.users["ada"]
	if _, err := s.Timeline(w.ctx, &ada, q); err != nil { // the first fencepost
		t.Fatal(err)
	}
	f0 := w.now
	// Shares by bob and dee, and bob's like of cy's post: three arrivals for a head of two.
	w.now = w.now.Add(time.Minute)
	w.share("bob", "https://arxiv.org/abs/2402.00011", 0, false)
	w.now = w.now.Add(time.Minute)
	w.share("dee", "https://arxiv.org/abs/2402.00012", 0, false)
	w.now = w.now.Add(time.Minute)
	liked := w.now
	xPost := w.postOf("cy", x)
	if err := w.store.Like(w.ctx, w.accessOf("bob"), xPost, liked); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(2 * time.Minute)
	if _, err := s.NewItems(w.ctx, &ada, q, f0); err != nil {
		t.Fatal(err)
	}
	f1 := w.now
	fp, ok, err := w.store.LatestFencepost(w.ctx, ada.ID, q.Template())
	if err != nil {
		t.Fatal(err)
	}
	var xAnchor int64
	if err := w.store.Pool.QueryRow(w.ctx, `SELECT anchor_id FROM posts WHERE id = $1`, xPost).Scan(&xAnchor); err != nil {
		t.Fatal(err)
	}
	if !ok || !fp.At.Equal(f1) || slices.Contains(fp.Head, xAnchor) {
		t.Fatalf("setup: fencepost %+v (found %v), want one at %s with cy's item %d in its tail", fp, ok, f1, xAnchor)
	}
	// A quarter of an hour later (the tail listed above is no longer kept), bob comments on
	// cy's post: it arrives again, by the comment.
	w.now = w.now.Add(15 * time.Minute)
	commented := w.now
	if _, _, err := w.store.AddComment(w.ctx, w.accessOf("bob"), xPost, "Worth a read.", commented, tributary.DefaultBumpRule); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(time.Minute)
	tl, err := s.NewItems(w.ctx, &ada, q, f1)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Items) != 1 || tl.Items[0].ID != xAnchor || tl.Items[0].Activity == nil {
		t.Fatalf("new items %+v, want cy's item %d by bob's comment", tl.Items, xAnchor)
	}
	if a := tl.Items[0].Activity; a.User.ID != w.users["bob"].ID || !a.Commented || !a.At.Equal(commented) {
		t.Errorf("cy's item shows bob's activity commented=%v at %s (his like: %s), want his comment at %s", a.Commented,
			a.At.Format(time.TimeOnly), liked.Format(time.TimeOnly), commented.Format(time.TimeOnly))
	}
}
