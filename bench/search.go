package bench

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"tributary"
	"tributary/db"
)

// Search (seed 002): the first page and the next pages of a search of two words and of one
// with an operator, both chosen from the data at setup. Lists (seed 003): the first page of
// a list feed, cold, per follower class.

// searchDepth is how many pages of results a search the bench runs must fill.
const searchDepth = 3

// searchSubject is a search the bench runs: the query as typed, its text as a to_tsquery
// and its operators as SQL sees them (to count what it matches), and who reads it.
type searchSubject struct {
	query   string
	tsquery string
	author  int64  // from:, or 0
	site    string // site:, or ""
	posts   int64  // posts whose own text matches (comments may add more)
	readers []*client
}

func (s *searchSubject) String() string {
	return fmt.Sprintf("%q (%d posts match)", s.query, s.posts)
}

// page reads the page of the search's results at cursor ("": the first page) as c.
func (s *searchSubject) page(ctx context.Context, c *client, cursor string) (page, latency, error) {
	path := "/api/search?q=" + url.QueryEscape(s.query)
	if cursor != "" {
		path += "&cursor=" + url.QueryEscape(cursor)
	}
	var p page
	body, d, err := c.get(ctx, path)
	if err == nil {
		p, err = decodePosts(body)
	}
	if err != nil {
		return p, d, fmt.Errorf("search %s: %w", s, err)
	}
	return p, d, nil
}

// deep reports whether the search's results fill searchDepth pages as c reads them, and
// counts the posts it matches on the way. Posts the bench shares while it runs count too.
func (w *world) deep(ctx context.Context, s *searchSubject, c *client) (bool, error) {
	err := w.pool.QueryRow(ctx, `SELECT count(*) FROM posts
		WHERE search @@ to_tsquery('english', $1) AND deleted_at IS NULL
		  AND ($2::bigint = 0 OR author_id = $2)
		  AND ($3::text = '' OR host = $3 OR substr(host, strpos(host, '.') + 1) = $3)`,
		s.tsquery, s.author, s.site).Scan(&s.posts)
	if err != nil {
		return false, fmt.Errorf("bench: count matches of %q: %w", s.query, err)
	}
	if s.posts < searchDepth*db.PageSize {
		return false, nil
	}
	cursor := ""
	for n := 1; ; n++ {
		p, _, err := s.page(ctx, c, cursor)
		if err != nil || p.Empty {
			return false, err
		}
		if n == searchDepth {
			return true, nil
		}
		if cursor = p.NextCursor; cursor == "" {
			return false, nil
		}
	}
}

// commonWords are the words of the posts matching cond (SQL) and posted before the run,
// most common first: those of titles and texts (weights A and B: the URL's are D) that are
// letters only, four or more, and their own stem, so that searching the word finds them.
func (w *world) commonWords(ctx context.Context, cond string, before time.Time) ([]string, error) {
	var words []string
	err := w.pool.QueryRow(ctx, `SELECT coalesce(array_agg(word ORDER BY ndoc DESC, word), '{}')
		  FROM ts_stat(format('SELECT search FROM posts WHERE %s AND created_at < %L', $1::text, $2::timestamptz), 'AB')
		 WHERE word ~ '^[a-z]{4,}$' AND plainto_tsquery('english', word)::text = quote_literal(word)`,
		cond, before).Scan(&words)
	if err != nil {
		return nil, fmt.Errorf("bench: common words of posts where %s: %w", cond, err)
	}
	return words, nil
}

// pickTermsSearch chooses two moderately common words of a sample of the posts: the 10th
// and the 25th most common, or the next pair down while they match too few pages.
func (w *world) pickTermsSearch(ctx context.Context, c *client, before time.Time) (searchSubject, error) {
	const first, apart, tries = 9, 15, 20
	words, err := w.commonWords(ctx, "id % 50 = 0", before)
	if err != nil {
		return searchSubject{}, err
	}
	for i := first; i+apart < len(words) && i < first+tries; i++ {
		s := searchSubject{query: words[i] + " " + words[i+apart], tsquery: words[i] + " & " + words[i+apart]}
		if ok, err := w.deep(ctx, &s, c); err != nil || ok {
			return s, err
		}
	}
	return searchSubject{}, fmt.Errorf("bench: no pair of the %d common words of the posts fills %d pages of results", len(words), searchDepth)
}

