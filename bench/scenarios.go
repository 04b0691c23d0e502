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
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tributary"
)

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
		w.cachedAnon("anon_html_gzip_hit", "anonymous front page, HTML, cache hit, gzip", "/", "\x1f\x8b", tconc,
			"Accept-Encoding: gzip, deflate, br, zstd"),
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
		out = append(out, w.coldFirst(c, conc), w.nextPages(c, conc), w.returningFirst(c, conc, returnCycle), w.reloadFirst(c, conc))
	}
	out = append(out, w.returningFirst(w.classes[len(w.classes)-1], conc, 0))
	for _, c := range w.classes {
		out = append(out, w.live(c, conc))
	}
	out = append(out, w.ingest(conc))
	out = append(out, w.talkScenarios(conc)...)
	out = append(out, w.notifyScenarios(conc)...)
	out = append(out, w.filterScenarios(conc)...)
	out = append(out, w.directsScenario(conc))
	out = append(out, w.userPages(conc)...)
	out = append(out, w.searchScenarios(conc)...)
	out = append(out, w.cardScenarios(conc)...)
	return out
}

// unloaded are the logged-in scenarios, the naive baseline and the floor again with conc clients (one,
// usually), named with a _c<conc> suffix; and the median class's pages of readers with many
// notifications, in turns with the same pages without (notifiedPages).
func (w *world) unloaded(pool *pgxpool.Pool, conc, headSize int) []scenario {
	var out []scenario
	for _, c := range w.classes {
		out = append(out, w.coldFirst(c, conc), w.nextPages(c, conc), w.returningFirst(c, conc, returnCycle), w.reloadFirst(c, conc), w.live(c, conc))
		if c.Name == "median" {
			out = append(out, w.notifiedPages(conc)...)
		}
	}
	for _, b := range w.baselines(pool, conc, headSize) {
		if strings.HasPrefix(b.Name, "baseline_naive_") || strings.HasPrefix(b.Name, "baseline_floor_") {
			out = append(out, b)
		}
	}
	for i := range out {
		out[i].Name += unloadedSuffix(conc)
		if out[i].Alternate != "" {
			out[i].Alternate += unloadedSuffix(conc)
		}
	}
	return out
}

// unloadedSuffix names the unloaded run of a scenario.
func unloadedSuffix(conc int) string { return fmt.Sprintf("_c%d", conc) }

// cachedAnon requests the same anonymous page again and again: after the first, every
// answer comes from the cache. Each worker has its own keep-alive connection and a lean
// client (rawGetter), since this measures the server's throughput.
func (w *world) cachedAnon(name, group, path, marker string, conc int, headers ...string) scenario {
	getters := make([]*rawGetter, conc)
	note := "GET " + path + " without a session, the same URL every time, over one keep-alive connection per worker (a minimal HTTP/1.1 client)"
	if len(headers) > 0 {
		note += ", sending " + strings.Join(headers, ", ") + " as browsers do"
	}
	return scenario{Name: name, Group: group, Kind: "http", Concurrency: conc, Note: note,
		setup: func(ctx context.Context) error {
			for i := range getters {
				g, err := newRawGetter(w.base, path, headers...)
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
					if t, err = decodeTimeline(body, tributary.PathSnapshot); err == nil && t.Empty {
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

// reloadFirst is an active reader's first page again with nothing new since the last: the
// reader's fence's latest fencepost, its items and their talk read again (and, with rivers
// on, the arrivals since read from the reader's river).
func (w *world) reloadFirst(c class, conc int) scenario {
	return scenario{Name: "first_reload_" + c.Name, Group: "logged-in first page, returning", Class: c.Name, Kind: "http",
		Concurrency: conc, Note: "GET /api/timeline again by a reader who has just loaded it, nothing shared since",
		setup: func(ctx context.Context) error {
			for _, v := range c.Viewers {
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
			return func(ctx context.Context) (latency, error) {
				v := mine[k%len(mine)]
				k++
				body, d, err := v.c.get(ctx, apiTimeline+w.limitParam())
				if err == nil {
					_, err = decodeTimeline(body, tributary.PathSnapshot)
				}
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
