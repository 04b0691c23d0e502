package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
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
	nonce     string
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

// resetFence drops a viewer's fence state: their next first page is a cold one.
func (w *world) resetFence(ctx context.Context, id int64) error {
	_, err := w.pool.Exec(ctx, `WITH gone AS (DELETE FROM fences WHERE viewer_id = $1)
		DELETE FROM fenceposts WHERE viewer_id = $1`, id)
	if err != nil {
		return fmt.Errorf("reset fence: %w", err)
	}
	return nil
}

// shareByFollowee stores a new share by one of v's followees, as the share form does: a new
// item arrives in v's feed.
func (w *world) shareByFollowee(ctx context.Context, v *viewer, r *rand.Rand) error {
	author := v.ID
	if len(v.Followees) > 0 {
		author = v.Followees[r.IntN(len(v.Followees))]
	}
	n := w.posted.Add(1)
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: author,
		URL:   fmt.Sprintf("https://bench.example.org/%s/%d", w.nonce, n),
		Title: fmt.Sprintf("Benchmark share %d", n), Body: "A new item, shared while the benchmark runs.",
		CreatedAt: time.Now()})
	if err != nil {
		return fmt.Errorf("prepare share: %w", err)
	}
	if _, err := w.store.CreatePost(ctx, p); err != nil {
		return fmt.Errorf("share: %w", err)
	}
	return nil
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

const (
	apiTimeline = "/api/timeline"
	liveSource  = tributary.KindArxiv // a category filter: always the live path
)

func (w *world) limitParam() string { return fmt.Sprintf("?limit=%d", w.pageSize) }

// scenarios lists what the bench measures through the server, in order.
func (w *world) scenarios(conc, tconc int) []scenario {
	var out []scenario
	anon := newClient(w.base, w.tr)
	out = append(out,
		scenario{Name: "anon_html_hit", Group: "anonymous front page, HTML, cache hit", Kind: "http", Concurrency: tconc,
			Note: "GET / without a session: the same URL again and again",
			worker: func(int) step {
				return func(ctx context.Context) (time.Duration, error) {
					_, d, err := anon.get(ctx, "/")
					return d, err
				}
			}},
		scenario{Name: "anon_json_hit", Group: "anonymous front page, JSON, cache hit", Kind: "http", Concurrency: tconc,
			Note:  "GET /api/timeline without a session: path=cache",
			setup: func(ctx context.Context) error { _, _, err := anon.get(ctx, apiTimeline); return err },
			worker: func(int) step {
				return func(ctx context.Context) (time.Duration, error) {
					body, d, err := anon.get(ctx, apiTimeline)
					if err == nil && !bytes.Contains(body, []byte(`"path":"cache"`)) {
						err = fmt.Errorf("anonymous timeline not served from the cache")
					}
					return d, err
				}
			}},
		scenario{Name: "anon_json_miss", Group: "anonymous front page, JSON, cache miss", Kind: "http", Concurrency: conc,
			Note: "a distinct since= (years before the data) per request: a new cache key and a new fence every time",
			worker: func(int) step {
				return func(ctx context.Context) (time.Duration, error) {
					since := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(w.anonSeq.Add(1)) * time.Second)
					body, d, err := anon.get(ctx, apiTimeline+"?since="+url.QueryEscape(since.Format(time.RFC3339)))
					if err == nil {
						_, err = decodeTimeline(body, tributary.PathSnapshot)
					}
					return d, err
				}
			}},
	)
	for _, c := range w.classes {
		out = append(out, w.coldFirst(c, conc), w.nextPages(c, conc), w.returningFirst(c, conc))
	}
	for _, c := range w.classes {
		out = append(out, w.live(c, conc))
	}
	out = append(out, w.ingest(conc))
	return out
}

// coldFirst is a first page with no fence yet: the fence is dropped before every request.
func (w *world) coldFirst(c class, conc int) scenario {
	return scenario{Name: "first_cold_" + c.Name, Group: "logged-in first page, cold", Class: c.Name, Kind: "http",
		Concurrency: conc, Note: "GET /api/timeline; the viewer's fence is dropped before each request (untimed)",
		worker: func(i int) step {
			mine, k := owned(c.Viewers, i, conc), 0
			return func(ctx context.Context) (time.Duration, error) {
				v := mine[k%len(mine)]
				k++
				if err := w.resetFence(ctx, v.ID); err != nil {
					return 0, err
				}
				body, d, err := v.c.get(ctx, apiTimeline+w.limitParam())
				if err == nil {
					var t timeline
					if t, err = decodeTimeline(body, tributary.PathSnapshot); err == nil && len(t.Items) == 0 {
						err = fmt.Errorf("first page of %s is empty", v.Handle)
					}
				}
				return d, err
			}
		}}
}

