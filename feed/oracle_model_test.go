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
)

// The access oracle's worlds (see oracle_test.go): random small worlds built through the
// store, and the same world as plain facts that the rules are read against.

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
	likes      map[[2]int64]time.Time // post, user -> when liked
	comments   []modelComment         // live ones, in the order made
}

type modelPost struct {
	id, author, anchor int64
	own                bool
	groups             []int64
	direct             []int64 // recipients
	deleted            bool
	at                 time.Time
}

// modelComment is a comment as the model knows it.
type modelComment struct {
	id, post, author int64
	body             string
	at               time.Time
	edited           bool
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

func (m *model) post(id int64) modelPost {
	for _, p := range m.posts {
		if p.id == id {
			return p
		}
	}
	panic("no post")
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

// toFollowers: the post reaches its author's followers' home feeds, being in the author's
// own feed or a direct; a post only in groups does not (the destination rule).
func (p modelPost) toFollowers() bool { return p.own || len(p.direct) > 0 }

// inMemberGroup: the post is in a group the viewer is an active member of, so it reaches
// their home feed (the destination rule: a home feed aggregates its reader's groups).
func (m *model) inMemberGroup(viewer int64, p modelPost) bool {
	return viewer != 0 && slices.ContainsFunc(p.groups, func(g int64) bool { return m.members[g][viewer] == "active" })
}

// feedItems: anchors with a readable post by the followed set that reaches followers, or in
// one of the viewer's groups.
func (m *model) feedItems(viewer int64) []int64 { return m.homeItems(viewer, m.followed(viewer)) }

// homeItems: feedItems with fl as the followed set.
func (m *model) homeItems(viewer int64, fl map[int64]bool) []int64 {
	var out []int64
	for _, p := range m.posts {
		reaches := (fl[p.author] && p.toFollowers()) || m.inMemberGroup(viewer, p)
		if reaches && m.readable(viewer, p) && !slices.Contains(out, p.anchor) {
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
		members: map[int64]map[int64]string{}, vips: map[int64]bool{}, likes: map[[2]int64]time.Time{}}
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
		// Two hours apart: the older half is past the age under which a comment bumps.
		mp := modelPost{author: u.ID, own: d.OwnFeed, at: now.Add(-time.Duration(i+1) * 2 * time.Hour)}
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

// deleteAccount deletes a user's account through the store and the model: their posts are
// deleted, their likes, comments, follows and memberships gone; everyone else's stay.
func deleteAccount(t *testing.T, ctx context.Context, store *db.Store, m *model, u int64, now time.Time) {
	t.Helper()
	if err := store.DeleteAccount(ctx, u, now); err != nil {
		t.Fatal(err)
	}
	for i := range m.posts {
		if m.posts[i].author == u {
			m.posts[i].deleted = true
		}
	}
	for k := range m.likes {
		if k[1] == u {
			delete(m.likes, k)
		}
	}
	m.comments = slices.DeleteFunc(m.comments, func(c modelComment) bool { return c.author == u })
	for k := range m.follows {
		if k[0] == u || k[1] == u {
			delete(m.follows, k)
		}
	}
	for _, members := range m.members {
		delete(members, u)
	}
}