// pickOperatorSearch chooses from:<handle> <word>: the user who shared the most public
// posts, and one of their most common words; failing that, site:arxiv.org <word>.
func (w *world) pickOperatorSearch(ctx context.Context, c *client, before time.Time) (searchSubject, error) {
	const tries = 5
	var author int64
	var handle string
	err := w.pool.QueryRow(ctx, `SELECT p.author_id, u.handle FROM posts p JOIN users u ON u.id = p.author_id
		WHERE p.is_public AND p.deleted_at IS NULL AND p.created_at < $1
		GROUP BY p.author_id, u.handle ORDER BY count(*) DESC, p.author_id LIMIT 1`, before).Scan(&author, &handle)
	if err != nil {
		return searchSubject{}, fmt.Errorf("bench: top sharer: %w", err)
	}
	words, err := w.commonWords(ctx, "author_id = "+strconv.FormatInt(author, 10), before)
	if err != nil {
		return searchSubject{}, err
	}
	for _, word := range words[:min(tries, len(words))] {
		s := searchSubject{query: "from:" + handle + " " + word, tsquery: word, author: author}
		if ok, err := w.deep(ctx, &s, c); err != nil || ok {
			return s, err
		}
	}
	const site = "arxiv.org"
	if words, err = w.commonWords(ctx, "host = '"+site+"' AND id % 10 = 0", before); err != nil {
		return searchSubject{}, err
	}
	for _, word := range words[:min(tries, len(words))] {
		s := searchSubject{query: "site:" + site + " " + word, tsquery: word, site: site}
		if ok, err := w.deep(ctx, &s, c); err != nil || ok {
			return s, err
		}
	}
	return searchSubject{}, fmt.Errorf("bench: neither from:%s nor site:%s with a common word fills %d pages of results", handle, site, searchDepth)
}

// searchScenarios are the first and next pages of each search, then the cold first page of
// a list feed per follower class.
func (w *world) searchScenarios(conc int) []scenario {
	before := time.Now() // the words are counted over the seeded posts, not the bench's shares
	var readers []*client
	searches := []struct {
		kind, what string
		pick       func(context.Context, *client, time.Time) (searchSubject, error)
	}{
		{"terms", fmt.Sprintf("two words, the 10th and 25th most common of a sample of the posts, or the next pair down until %d pages of results", searchDepth), w.pickTermsSearch},
		{"operator", fmt.Sprintf("from:<the top sharer> <one of their most common words>, or site:arxiv.org <word>, with %d pages of results or more", searchDepth), w.pickOperatorSearch},
	}
	const group = "search (seed 002)"
	var out []scenario
	for _, k := range searches {
		s := &searchSubject{}
		setup := func(ctx context.Context) error {
			if s.query != "" {
				return nil
			}
			if readers == nil {
				readers = w.talkers()
			}
			picked, err := k.pick(ctx, readers[0], before)
			if err != nil {
				return err
			}
			*s = picked
			s.readers = readers
			// Readers who have not searched before: the fenceposts of earlier runs would make
			// a first page the one they saw then, and scrolls go on into them.
			for _, table := range []string{"fenceposts", "fences"} {
				if _, err := w.pool.Exec(ctx, "DELETE FROM "+table+" WHERE template LIKE 'chrono:s:%'"); err != nil {
					return fmt.Errorf("bench: drop searches' fences: %w", err)
				}
			}
			return nil
		}
		name := "search_" + k.kind
		what := k.what + "; the query, chosen at setup, is named in any error"
		out = append(out,
			scenario{Name: name + "_first", Group: group, Kind: "http", Concurrency: conc,
				Note:  fmt.Sprintf("GET the first page of /api/search?q=… by logged-in readers: %s", what),
				setup: setup,
				worker: func(i int) step {
					n := i
					return func(ctx context.Context) (latency, error) {
						c := s.readers[n%len(s.readers)]
						n += conc
						p, d, err := s.page(ctx, c, "")
						if err == nil && p.Empty {
							err = fmt.Errorf("search %s: an empty first page", s)
						}
						return d, err
					}
				}},
			scenario{Name: name + "_next", Group: group, Kind: "http", Concurrency: conc,
				Note:  fmt.Sprintf("GET /api/search?q=…&cursor=…, pages 2-%d, then again from the (untimed) first page: %s", w.maxPages, what),
				setup: setup,
				worker: func(i int) step {
					n, cursor, pages := i, "", 0
					return func(ctx context.Context) (latency, error) {
						c := s.readers[n%len(s.readers)]
						if cursor == "" || pages >= w.maxPages-1 {
							n += conc
							c = s.readers[n%len(s.readers)]
							p, _, err := s.page(ctx, c, "")
							if err != nil {
								return latency{}, err
							}
							if p.NextCursor == "" {
								return latency{}, fmt.Errorf("search %s has a single page", s)
							}
							cursor, pages = p.NextCursor, 0
						}
						p, d, err := s.page(ctx, c, cursor)
						if err != nil {
							return d, err
						}
						if p.Refreshed {
							return d, fmt.Errorf("search %s: the cursor was refused (results refreshed)", s)
						}
						cursor = p.NextCursor
						pages++
						return d, nil
					}
				}})
	}
	for _, c := range w.classes {
		out = append(out, w.listFirst(c, conc))
	}
	return out
}

