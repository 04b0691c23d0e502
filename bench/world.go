package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tributary"
	"tributary/db"
)

// Follower classes: how many people a logged-in viewer follows.
var classes = []struct {
	Name   string
	Target int
}{{"light", 10}, {"median", 150}, {"heavy", 2000}}

// viewer is a seeded user the bench logs in as.
type viewer struct {
	ID        int64
	Handle    string
	Followees []int64 // everyone they follow (for new shares by a followee)
	c         *client
}

// class is the viewers of one follower class.
type class struct {
	Name    string
	Target  int
	Viewers []*viewer
}

// followeeRange is the smallest and largest followee count of the class's viewers.
func (c class) followeeRange() (int, int) {
	lo, hi := 0, 0
	for i, v := range c.Viewers {
		n := len(v.Followees)
		if i == 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	return lo, hi
}

// world is what the scenarios share: the server, the harness's own database access (for
// untimed preparation) and the logged-in viewers.
type world struct {
	base      string
	tr        *http.Transport
	pool      *pgxpool.Pool
	store     *db.Store
	classes   []class
	maxAnchor int64
	maxPost   int64    // the dataset's newest post: the bench's own posts come after it
	shareURLs []string // resources the returning scenarios share again
	posted    atomic.Int64
	anonSeq   atomic.Int64
	events    []string // session tokens of the users posting events
	eventSeq  atomic.Int64
	pageSize  int
	maxPages  int
}

// pickViewers picks n users per class whose followee count is closest to the class's target.
func pickViewers(ctx context.Context, pool *pgxpool.Pool, n int) ([]class, error) {
	var out []class
	for _, cl := range classes {
		rows, err := pool.Query(ctx, `SELECT f.follower_id, u.handle, array_agg(f.followed_id ORDER BY f.followed_id)
			  FROM follows f JOIN users u ON u.id = f.follower_id
			 WHERE f.state = 'active'
			 GROUP BY f.follower_id, u.handle
			 ORDER BY abs(count(*) - $1), f.follower_id
			 LIMIT $2`, cl.Target, n)
		if err != nil {
			return nil, fmt.Errorf("bench: pick viewers: %w", err)
		}
		c := class{Name: cl.Name, Target: cl.Target}
		for rows.Next() {
			v := &viewer{}
			if err := rows.Scan(&v.ID, &v.Handle, &v.Followees); err != nil {
				rows.Close()
				return nil, fmt.Errorf("bench: pick viewers: %w", err)
			}
			c.Viewers = append(c.Viewers, v)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("bench: pick viewers: %w", err)
		}
		if len(c.Viewers) == 0 {
			return nil, fmt.Errorf("bench: no %s followers in the dataset", cl.Name)
		}
		out = append(out, c)
	}
	return out, nil
}

// owned returns worker i's viewers: workers never share one, so resetting a viewer's fence
// cannot race with another worker's request.
func owned(vs []*viewer, i, workers int) []*viewer {
	var out []*viewer
	for j := i; j < len(vs); j += workers {
		out = append(out, vs[j])
	}
	if len(out) == 0 { // fewer viewers than workers: share, round robin
		out = append(out, vs[i%len(vs)])
	}
	return out
}

// resetFence drops a viewer's fence state: their next first page is a cold one. It is the
// app's own statement (a follow runs it), whose plan PostgreSQL keeps: planned on every
// call, this untimed preparation took 0.1 ms of PostgreSQL's CPU per cold page, beside the
// page's 0.6 ms, on the cores the timed pages run on.
func (w *world) resetFence(ctx context.Context, id int64) error {
	err := w.store.ResetFences(ctx, id)
	if err != nil {
		return fmt.Errorf("reset fence: %w", err)
	}
	return nil
}

// shareByFollowee stores a new share by one of v's followees, as the share form does: an
// item arrives in v's feed. It shares a resource of the dataset again (re-shares are common,
// and they leave no new anchor behind for restore to delete).
func (w *world) shareByFollowee(ctx context.Context, v *viewer, r *rand.Rand) error {
	author := v.ID
	if len(v.Followees) > 0 {
		author = v.Followees[r.IntN(len(v.Followees))]
	}
	return share(ctx, w.store, author, w.shareURLs[r.IntN(len(w.shareURLs))], w.posted.Add(1))
}

// share stores a share of url by author.
func share(ctx context.Context, store *db.Store, author int64, url string, n int64) error {
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: author, URL: url,
		Title: fmt.Sprintf("Benchmark share %d", n), Body: "Shared again while the benchmark runs.",
		CreatedAt: time.Now()})
	if err != nil {
		return fmt.Errorf("prepare share of %s: %w", url, err)
	}
	if _, err := store.CreatePost(ctx, p); err != nil {
		return fmt.Errorf("share: %w", err)
	}
	return nil
}

// shareURLs returns the URLs of some of the dataset's resources, spread over its anchors.
func shareURLs(ctx context.Context, pool *pgxpool.Pool, maxAnchor int64) ([]string, error) {
	var urls []string
	err := pool.QueryRow(ctx, `SELECT coalesce(array_agg(url ORDER BY id), '{}') FROM anchors
		WHERE id <= $1 AND id % greatest(1, $1 / 2000) = 0`, maxAnchor).Scan(&urls)
	if err == nil && len(urls) == 0 {
		err = fmt.Errorf("no anchors")
	}
	if err != nil {
		return nil, fmt.Errorf("bench: share URLs: %w", err)
	}
	return urls, nil
}

func (w *world) logins(ctx context.Context) error {
	for _, c := range w.classes {
		for _, v := range c.Viewers {
			v.c = newClient(w.base, w.tr)
			if err := v.c.login(ctx, v.Handle); err != nil {
				return err
			}
		}
	}
	return nil
}
