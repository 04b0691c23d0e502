package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
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

// resetFence drops a viewer's fence state: their next first page is a cold one.
func (w *world) resetFence(ctx context.Context, id int64) error {
	_, err := w.pool.Exec(ctx, `WITH gone AS (DELETE FROM fences WHERE viewer_id = $1)
		DELETE FROM fenceposts WHERE viewer_id = $1`, id)
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

// returnCycle is how many returns a fence serves before it is rebuilt (returningFirst).
const returnCycle = 4

const (
	apiTimeline = "/api/timeline"
	liveSource  = tributary.KindArxiv // a category filter: always the live path
)

func (w *world) limitParam() string { return fmt.Sprintf("?limit=%d", w.pageSize) }

// scenarios lists what the bench measures through the server, in order.
func (w *world) scenarios(conc, tconc int) []scenario {
	var out []scenario
	anon := newClient(w.base, w.tr)
	out = append(out, w.cachedAnon("anon_html_hit", "anonymous front page, HTML, cache hit", "/", "", tconc),
		w.cachedAnon("anon_json_hit", "anonymous front page, JSON, cache hit", apiTimeline, `"path":"cache"`, tconc),
		scenario{Name: "anon_json_miss", Group: "anonymous front page, JSON, cache miss", Kind: "http", Concurrency: conc,
			Note: "a distinct since= (years before the data) per request: a new cache key and a new fence every time",
			worker: func(int) step {
				return func(ctx context.Context) (latency, error) {
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
		out = append(out, w.coldFirst(c, conc), w.nextPages(c, conc), w.returningFirst(c, conc, returnCycle))
	}
	out = append(out, w.returningFirst(w.classes[len(w.classes)-1], conc, 0))
	for _, c := range w.classes {
		out = append(out, w.live(c, conc))
	}
	out = append(out, w.ingest(conc))
	return out
}

// unloaded are the logged-in scenarios, the naive baseline and the floor again with conc clients (one,
// usually), named with a _c<conc> suffix.
func (w *world) unloaded(pool *pgxpool.Pool, conc, headSize int) []scenario {
	var out []scenario
	for _, c := range w.classes {
		out = append(out, w.coldFirst(c, conc), w.nextPages(c, conc), w.returningFirst(c, conc, returnCycle), w.live(c, conc))
	}
	for _, b := range w.baselines(pool, conc, headSize) {
		if strings.HasPrefix(b.Name, "baseline_naive_") || strings.HasPrefix(b.Name, "baseline_floor_") {
			out = append(out, b)
		}
	}
	for i := range out {
		out[i].Name += unloadedSuffix(conc)
	}
	return out
}

// unloadedSuffix names the unloaded run of a scenario.
func unloadedSuffix(conc int) string { return fmt.Sprintf("_c%d", conc) }

// cachedAnon requests the same anonymous page again and again: after the first, every
// answer comes from the cache. Each worker has its own keep-alive connection and a lean
// client (rawGetter), since this measures the server's throughput.
func (w *world) cachedAnon(name, group, path, marker string, conc int) scenario {
	getters := make([]*rawGetter, conc)
	return scenario{Name: name, Group: group, Kind: "http", Concurrency: conc,
		Note: "GET " + path + " without a session, the same URL every time, over one keep-alive connection per worker (a minimal HTTP/1.1 client)",
		setup: func(ctx context.Context) error {
			for i := range getters {
				g, err := newRawGetter(w.base, path)
				if err != nil {
					return err
				}
				getters[i] = g
			}
			_, _, err := getters[0].get(ctx) // fills the cache
			return err
		},
		teardown: func() {
			for _, g := range getters {
				g.close()
			}
		},
		worker: func(i int) step {
			return func(ctx context.Context) (latency, error) {
				body, d, err := getters[i].get(ctx)
				if err == nil && marker != "" && !bytes.Contains(body, []byte(marker)) {
					err = fmt.Errorf("GET %s: the answer lacks %s", path, marker)
				}
				return d, err
			}
		}}
}

// coldFirst is a first page with no fence yet: the fence is dropped before every request.
func (w *world) coldFirst(c class, conc int) scenario {
	prep := &prepTimer{}
	return scenario{prep: prep, Name: "first_cold_" + c.Name, Group: "logged-in first page, cold", Class: c.Name, Kind: "http",
		Concurrency: conc, Note: "GET /api/timeline; the viewer's fence is dropped before each request (untimed)",
		worker: func(i int) step {
			mine, k := owned(c.Viewers, i, conc), 0
			return func(ctx context.Context) (latency, error) {
				v := mine[k%len(mine)]
				k++
				if err := prep.time(func() error { return w.resetFence(ctx, v.ID) }); err != nil {
					return latency{}, err
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
// something new: the new item gets ranked and a new fencepost committed. Each return adds a
// one-item fencepost to the viewer's fence; every cycle returns the fence is rebuilt by a
// cold load (untimed), so a return finds at most cycle-1 such fenceposts before a full one.
// cycle 0 never rebuilds: a reader who reloads all the time.
func (w *world) returningFirst(c class, conc, cycle int) scenario {
	prep := &prepTimer{}
	name := "first_returning_" + c.Name
	note := fmt.Sprintf("GET /api/timeline with a fence; a followee shares a link again before each request, and every %d returns the fence is rebuilt by a cold load (both untimed)", cycle)
	if cycle == 0 {
		name = "first_returning_reload_" + c.Name
		note = "GET /api/timeline with a fence that grows by a one-item fencepost per return: a followee shares a link again before each request (untimed), the fence is never rebuilt"
	}
	return scenario{prep: prep, Name: name, Group: "logged-in first page, returning", Class: c.Name, Kind: "http",
		Concurrency: conc, Note: note,
		setup: func(ctx context.Context) error {
			for _, v := range c.Viewers { // a fence exists: the viewer was here before
				if err := w.resetFence(ctx, v.ID); err != nil {
					return err
				}
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
			returns := map[int64]int{}
			return func(ctx context.Context) (latency, error) {
				v := mine[k%len(mine)]
				k++
				err := prep.time(func() error {
					if returns[v.ID]++; cycle > 0 && returns[v.ID]%cycle == 0 {
						if err := w.resetFence(ctx, v.ID); err != nil {
							return err
						}
						if _, _, err := v.c.get(ctx, apiTimeline+w.limitParam()); err != nil {
							return err
						}
					}
					return w.shareByFollowee(ctx, v, r)
				})
				if err != nil {
					return latency{}, err
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
			return func(ctx context.Context) (latency, error) {
				v := mine[k%len(mine)]
				k++
				if cursors[v.ID] == "" || pages[v.ID] >= w.maxPages-1 {
					body, _, err := v.c.get(ctx, apiTimeline+w.limitParam())
					if err != nil {
						return latency{}, err
					}
					t, err := decodeTimeline(body, "")
					if err != nil {
						return latency{}, err
					}
					if t.NextCursor == "" {
						return latency{}, fmt.Errorf("the feed of %s has a single page", v.Handle)
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
	prep := &prepTimer{}
	return scenario{prep: prep, Name: "live_" + c.Name, Group: "live path (category filter), first page", Class: c.Name, Kind: "http",
		Concurrency: conc, Note: "GET /api/timeline?source=" + string(liveSource) + "; the fence is dropped before each request (untimed)",
		worker: func(i int) step {
			mine, k := owned(c.Viewers, i, conc), 0
			return func(ctx context.Context) (latency, error) {
				v := mine[k%len(mine)]
				k++
				if err := prep.time(func() error { return w.resetFence(ctx, v.ID) }); err != nil {
					return latency{}, err
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
			return func(ctx context.Context) (latency, error) {
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
