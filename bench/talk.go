package bench

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"tributary"
)

// Conversations: a like, a comment with the bump it causes, and a post page with a long
// thread, each as the app answers it to htmx (tier 0: the card's or thread's new state).

const (
	talkPosts    = 200 // fresh posts the like and comment scenarios act on
	threadLength = 200 // comments of the post page scenario's post
)

// talkers are logged-in clients of the event users (minted sessions), reused by the
// conversation scenarios: each request acts as the next of them.
func (w *world) talkers() []*client {
	out := make([]*client, len(w.events))
	for i, tok := range w.events {
		out[i] = newClient(w.base, w.tr)
		out[i].setSession(tok)
	}
	return out
}

// freshPosts shares n links by public authors now (up to n of them, the first skipped
// left out): posts younger than a day, so that each comment on them bumps them, and
// readable by every talker.
func (w *world) freshPosts(ctx context.Context, n, skipped int) ([]int64, error) {
	var authors []int64
	err := w.pool.QueryRow(ctx, `SELECT coalesce(array_agg(owner_id ORDER BY owner_id), '{}') FROM (
		SELECT owner_id FROM feeds WHERE kind = 'posts' AND access = 'public' ORDER BY owner_id LIMIT $1 OFFSET $2) f`, n, skipped).Scan(&authors)
	if err == nil && len(authors) == 0 {
		err = fmt.Errorf("no public authors")
	}
	if err != nil {
		return nil, fmt.Errorf("bench: fresh posts: %w", err)
	}
	ids := make([]int64, n)
	for i := range ids {
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: authors[i%len(authors)], URL: w.shareURLs[i%len(w.shareURLs)],
			Title: fmt.Sprintf("Benchmark discussion %d", w.posted.Add(1)), Body: "A post to talk about while the benchmark runs.",
			CreatedAt: time.Now()})
		if err != nil {
			return nil, err
		}
		if ids[i], err = w.store.CreatePost(ctx, p); err != nil {
			return nil, fmt.Errorf("bench: fresh post: %w", err)
		}
	}
	return ids, nil
}

// postForm posts a form as htmx does from a card, and expects want.
func (c *client) postForm(ctx context.Context, path string, form url.Values, want int) ([]byte, latency, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", c.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, latency{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("HX-Request", "true")
	return c.do(req, want)
}

// talkScenarios are the conversation scenarios.
func (w *world) talkScenarios(conc int) []scenario {
	var posts []int64
	var talkers []*client
	setup := func(ctx context.Context) error {
		if posts != nil {
			return nil
		}
		var err error
		talkers = w.talkers()
		posts, err = w.freshPosts(ctx, talkPosts, 0)
		return err
	}
	// Request n acts as talker t = n mod T on post (n / T + t) mod P: every (talker, post) pair
	// once before any repeats, so each like is a new one, and requests in flight together act
	// on different posts (likes of one post wait for each other on its row: a viral post's
	// queue, not a like's cost).
	pick := func(n int64) (*client, int64) {
		t := int64(len(talkers))
		return talkers[n%t], posts[(n/t+n%t)%int64(len(posts))]
	}
	likeSeq, commentSeq := new(atomic.Int64), new(atomic.Int64)
	like := scenario{Name: "like", Group: "conversations", Kind: "http", Concurrency: conc, Alternate: "like_quiet",
		Note:  fmt.Sprintf("POST /p/{id}/like from a card (htmx): a new like by one of %d users on one of %d fresh posts, answered with the card's conversation line", len(w.events), talkPosts),
		setup: setup,
		worker: func(int) step {
			return func(ctx context.Context) (latency, error) {
				c, post := pick(likeSeq.Add(1))
				body, d, err := c.postForm(ctx, "/p/"+strconv.FormatInt(post, 10)+"/like",
					url.Values{"view": {"post"}, "return": {"/"}}, http.StatusOK)
				if err == nil && !bytes.Contains(body, []byte(`data-testid="unlike"`)) {
					err = fmt.Errorf("like of post %d: the answer does not show it liked", post)
				}
				return d, err
			}
		}}
	comment := scenario{Name: "comment_bump", Group: "conversations", Kind: "http", Concurrency: conc,
		Note:  fmt.Sprintf("POST /p/{id}/comments from a card (htmx) on one of %d posts younger than a day: each comment bumps its post (a new ord in every feed holding it) in the same transaction", talkPosts),
		setup: setup,
		worker: func(int) step {
			return func(ctx context.Context) (latency, error) {
				n := commentSeq.Add(1)
				c, post := pick(n)
				body, d, err := c.postForm(ctx, "/p/"+strconv.FormatInt(post, 10)+"/comments",
					url.Values{"view": {"post"}, "return": {"/"}, "body": {fmt.Sprintf("Benchmark comment %d: thanks for sharing, see #ml", n)}}, http.StatusOK)
				if err == nil && !bytes.Contains(body, []byte(`data-testid="added"`)) {
					err = fmt.Errorf("comment on post %d: the answer does not show it", post)
				}
				return d, err
			}
		}}
	var thread int64
	page := scenario{Name: fmt.Sprintf("post_page_%d", threadLength), Group: "conversations", Kind: "http", Concurrency: conc,
		Note: fmt.Sprintf("GET /p/{id} by logged-in readers: a post with %d comments (mentions, tags) and 50 likes", threadLength),
		setup: func(ctx context.Context) error {
			if err := setup(ctx); err != nil || thread != 0 {
				return err
			}
			ids, err := w.freshPosts(ctx, 1, 0)
			if err != nil {
				return err
			}
			thread = ids[0]
			for i := range threadLength {
				v, err := w.store.ViewerAccess(ctx, int64(i%len(w.events))+1)
				if err != nil {
					return err
				}
				body := fmt.Sprintf("Comment %d on the thread: @%s makes a good point about #ml.", i, "alan")
				if _, _, err := w.store.AddComment(ctx, v, thread, body, time.Now(), tributary.DefaultBumpRule); err != nil {
					return fmt.Errorf("bench: thread: %w", err)
				}
				if i < 50 {
					if err := w.store.Like(ctx, v, thread, time.Now()); err != nil {
						return fmt.Errorf("bench: thread likes: %w", err)
					}
				}
			}
			return nil
		},
		worker: func(i int) step {
			k := i
			return func(ctx context.Context) (latency, error) {
				c := talkers[k%len(talkers)]
				k += conc
				body, d, err := c.get(ctx, "/p/"+strconv.FormatInt(thread, 10))
				// The page shows the thread's first page; a reader in a ban with a commenter sees a
				// little less of it.
				want := min(threadLength, tributary.ThreadPageSize)
				if n := bytes.Count(body, []byte(`data-testid="comment"`)); err == nil && n < want*9/10 {
					err = fmt.Errorf("post page %d: %d comments shown, want about %d", thread, n, want)
				}
				return d, err
			}
		}}
	return []scenario{like, comment, page}
}
