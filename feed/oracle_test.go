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
// directs) × every viewer and anonymous × every read path must show exactly what a brute
// force reading of DESIGN.md's rules allows.

// model is the brute-force side: the world as plain facts.
type model struct {
	users      []tributary.User
	visibility map[int64]string           // user -> access of their posts feed
	follows    map[[2]int64]string        // follower, followed -> active|pending
	bans       map[[2]int64]bool          // user, banned
	groups     []db.Group                 // current access in Group.Access
	members    map[int64]map[int64]string // group -> user -> active|pending
	posts      []modelPost
	vips       map[int64]bool
}

type modelPost struct {
	id, author, anchor int64
	own                bool
	groups             []int64
	direct             []int64 // recipients
	deleted            bool
	at                 time.Time
}

func (m *model) banned(a, b int64) bool { return m.bans[[2]int64{a, b}] || m.bans[[2]int64{b, a}] }

// feedReadable: can viewer (0 = anonymous) read a base feed?
func (m *model) feedReadable(viewer int64, access string, owner int64, privateReader func() bool) bool {
	switch access {
	case "public":
		return true
	case "protected":
		return viewer != 0 && !m.banned(viewer, owner)
	}
	return viewer != 0 && privateReader()
}

func (m *model) readable(viewer int64, p modelPost) bool {
	if p.deleted {
		return false
	}
	if p.own && m.feedReadable(viewer, m.visibility[p.author], p.author, func() bool {
		return viewer == p.author || m.follows[[2]int64{viewer, p.author}] == "active"
	}) {
		return true
	}
	for _, gid := range p.groups {
		g := m.group(gid)
		if m.feedReadable(viewer, g.Access, g.OwnerID, func() bool { return m.members[gid][viewer] == "active" }) {
			return true
		}
	}
	if len(p.direct) > 0 && viewer != 0 && (viewer == p.author || slices.Contains(p.direct, viewer)) {
		return true
	}
	return false
}

func (m *model) group(id int64) db.Group {
	for _, g := range m.groups {
		if g.ID == id {
			return g
		}
	}
	panic("no group")
}

func (m *model) followed(viewer int64) map[int64]bool {
	f := map[int64]bool{}
	if viewer == 0 {
		for id := range m.vips {
			f[id] = true
		}
		return f
	}
	f[viewer] = true
	for k, st := range m.follows {
		if k[0] == viewer && st == "active" {
			f[k[1]] = true
		}
	}
	return f
}

// feedItems: anchors with a readable post by the followed set.
func (m *model) feedItems(viewer int64) []int64 {
	fl := m.followed(viewer)
	var out []int64
	for _, p := range m.posts {
		if fl[p.author] && m.readable(viewer, p) && !slices.Contains(out, p.anchor) {
			out = append(out, p.anchor)
		}
	}
	slices.Sort(out)
	return out
}

func (m *model) postsWhere(viewer int64, keep func(modelPost) bool) []int64 {
	var out []int64
	for _, p := range m.posts {
		if keep(p) && m.readable(viewer, p) {
			out = append(out, p.id)
		}
	}
	slices.Sort(out)
	return out
}

var accesses = []string{"public", "protected", "private"}

