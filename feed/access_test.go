package feed_test

import (
	"slices"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/feed"
)

// Named cases of the access rules (DESIGN.md, seed 003); the oracle covers random worlds.

func (w *world) shareTo(handle, url string, d db.Destination) {
	w.t.Helper()
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: w.users[handle].ID, URL: url, Title: url, CreatedAt: w.now.Add(-time.Hour)})
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.store.Share(w.ctx, p, d); err != nil {
		w.t.Fatal(err)
	}
}

// visible walks the viewer's whole feed (from a fresh first page) and reports whether url is in it.
func (w *world) visible(viewer, url string) bool {
	w.t.Helper()
	return slices.Contains(urls(w.timeline(w.service(nil), viewer, tributary.FeedQuery{Limit: 100, IncludeSeen: true})), url)
}

func TestSeedF1F2Example(t *testing.T) {
	// A post in private F1 where V is a reader and in protected F2 whose owner banned V is
	// visible to V: one readable feed suffices.
	w := newWorld(t)
	w.user("v", false, 0)
	w.user("owner", false, 0)
	w.follow("v", "owner")
	f1, err := w.store.CreateGroup(w.ctx, w.users["owner"].ID, "f1", "", tributary.AccessPrivate, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.store.Join(w.ctx, f1, w.users["v"].ID); err != nil {
		t.Fatal(err)
	}
	if err := w.store.ApproveMember(w.ctx, f1, w.users["owner"].ID, w.users["v"].ID); err != nil { // private: joins wait
		t.Fatal(err)
	}
	if err := w.store.SetVisibility(w.ctx, w.users["owner"].ID, tributary.AccessProtected, w.now); err != nil {
		t.Fatal(err)
	}
	w.shareTo("owner", "https://arxiv.org/abs/2401.00777", db.Destination{OwnFeed: true, Groups: []int64{f1.ID}})
	if err := w.store.Ban(w.ctx, w.users["owner"].ID, w.users["v"].ID); err != nil { // also ends v following owner
		t.Fatal(err)
	}
	w.refresh()
	v := w.users["v"]
	page, err := w.service(nil).Chrono(w.ctx, &v, feed.Chrono{Feed: f1.ID}, "", 10)
	posts := page.Posts
	if err != nil || len(posts) != 1 {
		t.Fatalf("V, a reader of private F1 banned from protected F2, sees %d posts in F1 (%v), want 1", len(posts), err)
	}
	ok, err := w.store.ReadableAnchors(w.ctx, []int64{posts[0].AnchorID}, mustAccess(t, w, "v"))
	if err != nil || !ok[posts[0].AnchorID] {
		t.Fatalf("the item is not readable by V: %v", err)
	}
	// Leaving F1 removes the only readable feed.
	if err := w.store.RemoveMember(w.ctx, f1, w.users["v"].ID, w.users["v"].ID); err != nil {
		t.Fatal(err)
	}
	ok, _ = w.store.ReadableAnchors(w.ctx, []int64{posts[0].AnchorID}, mustAccess(t, w, "v"))
	if ok[posts[0].AnchorID] {
		t.Fatal("after leaving F1, V still reads the post through the protected feed whose owner banned V")
	}
}

func mustAccess(t *testing.T, w *world, handle string) tributary.Viewer {
	t.Helper()
	v, err := w.store.ViewerAccess(w.ctx, w.users[handle].ID)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// revocationWorld: reader follows author; author shares a paper publicly; reader has a
// committed first page holding it.
func revocationWorld(t *testing.T) (*world, string) {
	w := newWorld(t)
	w.user("reader", false, 0)
	w.user("author", true, 0)
	w.follow("reader", "author")
	const url = "https://arxiv.org/abs/2401.04242"
	w.shareTo("author", url, db.Destination{OwnFeed: true})
	w.refresh()
	if !w.visible("reader", url) {
		t.Fatal("the reader does not see the share to begin with")
	}
	return w, url
}

// committedPageStillShows loads a first page, applies revoke, and reports whether the same
// fence (no reset) and a fresh walk still show url.
func committedAfter(t *testing.T, w *world, viewer, url string, revoke func()) (fence, fresh, anon bool) {
	t.Helper()
	s := w.service(nil)
	v := w.users[viewer]
	first, err := s.Timeline(w.ctx, &v, tributary.FeedQuery{Limit: 100, IncludeSeen: true})
	if err != nil || !slices.Contains(urls(first), url) {
		t.Fatalf("first page lacks %s: %v", url, err)
	}
	anonFirst, _ := s.Timeline(w.ctx, nil, tributary.FeedQuery{Limit: 100})
	revoke()
	s.AccessChanged()
	again, err := s.Timeline(w.ctx, &v, tributary.FeedQuery{Limit: 100, IncludeSeen: true}) // same fencepost, re-checked
	if err != nil {
		t.Fatal(err)
	}
	anonAgain, _ := s.Timeline(w.ctx, nil, tributary.FeedQuery{Limit: 100})
	_ = anonFirst
	return slices.Contains(urls(again), url), w.visible(viewer, url), slices.Contains(urls(anonAgain), url)
}

func TestRevocations(t *testing.T) {
	for _, tc := range []struct {
		name    string
		revoke  func(w *world)
		anonToo bool // the anonymous front page loses it too
	}{
		{"going private", func(w *world) {
			// Followers at the time of going private keep reading; so remove the reader first
			// by making them a new, unapproved follower.
			w.store.Unfollow(w.ctx, w.users["reader"].ID, w.users["author"].ID)
			w.store.SetVisibility(w.ctx, w.users["author"].ID, tributary.AccessPrivate, w.now)
			w.store.Follow(w.ctx, w.users["reader"].ID, w.users["author"].ID) // a request now
		}, true},
		{"banning", func(w *world) {
			w.store.SetVisibility(w.ctx, w.users["author"].ID, tributary.AccessProtected, w.now)
			w.store.Ban(w.ctx, w.users["author"].ID, w.users["reader"].ID)
		}, true},
		{"removing a subscriber", func(w *world) {
			w.store.SetVisibility(w.ctx, w.users["author"].ID, tributary.AccessPrivate, w.now)
			w.store.RemoveSubscriber(w.ctx, w.users["author"].ID, w.users["reader"].ID)
		}, true},
		{"deleting the post", func(w *world) {
			var id int64
			w.store.Pool.QueryRow(w.ctx, "SELECT id FROM posts LIMIT 1").Scan(&id)
			w.store.DeletePost(w.ctx, w.users["author"].ID, id, w.now)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, url := revocationWorld(t)
			fence, fresh, anon := committedAfter(t, w, "reader", url, func() { tc.revoke(w) })
			if fence || fresh {
				t.Fatalf("after %s the reader still sees the post (committed fencepost %v, fresh feed %v)", tc.name, fence, fresh)
			}
			if tc.anonToo && anon {
				t.Fatalf("after %s the anonymous front page still shows the post", tc.name)
			}
		})
	}
}

func TestLeavingAGroup(t *testing.T) {
	w := newWorld(t)
	w.user("reader", false, 0)
	w.user("author", false, 0)
	w.follow("reader", "author")
	g, err := w.store.CreateGroup(w.ctx, w.users["author"].ID, "lab", "", tributary.AccessPrivate, false)
	if err != nil {
		t.Fatal(err)
	}
	w.store.Join(w.ctx, g, w.users["reader"].ID) // a private group's joins wait for an admin
	if err := w.store.ApproveMember(w.ctx, g, w.users["author"].ID, w.users["reader"].ID); err != nil {
		t.Fatal(err)
	}
	// A post only in a group is read on the group's page (not in its author's followers'
	// homes): a fencepost committed there before leaving shows it no more.
	const url = "https://github.com/lab/secret"
	w.shareTo("author", url, db.Destination{Groups: []int64{g.ID}})
	w.now = w.now.Add(time.Minute)
	w.shareTo("author", "https://github.com/lab/newer", db.Destination{Groups: []int64{g.ID}})
	s, v, lab := w.service(nil), w.users["reader"], feed.Chrono{Feed: g.ID}
	shows := func(p feed.ChronoPage) bool {
		return slices.ContainsFunc(p.Posts, func(p tributary.Post) bool { return p.URL == url })
	}
	first, err := s.Chrono(w.ctx, &v, lab, "", 1)
	if err != nil || first.NextCursor == "" {
		t.Fatalf("the group's first page: %v, next cursor %q", err, first.NextCursor)
	}
	w.store.RemoveMember(w.ctx, g, v.ID, v.ID)
	s.AccessChanged()
	committed, err := s.Chrono(w.ctx, &v, lab, first.NextCursor, 10)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := s.Chrono(w.ctx, &v, lab, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if shows(committed) || shows(fresh) {
		t.Fatalf("after leaving the private group the reader still sees its post (fence %v, fresh %v)", shows(committed), shows(fresh))
	}
}

func TestMixedAnchorShowsOnlyReadableSharers(t *testing.T) {
	// One paper shared publicly by pub (a VIP) and privately by priv: anonymous visitors and
	// outsiders see it with pub alone; priv's approved follower sees both.
	w := newWorld(t)
	w.user("pub", true, 0)
	w.user("priv", false, 0)
	w.user("friend", false, 0)
	w.user("outsider", false, 0)
	w.store.SetVisibility(w.ctx, w.users["priv"].ID, tributary.AccessPrivate, w.now)
	w.store.Follow(w.ctx, w.users["friend"].ID, w.users["priv"].ID)
	w.store.Approve(w.ctx, w.users["priv"].ID, w.users["friend"].ID)
	w.follow("friend", "pub")
	w.follow("outsider", "pub")
	const url = "https://arxiv.org/abs/2401.05555"
	w.share("pub", url, 3*time.Hour, false)
	w.share("priv", url+"v2", 2*time.Hour, true, "https://example.com/private-notes") // richer: would be the representative
	w.refresh()
	sharers := func(viewer string) []string {
		t.Helper()
		for _, it := range w.timeline(w.service(nil), viewer, tributary.FeedQuery{IncludeSeen: true}).Items {
			if it.AnchorURL == url {
				var hs []string
				for _, s := range it.Sharers {
					hs = append(hs, s.Handle)
				}
				slices.Sort(hs)
				return hs
			}
		}
		return nil
	}
	for _, tc := range []struct {
		viewer string
		want   []string
	}{{"", []string{"pub"}}, {"outsider", []string{"pub"}}, {"friend", []string{"priv", "pub"}}} {
		if got := sharers(tc.viewer); !slices.Equal(got, tc.want) {
			t.Errorf("viewer %q sees sharers %v, want %v", tc.viewer, got, tc.want)
		}
	}
}
