package feed_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"tributary"
	"tributary/feed"
)

// Scrolling a chronological feed by cursor while comments bump its posts: every scroll
// shows each post at most once per fencepost, and loses none of the posts that existed when
// it started (a post bumped ahead of the reader still comes where it was; one bumped behind
// them does not come again in the same fencepost).
func TestChronoScrollWhileBumping(t *testing.T) {
	w := newWorld(t)
	ada, cat := w.user("ada", false, 0), w.user("cat", false, 0)
	w.user("bob", false, 0)
	const n = 130
	for i := range n {
		// Posts a few minutes apart over the last two days: the older half past the bump age.
		w.share("ada", fmt.Sprintf("https://example.com/post/%d", i), time.Duration(n-i)*22*time.Minute, false)
	}
	ids := w.postIDs(ada.ID)
	svc := w.service(nil)
	r := rand.New(rand.NewPCG(3, 4))
	bumps := 0
	for trial := range 30 {
		if trial%3 == 0 { // some scrolls start over a fresh fence, the others on the fenceposts before
			if err := w.store.ResetFences(w.ctx, cat.ID); err != nil {
				t.Fatal(err)
			}
		}
		w.now = w.now.Add(time.Minute)
		existing := w.postIDs(ada.ID)
		seen := map[int64]map[time.Time]bool{}
		cursor := ""
		for pages := 0; ; pages++ {
			p, err := svc.Chrono(w.ctx, &cat, feed.Chrono{Author: ada.ID}, cursor, 1+r.IntN(20))
			if err != nil {
				t.Fatal(err)
			}
			if p.Refreshed {
				t.Fatalf("trial %d: the fence was lost mid-scroll", trial)
			}
			for i, post := range p.Posts {
				if seen[post.ID] == nil {
					seen[post.ID] = map[time.Time]bool{}
				}
				if seen[post.ID][p.In[i]] {
					t.Fatalf("trial %d page %d: post %d shown twice in fencepost %s", trial, pages, post.ID, p.In[i])
				}
				seen[post.ID][p.In[i]] = true
			}
			// Between pages, people comment: some comments bump their posts, ahead of or
			// behind the reader.
			for range r.IntN(3) {
				w.now = w.now.Add(time.Duration(1+r.IntN(5)) * time.Minute)
				_, bumped, err := w.store.AddComment(w.ctx, mustAccess(t, w, "bob"), ids[r.IntN(len(ids))], "+1", w.now, tributary.DefaultBumpRule)
				if err != nil {
					t.Fatal(err)
				}
				if bumped {
					bumps++
				}
			}
			if p.NextCursor == "" {
				break
			}
			cursor = p.NextCursor
		}
		for _, id := range existing {
			if seen[id] == nil {
				t.Fatalf("trial %d: post %d, there when the scroll began, never came", trial, id)
			}
		}
	}
	if bumps < 20 {
		t.Fatalf("only %d bumps happened: the test does not test bumping", bumps)
	}
}

// postIDs lists an author's posts, newest first.
func (w *world) postIDs(author int64) []int64 {
	w.t.Helper()
	rows, err := w.store.Pool.Query(w.ctx, "SELECT id FROM posts WHERE author_id = $1 ORDER BY id DESC", author)
	if err != nil {
		w.t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			w.t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}