// build makes a random world through the store's real write paths and mirrors it in a model.
func build(t *testing.T, ctx context.Context, store *db.Store, r *rand.Rand, now time.Time) *model {
	m := &model{visibility: map[int64]string{}, follows: map[[2]int64]string{}, bans: map[[2]int64]bool{},
		members: map[int64]map[int64]string{}, vips: map[int64]bool{}}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	n := 5 + r.IntN(4)
	for i := range n {
		vip := r.IntN(3) == 0
		u, err := store.CreateUser(ctx, db.NewUser{Handle: fmt.Sprintf("u%d", i), DisplayName: fmt.Sprintf("U %d", i), VIP: vip, CreatedAt: now})
		must(err)
		m.users = append(m.users, u)
		if vip {
			m.vips[u.ID] = true
		}
		m.visibility[u.ID] = "public"
	}
	pick := func() tributary.User { return m.users[r.IntN(len(m.users))] }
	for range n * 3 {
		a, b := pick(), pick()
		if a.ID == b.ID {
			continue
		}
		_, err := store.Follow(ctx, a.ID, b.ID)
		must(err)
		m.follows[[2]int64{a.ID, b.ID}] = "active"
	}
	for range 2 {
		g, err := store.CreateGroup(ctx, pick().ID, fmt.Sprintf("g%d", len(m.groups)), "", accesses[r.IntN(3)], r.IntN(2) == 0)
		must(err)
		m.groups = append(m.groups, g)
		m.members[g.ID] = map[int64]string{g.OwnerID: "active"}
		for range 3 {
			u := pick()
			if m.members[g.ID][u.ID] != "" {
				continue
			}
			pending, err := store.Join(ctx, g, u.ID)
			must(err)
			m.members[g.ID][u.ID] = map[bool]string{true: "pending", false: "active"}[pending]
			if pending && r.IntN(2) == 0 {
				must(store.ApproveMember(ctx, g, g.OwnerID, u.ID))
				m.members[g.ID][u.ID] = "active"
			}
		}
	}
	urls := []string{"https://arxiv.org/abs/2401.0000", "https://github.com/o/r", "https://example.com/a", "https://example.com/b"}
	for i := range 10 + r.IntN(14) {
		u := pick()
		url := urls[r.IntN(len(urls))] + fmt.Sprint(r.IntN(3))
		d := db.Destination{OwnFeed: r.IntN(5) != 0}
		mp := modelPost{author: u.ID, own: d.OwnFeed, at: now.Add(-time.Duration(i+1) * time.Hour)}
		for _, g := range m.groups {
			if m.members[g.ID][u.ID] == "active" && r.IntN(2) == 0 {
				d.Groups = append(d.Groups, g.ID)
				mp.groups = append(mp.groups, g.ID)
			}
		}
		if len(d.Groups) == 0 && !d.OwnFeed || r.IntN(6) == 0 {
			// A direct to the author's followers.
			d = db.Destination{}
			mp.own, mp.groups = false, nil
			for k, st := range m.follows {
				if k[1] == u.ID && st == "active" && r.IntN(2) == 0 {
					d.DirectTo = append(d.DirectTo, k[0])
				}
			}
			if len(d.DirectTo) == 0 {
				d.OwnFeed, mp.own = true, true
			}
			mp.direct = d.DirectTo
		}
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: u.ID, URL: url, CreatedAt: mp.at})
		must(err)
		id, err := store.Share(ctx, p, d)
		must(err)
		mp.id = id
		m.posts = append(m.posts, mp)
	}
	// Anchor ids come from the database.
	for i := range m.posts {
		err := store.Pool.QueryRow(ctx, "SELECT anchor_id FROM posts WHERE id = $1", m.posts[i].id).Scan(&m.posts[i].anchor)
		must(err)
	}
	// Visibility and bans last, so follows above were made while everyone was public
	// (going private keeps current followers as readers).
	for _, u := range m.users {
		if a := accesses[r.IntN(3)]; a != "public" && r.IntN(2) == 0 {
			must(store.SetVisibility(ctx, u.ID, a, now))
			m.visibility[u.ID] = a
		}
	}
	for range 2 {
		a, b := pick(), pick()
		if a.ID != b.ID && r.IntN(2) == 0 {
			must(store.Ban(ctx, a.ID, b.ID))
			m.ban(a.ID, b.ID)
		}
	}
	// A request to a private account, sometimes approved.
	for _, u := range m.users {
		if m.visibility[u.ID] == "private" {
			f := pick()
			if f.ID != u.ID && m.follows[[2]int64{f.ID, u.ID}] == "" && !m.banned(f.ID, u.ID) {
				_, err := store.Follow(ctx, f.ID, u.ID)
				must(err)
				m.follows[[2]int64{f.ID, u.ID}] = "pending"
				if r.IntN(2) == 0 {
					must(store.Approve(ctx, u.ID, f.ID))
					m.follows[[2]int64{f.ID, u.ID}] = "active"
				}
			}
		}
	}
	return m
}

// ban mirrors Store.Ban: the ban, and no following either way.
func (m *model) ban(a, b int64) {
	m.bans[[2]int64{a, b}] = true
	delete(m.follows, [2]int64{a, b})
	delete(m.follows, [2]int64{b, a})
}