// returningFirst is a first page of a viewer who has a fence, after a followee shared
// something new: the new item gets ranked and a new fencepost committed.
func (w *world) returningFirst(c class, conc int) scenario {
	return scenario{Name: "first_returning_" + c.Name, Group: "logged-in first page, returning", Class: c.Name, Kind: "http",
		Concurrency: conc, Note: "GET /api/timeline with a fence; a followee shares a new link before each request (untimed)",
		setup: func(ctx context.Context) error {
			for _, v := range c.Viewers { // a fence exists: the viewer was here before
				if _, _, err := v.c.get(ctx, apiTimeline+w.limitParam()); err != nil {
					return err
				}
			}
			return nil
		},
		worker: func(i int) step {
			mine, k := owned(c.Viewers, i, conc), 0
			r := rand.New(rand.NewPCG(uint64(i), 1))
			last := map[int64]string{}
			return func(ctx context.Context) (time.Duration, error) {
				v := mine[k%len(mine)]
				k++
				if err := w.shareByFollowee(ctx, v, r); err != nil {
					return 0, err
				}
				body, d, err := v.c.get(ctx, apiTimeline+w.limitParam())
				if err != nil {
					return d, err
				}
				t, err := decodeTimeline(body, tributary.PathSnapshot)
				if err == nil && t.Fencepost == last[v.ID] {
					err = fmt.Errorf("returning first page of %s: no new fencepost although a followee shared", v.Handle)
				}
				last[v.ID] = t.Fencepost
				return d, err
			}
		}}
}

// nextPages scrolls: each request is the page at the previous page's next_cursor, up to
// maxPages pages deep, then the walk starts again from the (untimed) first page.
func (w *world) nextPages(c class, conc int) scenario {
	return scenario{Name: "next_page_" + c.Name, Group: "next page by cursor", Class: c.Name, Kind: "http",
		Concurrency: conc, Note: fmt.Sprintf("GET /api/timeline?cursor=…, pages 2-%d of a fresh fence (head, then tail)", w.maxPages),
		setup: func(ctx context.Context) error {
			for _, v := range c.Viewers {
				if err := w.resetFence(ctx, v.ID); err != nil {
					return err
				}
			}
			return nil
		},
		worker: func(i int) step {
			mine, k := owned(c.Viewers, i, conc), 0
			cursors := map[int64]string{}
			pages := map[int64]int{}
			return func(ctx context.Context) (time.Duration, error) {
				v := mine[k%len(mine)]
				k++
				if cursors[v.ID] == "" || pages[v.ID] >= w.maxPages-1 {
					body, _, err := v.c.get(ctx, apiTimeline+w.limitParam())
					if err != nil {
						return 0, err
					}
					t, err := decodeTimeline(body, "")
					if err != nil {
						return 0, err
					}
					if t.NextCursor == "" {
						return 0, fmt.Errorf("the feed of %s has a single page", v.Handle)
					}
					cursors[v.ID], pages[v.ID] = t.NextCursor, 0
				}
				body, d, err := v.c.get(ctx, apiTimeline+w.limitParam()+"&cursor="+url.QueryEscape(cursors[v.ID]))
				if err != nil {
					return d, err
				}
				t, err := decodeTimeline(body, "")
				if err == nil && t.Refreshed {
					err = fmt.Errorf("the cursor of %s was refused (feed refreshed)", v.Handle)
				}
				cursors[v.ID] = t.NextCursor
				pages[v.ID]++
				return d, err
			}
		}}
}

// live is a category filter: the live path ranks recent shares of the followed set.
func (w *world) live(c class, conc int) scenario {
	return scenario{Name: "live_" + c.Name, Group: "live path (category filter), first page", Class: c.Name, Kind: "http",
		Concurrency: conc, Note: "GET /api/timeline?source=" + string(liveSource) + "; the fence is dropped before each request (untimed)",
		worker: func(i int) step {
			mine, k := owned(c.Viewers, i, conc), 0
			return func(ctx context.Context) (time.Duration, error) {
				v := mine[k%len(mine)]
				k++
				if err := w.resetFence(ctx, v.ID); err != nil {
					return 0, err
				}
				body, d, err := v.c.get(ctx, apiTimeline+w.limitParam()+"&source="+string(liveSource))
				if err == nil {
					_, err = decodeTimeline(body, tributary.PathLive)
				}
				return d, err
			}
		}}
}

// eventBatch is how many card_seen events one POST /events carries.
const eventBatch = 5

// ingest posts card_seen batches as the dwell tracker does, spread over many users.
func (w *world) ingest(conc int) scenario {
	var clients []*client
	return scenario{Name: "events_ingest", Group: "POST /events ingestion", Kind: "http", Concurrency: conc,
		Note: fmt.Sprintf("%d card_seen events per request, each request from the next of %d logged-in users", eventBatch, len(w.events)),
		setup: func(ctx context.Context) error {
			for _, tok := range w.events {
				c := newClient(w.base, w.tr)
				c.setSession(tok)
				clients = append(clients, c)
			}
			return nil
		},
		worker: func(i int) step {
			r := rand.New(rand.NewPCG(uint64(i), 7))
			return func(ctx context.Context) (time.Duration, error) {
				c := clients[int(w.eventSeq.Add(1))%len(clients)]
				type ev struct {
					Item    int64 `json:"item"`
					DwellMs int64 `json:"dwell_ms"`
				}
				evs := make([]ev, eventBatch)
				for j := range evs {
					evs[j] = ev{Item: 1 + r.Int64N(w.maxAnchor), DwellMs: 300 + r.Int64N(5000)}
				}
				body, _ := json.Marshal(map[string]any{"events": evs})
				return c.postJSON(ctx, "/events", body, http.StatusNoContent)
			}
		}}
}
