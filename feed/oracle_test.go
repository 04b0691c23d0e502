package feed_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
	"tributary/feed"
)

// The access oracle: random small worlds (users with public/protected/private posts,
// follows and approvals, bans, groups of every access with members, posts to several feeds,
// directs, likes and comments) × every viewer and anonymous × every read path must show
// exactly what a brute force reading of DESIGN.md's rules allows.

func walkAll(t *testing.T, ctx context.Context, s *feed.Service, v *tributary.User, cursor string) []tributary.Item {
	t.Helper()
	var out []tributary.Item
	for range 50 {
		tl, err := s.Timeline(ctx, v, tributary.FeedQuery{Limit: 7, Cursor: cursor, IncludeSeen: true})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tl.Items...)
		if cursor = tl.NextCursor; cursor == "" {
			return out
		}
	}
	t.Fatal("walk does not end")
	return nil
}

func TestAccessOracle(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Store(t)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	cases := tally{}
	worlds := 50
	if testing.Short() {
		worlds = 8
	}
	bus := runBus(t, ctx, store)
	for w := range worlds {
		r := rand.New(rand.NewPCG(uint64(w), 2026))
		if _, err := store.Pool.Exec(ctx, `TRUNCATE users, anchors, feed_snapshot, snapshot_meta, fences, fenceposts, filter_posts RESTART IDENTITY CASCADE`); err != nil {
			t.Fatal(err)
		}
		m := build(t, ctx, store, r, now)
		// Home feeds here are what the followed set shared: items that arrive by a followee's
		// like or comment are TestActivityOracle's.
		if _, err := store.Pool.Exec(ctx, "UPDATE users SET home_activity = false"); err != nil {
			t.Fatal(err)
		}
		converse(t, ctx, store, r, m, now, fmt.Sprintf("world %d", w), cases)
		// Every other world, arrivals read every logged-in viewer's followed set from follows.
		store.ArrivalsByFollows = db.DefaultArrivalsByFollows
		if w%2 == 0 {
			store.ArrivalsByFollows = 1
		}
		// Arrivals are listed by reading the interval's posts (RecentArrivals) in two worlds
		// of three, whatever the interval's length; in one of those, intervals of more than
		// three posts are asked again of ArrivedAnchors.
		store.RecentScan, store.RecentSpan = []int{0, 3, db.DefaultRecentScan}[w%3], 1<<62
		if _, err := store.RefreshSnapshot(ctx, now); err != nil {
			t.Fatal(err)
		}
		// Every other world (those where arrivals do not read follows), logged-in viewers
		// rank on the service's copy of the snapshot (the default), which must follow the
		// changes below as they are made; in the others, PostgreSQL ranks.
		scfg := feed.DefaultConfig()
		if w%2 == 0 {
			scfg.CopyFrom = 0
		}
		snap := feed.New(store, scfg, clock)
		if err := snap.Warm(ctx); err != nil {
			t.Fatal(err)
		}
		// In one world of two, that service is an instance of a site: it keeps the items'
		// talk (cards.go), dropped as it hears of the changes below.
		site := w%2 == 1
		if site {
			snap.Attach(bus)
		}
		copied := scfg.CopyFrom > 0
		scfg.CopyFrom = 0
		sqlRanked := feed.New(store, scfg, clock)
		cfg := feed.DefaultConfig()
		cfg.SnapshotMaxAge = 0
		live := feed.New(store, cfg, clock)

		viewers := append([]*tributary.User{nil}, func() []*tributary.User {
			var vs []*tributary.User
			for i := range m.users {
				vs = append(vs, &m.users[i])
			}
			return vs
		}()...)
		id := func(v *tributary.User) int64 {
			if v == nil {
				return 0
			}
			return v.ID
		}
		// First pages commit fenceposts before the revocations below: of the ranked feed, and
		// of one chronological feed per viewer.
		firsts := map[int64]string{}
		type chronoFirst struct {
			c      feed.Chrono
			cursor string
		}
		chronoFirsts := map[int64]chronoFirst{}
		for _, v := range viewers {
			tl, err := snap.Timeline(ctx, v, tributary.FeedQuery{Limit: 3, IncludeSeen: true})
			if err != nil {
				t.Fatal(err)
			}
			firsts[id(v)] = tl.NextCursor
			c := feed.Chrono{Author: m.users[r.IntN(len(m.users))].ID}
			if r.IntN(2) == 0 {
				c = feed.Chrono{Feed: m.groups[r.IntN(len(m.groups))].ID}
			} else if v != nil && r.IntN(3) == 0 {
				c = feed.Chrono{Directs: true}
			}
			p, err := snap.Chrono(ctx, v, c, "", 2)
			if err != nil {
				t.Fatal(err)
			}
			chronoFirsts[id(v)] = chronoFirst{c, p.NextCursor}
		}
		for range r.IntN(3) {
			change(t, ctx, store, r, m, now)
		}
		// In one world of three, an account is deleted: every viewer's every read path then
		// shows none of its posts, comments, likes or sharer entries (no draw of r: the
		// worlds stay as they were).
		var gone int64 // the deleted account, no viewer any more: it can neither log in nor keep a session
		if w%3 == 2 {
			gone = m.users[w%len(m.users)].ID
			deleteAccount(t, ctx, store, m, gone, now)
		}
		snap.AccessChanged()
		if site {
			bus.Sync(ctx) // as a writer's instance does after a change in who may read what
		}

		for vi, v := range viewers {
			vid := id(v)
			if vid != 0 && vid == gone {
				continue
			}
			label := fmt.Sprintf("world %d viewer %d", w, vid)
			access, err := store.ViewerAccess(ctx, vid)
			if err != nil {
				t.Fatal(err)
			}
			o := &viewerCase{t: t, ctx: ctx, store: store, m: m, v: v, id: vid, access: access, label: label, now: now, cases: cases}
			// A chronological fencepost committed before the changes: its pages re-check access.
			if f := chronoFirsts[vid]; f.cursor != "" {
				o.chrono(snap, f.c, f.cursor, 3, true)
			}
			want := m.feedItems(vid)
			// readableItems: every item shows only sharers and a representative post the viewer
			// may read, and its talk as they may read it.
			readableItems := func(path string, items []tributary.Item) {
				t.Helper()
				o.itemsTalk(path, items)
				for _, it := range items {
					for _, sh := range it.Sharers {
						if !slices.ContainsFunc(m.posts, func(p modelPost) bool {
							return p.anchor == it.ID && p.author == sh.ID && m.readable(vid, p)
						}) {
							t.Errorf("%s %s: item %d shows sharer %d whose share the viewer may not read", label, path, it.ID, sh.ID)
						}
					}
					if !slices.ContainsFunc(m.posts, func(p modelPost) bool { return p.id == it.RepPostID && m.readable(vid, p) }) {
						t.Errorf("%s %s: item %d is represented by post %d the viewer may not read", label, path, it.ID, it.RepPostID)
					}
				}
			}
			check := func(path string, items []tributary.Item) {
				t.Helper()
				cases["ranked"]++
				readableItems(path, items)
				got := []int64{}
				for _, it := range items {
					got = append(got, it.ID)
				}
				slices.Sort(got)
				if !slices.Equal(slices.Compact(got), want) {
					t.Errorf("%s %s: items %v, want %v", label, path, got, want)
				}
			}
			check("snapshot", walkAll(t, ctx, snap, v, ""))
			check("live", walkAll(t, ctx, live, v, ""))
			if v != nil {
				// The front page's items as a newcomer's home shows them ("popular now").
				pop, err := snap.Popular(ctx, access, tributary.FeedQuery{Limit: 20}, nil)
				if err != nil {
					t.Fatal(err)
				}
				cases["popular"]++
				cases["popular item"] += len(pop)
				readableItems("popular", pop)
			}
			if copied && v != nil {
				// Ranked on the copy, the first page is the one PostgreSQL ranks, with the same
				// scores (the copy counts the followed sharers it ranks by).
				type scored struct {
					id    int64
					score float64
				}
				var heads [2][]scored
				for i, svc := range []*feed.Service{snap, sqlRanked} {
					if err := store.ResetFences(ctx, v.ID); err != nil {
						t.Fatal(err)
					}
					tl, err := svc.Timeline(ctx, v, tributary.FeedQuery{Limit: 50, IncludeSeen: true})
					if err != nil {
						t.Fatal(err)
					}
					for _, it := range tl.Items {
						heads[i] = append(heads[i], scored{it.ID, it.Score})
					}
				}
				cases["ranked on the copy"]++
				if !slices.Equal(heads[0], heads[1]) {
					t.Errorf("%s: ranked on the copy %v, in PostgreSQL %v", label, heads[0], heads[1])
				}
			}
			if v == nil {
				check("anonymous cache", walkAll(t, ctx, snap, v, ""))
			}
			// A fencepost committed before the changes: its pages re-check access.
			if c := firsts[vid]; c != "" {
				items := walkAll(t, ctx, snap, v, c)
				cases["committed fencepost"]++
				o.itemsTalk("committed fencepost", items)
				for _, it := range items {
					if !slices.Contains(want, it.ID) {
						t.Errorf("%s committed fencepost: item %d shown after access was revoked", label, it.ID)
					}
				}
			}
			// "N new" counts only readable arrivals.
			n, err := snap.NewCount(ctx, v, tributary.FeedQuery{Limit: 20}, now.Add(-1000*time.Hour), 1000)
			if err != nil {
				t.Fatal(err)
			}
			cases["new notice"]++
			if n != len(want) {
				t.Errorf("%s new notice: %d new, want %d", label, n, len(want))
			}
			// Event ingestion accepts exactly the readable items.
			var allAnchors []int64
			for _, p := range m.posts {
				allAnchors = append(allAnchors, p.anchor)
			}
			ok, err := store.ReadableAnchors(ctx, allAnchors, access)
			if err != nil {
				t.Fatal(err)
			}
			cases["events"]++
			for _, p := range m.posts {
				anyReadable := slices.ContainsFunc(m.posts, func(q modelPost) bool { return q.anchor == p.anchor && m.readable(vid, q) })
				if ok[p.anchor] != anyReadable {
					t.Errorf("%s events: item %d accepted=%v, want %v", label, p.anchor, ok[p.anchor], anyReadable)
				}
			}
			for _, c := range o.chronoFeeds(vi) {
				o.chrono(snap, c, "", 3+vi%4, false)
			}
			o.postPages()
			o.itemPages()
			o.talkCounts()
			o.refusals()
			if v != nil {
				o.lists(r, map[string]*feed.Service{"snapshot": snap, "live": live}, snap)
			}
		}
		if t.Failed() {
			t.Fatalf("world %d failed (%d cases checked so far)", w, cases.total())
		}
	}
	t.Logf("%d (world, viewer, path) cases checked: %s", cases.total(), cases)
	if cases["popular item"] == 0 {
		t.Error("no popular item was checked: the check is vacuous")
	}
	if !testing.Short() && cases.total() < 25000 {
		t.Errorf("only %d cases checked, want at least 25,000", cases.total())
	}
}