// benchList makes v's list named "bench" again, holding the first half of the people v
// follows (one at least), and returns its id.
func (w *world) benchList(ctx context.Context, v *viewer) (int64, error) {
	if len(v.Followees) == 0 {
		return 0, fmt.Errorf("bench: list of %s: they follow nobody", v.Handle)
	}
	members := v.Followees[:max(1, len(v.Followees)/2)]
	var id int64
	err := pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "DELETE FROM lists WHERE owner_id = $1 AND lower(name) = 'bench'", v.ID); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, "INSERT INTO lists (owner_id, name, created_at) VALUES ($1, 'bench', now()) RETURNING id", v.ID).Scan(&id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO list_members (list_id, member_id) SELECT $1, unnest($2::bigint[])", id, members)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("bench: list of %s: %w", v.Handle, err)
	}
	return id, nil
}

// listFirst is the first page of a viewer's list feed with no fence yet, as coldFirst is the
// home's: resetFence drops the viewer's fences of every template, the list's among them.
func (w *world) listFirst(c class, conc int) scenario {
	prep := &prepTimer{}
	lists := make(map[int64]int64, len(c.Viewers)) // viewer → their bench list, written by setup only
	return scenario{prep: prep, Name: "list_first_" + c.Name, Group: "list feed first page, cold (seed 003)", Class: c.Name, Kind: "http",
		Concurrency: conc, Note: "GET /api/timeline?list=… of a list holding the first half of the viewer's followees (made at setup); the viewer's fences are dropped before each request (untimed)",
		setup: func(ctx context.Context) error {
			for _, v := range c.Viewers {
				id, err := w.benchList(ctx, v)
				if err != nil {
					return err
				}
				lists[v.ID] = id
			}
			return nil
		},
		worker: func(i int) step {
			mine, k := owned(c.Viewers, i, conc), 0
			return func(ctx context.Context) (latency, error) {
				v := mine[k%len(mine)]
				k++
				if err := prep.time(func() error { return w.resetFence(ctx, v.ID) }); err != nil {
					return latency{}, err
				}
				list := strconv.FormatInt(lists[v.ID], 10)
				body, d, err := v.c.get(ctx, apiTimeline+w.limitParam()+"&list="+list)
				if err == nil {
					var t timeline
					if t, err = decodeTimeline(body, tributary.PathSnapshot); err == nil && t.Empty {
						err = fmt.Errorf("first page of %s's list %s is empty", v.Handle, list)
					}
				}
				return d, err
			}
		}}
}
