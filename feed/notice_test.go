package feed_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"tributary"
	"tributary/feed"
)

// A home notice told from its last count (NoticeState.Arrive, as a live stream tells it when
// posts are made) says what a fresh count says, share after share: new items, items counted
// already, an item the reader hid, posts of a private account the reader reads, authors
// outside the followed set, the reader's own shares and the cap, in random orders.
func TestNoticeArriveAgreesWithAFreshCount(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			w := newWorld(t)
			for _, h := range []string{"viewer", "ada", "bob", "cy", "pri", "dee", "shut"} {
				w.user(h, false, 0)
			}
			w.follow("viewer", "ada", "bob", "cy", "pri")
			if err := w.store.SetVisibility(w.ctx, w.users["pri"].ID, tributary.AccessPrivate, w.now); err != nil {
				t.Fatal(err)
			}
			if err := w.store.SetVisibility(w.ctx, w.users["shut"].ID, tributary.AccessPrivate, w.now); err != nil {
				t.Fatal(err)
			}
			if _, err := w.store.Follow(w.ctx, w.users["viewer"].ID, w.users["shut"].ID); err != nil { // a request, never approved
				t.Fatal(err)
			}
			links := make([]string, 8)
			for i := range links {
				links[i] = fmt.Sprintf("https://example.com/notice/%d", i)
			}
			share := func(handle, link string) int64 {
				t.Helper()
				p, err := tributary.Prepare(tributary.NewPost{AuthorID: w.users[handle].ID, URL: link, Title: link, CreatedAt: w.now})
				if err != nil {
					t.Fatal(err)
				}
				id, err := w.store.CreatePost(w.ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				return id
			}
			w.now = w.now.Add(-time.Hour)
			hidden := share("ada", links[0])
			share("bob", links[1])
			w.now = w.now.Add(time.Hour)
			if err := w.store.HideItem(w.ctx, w.accessOf("viewer"), hidden, w.now); err != nil {
				t.Fatal(err)
			}
			w.refresh()
			s := w.service(nil)
			viewer := w.users["viewer"]
			access := w.accessOf("viewer")
			q := tributary.FeedQuery{Limit: 10}
			after, err := feed.ParseFencepost(w.timeline(s, "viewer", q).Fencepost)
			if err != nil {
				t.Fatal(err)
			}
			const max = 5
			var state feed.NoticeState
			ctx := feed.WithNoticeState(w.ctx, &state)
			count := func(stream bool) int {
				t.Helper()
				c := w.ctx
				if stream {
					c = ctx
				}
				n, err := s.NewCount(c, &viewer, q, after, max)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			told := count(true)
			arrived := 0
			for step := range 30 {
				w.now = w.now.Add(time.Minute)
				author := []string{"ada", "bob", "cy", "pri", "dee", "shut", "viewer"}[rng.IntN(7)]
				id := share(author, links[rng.IntN(len(links))])
				if id == 0 {
					continue // the same share again: nothing made
				}
				posts, err := w.store.LivePosts(w.ctx, []int64{id})
				if err != nil || len(posts) != 1 {
					t.Fatalf("live post %d: %v, %v", id, posts, err)
				}
				p := posts[0]
				how := "skipped"
				switch {
				case !access.CanRead(p.Access) || !state.MayCount(p.AuthorID, p.InGroup):
				default:
					if n, ok := state.Arrive(after, p.AnchorID, p.AuthorID, p.InGroup); ok {
						told, how = n, "told"
						arrived++
					} else {
						told, how = count(true), "asked"
					}
				}
				if fresh := count(false); told != fresh {
					t.Fatalf("step %d: %s shared (%s): the notice says %d, a fresh count %d", step, author, how, told, fresh)
				}
			}
			if arrived < 3 {
				t.Errorf("only %d shares were told without asking", arrived)
			}
			state.Forget() // who may read what changed: the next notice is asked
			if _, ok := state.Arrive(after, 1<<40, w.users["ada"].ID, false); ok {
				t.Error("a forgotten state told a notice")
			}
		})
	}
}
