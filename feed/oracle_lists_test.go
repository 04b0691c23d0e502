package feed_test

import (
	"math/rand/v2"
	"slices"
	"time"

	"tributary"
	"tributary/feed"
)

// The access oracle over lists (issue 16): each logged-in viewer of a world makes a list of
// random people (followed or not, banned or not, themselves sometimes), and its feed, read
// on the snapshot path and the live path, must hold exactly the items with a share by a
// member that the viewer may read, its "N new" notice count them, and nobody else may read
// it; made exclusive, its members' shares leave the viewer's home feed.

// itemsSharedBy are the items with a share by one of who that viewer may read.
func (m *model) itemsSharedBy(viewer int64, who map[int64]bool) []int64 {
	var out []int64
	for _, p := range m.posts {
		if who[p.author] && p.toFollowers() && m.readable(viewer, p) && !slices.Contains(out, p.anchor) {
			out = append(out, p.anchor)
		}
	}
	slices.Sort(out)
	return out
}

// walkList scrolls a whole list feed.
func (o *viewerCase) walkList(s *feed.Service, list int64) ([]int64, error) {
	var got []int64
	cursor := ""
	for range 50 {
		tl, err := s.Timeline(o.ctx, o.v, tributary.FeedQuery{Limit: 4, Cursor: cursor, IncludeSeen: true, List: list})
		if err != nil {
			return nil, err
		}
		for _, it := range tl.Items {
			got = append(got, it.ID)
		}
		if cursor = tl.NextCursor; cursor == "" {
			break
		}
	}
	slices.Sort(got)
	return slices.Compact(got), nil
}

func (o *viewerCase) lists(r *rand.Rand, services map[string]*feed.Service, snap *feed.Service) {
	t := o.t
	t.Helper()
	members := map[int64]bool{}
	list, err := o.store.CreateList(o.ctx, o.id, "oracle", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range o.m.users {
		if r.IntN(3) == 0 {
			members[u.ID] = true
			if err := o.store.AddListMember(o.ctx, o.id, list, u.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := o.m.itemsSharedBy(o.id, members)
	for path, s := range services {
		got, err := o.walkList(s, list)
		if err != nil {
			t.Fatal(err)
		}
		o.cases["list "+path]++
		if !slices.Equal(got, want) {
			t.Errorf("%s list (%s) of %v: items %v, want %v", o.label, path, members, got, want)
		}
	}
	n, err := snap.NewCount(o.ctx, o.v, tributary.FeedQuery{Limit: 20, List: list}, o.now.Add(-1000*time.Hour), 1000)
	if err != nil {
		t.Fatal(err)
	}
	o.cases["list new notice"]++
	if n != len(want) {
		t.Errorf("%s list new notice: %d new, want %d", o.label, n, len(want))
	}
	// Nobody else may read it: another user, anonymous visitors.
	other := &o.m.users[r.IntN(len(o.m.users))]
	for _, who := range []*tributary.User{nil, other} {
		if who != nil && who.ID == o.id {
			continue
		}
		_, err := snap.Timeline(o.ctx, who, tributary.FeedQuery{Limit: 4, List: list})
		o.cases["someone else's list"]++
		if tributary.ErrorCode(err) != tributary.ENotFound {
			t.Errorf("%s: list read by %v: error %v, want not found", o.label, who, err)
		}
	}
	// Exclusive: the home feed is the followed set's less the members' (but the viewer's own),
	// and the viewer's groups' (a group's post reaches its members whoever wrote it).
	if err := o.store.SetListExclusive(o.ctx, o.id, list, true); err != nil {
		t.Fatal(err)
	}
	home := o.m.followed(o.id)
	for id := range members {
		if id != o.id {
			delete(home, id)
		}
	}
	wantHome := o.m.homeItems(o.id, home)
	var got []int64
	for _, it := range walkAll(t, o.ctx, snap, o.v, "") {
		got = append(got, it.ID)
	}
	slices.Sort(got)
	o.cases["home less an exclusive list"]++
	if got = slices.Compact(got); !slices.Equal(got, wantHome) {
		t.Errorf("%s home feed with an exclusive list of %v: items %v, want %v", o.label, members, got, wantHome)
	}
	if err := o.store.DeleteList(o.ctx, o.id, list); err != nil {
		t.Fatal(err)
	}
}
