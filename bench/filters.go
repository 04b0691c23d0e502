package bench

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"tributary/db"
)

// Filter feeds (seed 003): the first page and the next pages of each filter feed, for a
// light subject (a few pages of posts) and the heaviest one in the data.

// filterKinds are the filter feeds: their key prefix in filter_posts, and whether the
// reader must be the subject (mentions and discussions are the viewer's own).
var filterKinds = []struct {
	name, prefix string
	own          bool
}{{"likes", "l:", false}, {"comments", "c:", false}, {"tag", "t:", false}, {"mentions", "m:", true}, {"discussions", "d:", true}}

// filterSubject is one filter feed the bench reads: its page's path and who reads it.
type filterSubject struct {
	path    string
	entries int
	readers []*client
}

// pickFilterSubject finds the filter feed of the kind with the most entries (heavy) or the
// one with the fewest of three pages or more (light), and its page.
func (w *world) pickFilterSubject(ctx context.Context, prefix string, heavy bool) (string, string, int, error) {
	having, order := "HAVING count(*) >= 60", "count(*)" // light: the smallest feed of three pages or more
	if heavy {
		having, order = "", "count(*) DESC"
	}
	var feed string
	var n int
	err := w.pool.QueryRow(ctx, `SELECT feed, count(*) FROM filter_posts WHERE feed LIKE $1 || '%'
		GROUP BY feed `+having+` ORDER BY `+order+`, feed LIMIT 1`, prefix).Scan(&feed, &n)
	if errors.Is(err, pgx.ErrNoRows) && !heavy {
		// No feed of the kind has three pages (the quick dataset's mentions): the largest.
		return w.pickFilterSubject(ctx, prefix, true)
	}
	if err != nil {
		return "", "", 0, fmt.Errorf("bench: pick %s filter feed: %w", prefix, err)
	}
	key := strings.TrimPrefix(feed, prefix)
	if prefix == "t:" {
		return "/t/" + url.PathEscape(key), key, n, nil
	}
	var handle string
	if err := w.pool.QueryRow(ctx, "SELECT handle FROM users WHERE id = $1", key).Scan(&handle); err != nil {
		return "", "", 0, fmt.Errorf("bench: filter feed subject: %w", err)
	}
	switch prefix {
	case "l:":
		return "/u/" + handle + "/likes", key, n, nil
	case "c:":
		return "/u/" + handle + "/comments", key, n, nil
	case "m:":
		return "/mentions", key, n, nil
	}
	return "/discussions", key, n, nil
}

// filterScenarios are the first and next pages of each filter feed, light and heavy.
func (w *world) filterScenarios(conc int) []scenario {
	var out []scenario
	for _, k := range filterKinds {
		for _, heavy := range []bool{false, true} {
			weight := "light"
			if heavy {
				weight = "heavy"
			}
			sub := &filterSubject{}
			setup := func(ctx context.Context) error {
				if sub.path != "" {
					return nil
				}
				path, key, n, err := w.pickFilterSubject(ctx, k.prefix, heavy)
				if err != nil {
					return err
				}
				sub.path, sub.entries = path, n
				if k.own {
					id, _ := strconv.ParseInt(key, 10, 64)
					tokens, err := mintSessions(ctx, w.pool, []int64{id})
					if err != nil {
						return err
					}
					c := newClient(w.base, w.tr)
					c.setSession(tokens[0])
					sub.readers = []*client{c}
				} else {
					sub.readers = w.talkers()
				}
				return nil
			}
			name := "filter_" + k.name + "_" + weight
			group := "filter feeds (seed 003)"
			out = append(out,
				scenario{Name: name + "_first", Group: group, Class: weight, Kind: "http", Concurrency: conc,
					Note:  fmt.Sprintf("GET the first page of the %s %s filter feed (?format=json), %d entries", weight, k.name, db.PageSize),
					setup: setup,
					worker: func(i int) step {
						n := i
						return func(ctx context.Context) (latency, error) {
							c := sub.readers[n%len(sub.readers)]
							n += conc
							body, d, err := c.get(ctx, sub.path+"?format=json")
							if err == nil {
								if p, err := decodePosts(body); err == nil && p.Empty {
									err = fmt.Errorf("%s: an empty first page (%d entries in the feed)", sub.path, sub.entries)
								}
							}
							return d, err
						}
					}},
				scenario{Name: name + "_next", Group: group, Class: weight, Kind: "http", Concurrency: conc,
					Note:  fmt.Sprintf("GET ?cursor=… of the %s %s filter feed: pages 2-%d, then again from the (untimed) first page", weight, k.name, w.maxPages),
					setup: setup,
					worker: func(i int) step {
						n, cursor, pages := i, "", 0
						return func(ctx context.Context) (latency, error) {
							c := sub.readers[n%len(sub.readers)]
							if cursor == "" || pages >= w.maxPages-1 {
								n += conc
								c = sub.readers[n%len(sub.readers)]
								body, _, err := c.get(ctx, sub.path+"?format=json")
								if err != nil {
									return latency{}, err
								}
								p, err := decodePosts(body)
								if err != nil {
									return latency{}, err
								}
								if p.NextCursor == "" {
									return latency{}, fmt.Errorf("%s has a single page (%d entries)", sub.path, sub.entries)
								}
								cursor, pages = p.NextCursor, 0
							}
							body, d, err := c.get(ctx, sub.path+"?format=json&cursor="+url.QueryEscape(cursor))
							if err != nil {
								return d, err
							}
							p, err := decodePosts(body)
							if err != nil {
								return d, err
							}
							if p.Refreshed {
								return d, fmt.Errorf("%s: the cursor was refused (feed refreshed)", sub.path)
							}
							cursor = p.NextCursor
							pages++
							return d, nil
						}
					}})
		}
	}
	return out
}

// directsScenario is the first page of the directs of readers who mostly have none: the
// page once tested every post against the reader's directs feeds.
func (w *world) directsScenario(conc int) scenario {
	var readers []*client
	return scenario{Name: "directs_first", Group: "directs page", Kind: "http", Concurrency: conc,
		Note: "GET /directs?format=json, the first page of a reader's directs, each request another reader's",
		setup: func(context.Context) error {
			readers = w.talkers()
			if len(readers) == 0 {
				return errors.New("bench: no readers for the directs page")
			}
			return nil
		},
		worker: func(i int) step {
			n := i
			return func(ctx context.Context) (latency, error) {
				c := readers[n%len(readers)]
				n += conc
				body, d, err := c.get(ctx, "/directs?format=json")
				if err == nil {
					_, err = decodePosts(body)
				}
				return d, err
			}
		}}
}