// change applies one random revocation through the store and the model.
func change(t *testing.T, ctx context.Context, store *db.Store, r *rand.Rand, m *model, now time.Time) {
	u := m.users[r.IntN(len(m.users))]
	var err error
	switch r.IntN(5) {
	case 0:
		a := accesses[r.IntN(3)]
		err = store.SetVisibility(ctx, u.ID, a, now)
		m.visibility[u.ID] = a
	case 1:
		o := m.users[r.IntN(len(m.users))]
		if o.ID != u.ID {
			err = store.Ban(ctx, u.ID, o.ID)
			m.ban(u.ID, o.ID)
		}
	case 2:
		for k := range m.follows {
			if k[1] == u.ID {
				err = store.RemoveSubscriber(ctx, u.ID, k[0])
				delete(m.follows, k)
				break
			}
		}
	case 3:
		g := m.groups[r.IntN(len(m.groups))]
		if m.members[g.ID][u.ID] != "" && u.ID != g.OwnerID {
			err = store.RemoveMember(ctx, g, u.ID, u.ID)
			delete(m.members[g.ID], u.ID)
		} else {
			a := accesses[r.IntN(3)]
			err = store.SetGroupAccess(ctx, g, g.OwnerID, a, now)
			for i := range m.groups {
				if m.groups[i].ID == g.ID {
					m.groups[i].Access = a
				}
			}
		}
	case 4:
		for i := range m.posts {
			if m.posts[i].author == u.ID && !m.posts[i].deleted {
				err = store.DeletePost(ctx, u.ID, m.posts[i].id, now)
				m.posts[i].deleted = true
				break
			}
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

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
	cases := 0
	worlds := 90
	if testing.Short() {
		worlds = 8
	}
	for w := range worlds {
		r := rand.New(rand.NewPCG(uint64(w), 2026))
		if _, err := store.Pool.Exec(ctx, `TRUNCATE users, anchors, feed_snapshot, snapshot_meta, fences, fenceposts RESTART IDENTITY CASCADE`); err != nil {
			t.Fatal(err)
		}
		m := build(t, ctx, store, r, now)
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
		// First pages commit fenceposts before the revocations below.
		firsts := map[int64]string{}
		for _, v := range viewers {
			tl, err := snap.Timeline(ctx, v, tributary.FeedQuery{Limit: 3, IncludeSeen: true})
			if err != nil {
				t.Fatal(err)
			}
			firsts[id(v)] = tl.NextCursor
		}
		for range r.IntN(3) {
			change(t, ctx, store, r, m, now)
		}
		snap.AccessChanged()

		for _, v := range viewers {
			vid := id(v)
			label := fmt.Sprintf("world %d viewer %d", w, vid)
			want := m.feedItems(vid)
			check := func(path string, items []tributary.Item) {
				t.Helper()
				cases++
				got := []int64{}
				for _, it := range items {
					got = append(got, it.ID)
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
				slices.Sort(got)
				if !slices.Equal(slices.Compact(got), want) {
					t.Errorf("%s %s: items %v, want %v", label, path, got, want)
				}
			}
			check("snapshot", walkAll(t, ctx, snap, v, ""))
			check("live", walkAll(t, ctx, live, v, ""))
			if copied && v != nil {
				// Ranked on the copy, the first page is the one PostgreSQL ranks.
				var heads [2][]int64
				for i, svc := range []*feed.Service{snap, sqlRanked} {
					if err := store.ResetFences(ctx, v.ID); err != nil {
						t.Fatal(err)
					}
					tl, err := svc.Timeline(ctx, v, tributary.FeedQuery{Limit: 50, IncludeSeen: true})
					if err != nil {
						t.Fatal(err)
					}
					for _, it := range tl.Items {
						heads[i] = append(heads[i], it.ID)
					}
				}
				cases++
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
				cases++
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
			cases++
			if n != len(want) {
				t.Errorf("%s new notice: %d new, want %d", label, n, len(want))
			}
			access, err := store.ViewerAccess(ctx, vid)
			if err != nil {
				t.Fatal(err)
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
			cases++
			for _, p := range m.posts {
				anyReadable := slices.ContainsFunc(m.posts, func(q modelPost) bool { return q.anchor == p.anchor && m.readable(vid, q) })
				if ok[p.anchor] != anyReadable {
					t.Errorf("%s events: item %d accepted=%v, want %v", label, p.anchor, ok[p.anchor], anyReadable)
				}
			}
			postIDs := func(ps []tributary.Post) []int64 {
				out := []int64{}
				for _, p := range ps {
					out = append(out, p.ID)
				}
				slices.Sort(out)
				return out
			}
			for _, u := range m.users {
				posts, _, err := store.UserPosts(ctx, u.ID, access, db.PostCursor{}, 100)
				if err != nil {
					t.Fatal(err)
				}
				cases++
				if got, want := postIDs(posts), m.postsWhere(vid, func(p modelPost) bool { return p.author == u.ID }); !slices.Equal(got, want) {
					t.Errorf("%s user page of %d: posts %v, want %v", label, u.ID, got, want)
				}
			}
			for _, g := range m.groups {
				posts, _, err := store.FeedPosts(ctx, g.ID, access, db.PostCursor{}, 100)
				if err != nil {
					t.Fatal(err)
				}
				cases++
				if got, want := postIDs(posts), m.postsWhere(vid, func(p modelPost) bool { return slices.Contains(p.groups, g.ID) }); !slices.Equal(got, want) {
					t.Errorf("%s group page %d: posts %v, want %v", label, g.ID, got, want)
				}
			}
			if vid != 0 {
				posts, _, err := store.DirectPosts(ctx, vid, db.PostCursor{}, 100)
				if err != nil {
					t.Fatal(err)
				}
				cases++
				want := m.postsWhere(vid, func(p modelPost) bool {
					return len(p.direct) > 0 && (p.author == vid || slices.Contains(p.direct, vid))
				})
				if got := postIDs(posts); !slices.Equal(got, want) {
					t.Errorf("%s directs: posts %v, want %v", label, got, want)
				}
			}
		}
		if t.Failed() {
			t.Fatalf("world %d failed (%d cases checked so far)", w, cases)
		}
	}
	t.Logf("%d (world, viewer, path) cases checked", cases)
	if !testing.Short() && cases < 10000 {
		t.Errorf("only %d cases checked, want at least 10,000", cases)
	}
}
