package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"tributary/db"
	"tributary/linkcard"
)

// Link cards on pages (issue 45): the median follower's cold first page and next pages again,
// every item of the snapshot given a paper's card (title, four authors, an abstract), beside
// the same pages without cards earlier in the run (first_cold_median, next_page_median): the
// difference is what cards cost a page (target: +0.1 ms p50). --only
// '^(cards_)?(first_cold|next_page)_median$' runs the four back to back.

// cardScenarios are the card rows, measured after the others (they change the dataset's cards
// for their duration).
func (w *world) cardScenarios(conc int) []scenario {
	return append([]scenario{w.fetchScenario()}, w.pageVariants("cards_", ", every item with a link card",
		"every snapshot item has a fetched paper card (setup, untimed; taken away after)", conc,
		w.giveCards, w.takeCards, func(body []byte) error {
			if !bytes.Contains(body, []byte(`"card":{`)) {
				return errors.New("the page shows no link card")
			}
			return nil
		})...)
}

// pageVariants are the median class's cold first page and next pages again, named with
// prefix, after give changed the dataset (untimed; take puts it back after, and check judges
// a page made then): what the change costs those pages, against the rows without it.
func (w *world) pageVariants(prefix, group, note string, conc int, give, take func(context.Context) error, check func([]byte) error) []scenario {
	var out []scenario
	for _, c := range w.classes {
		if c.Name != "median" {
			continue
		}
		for _, s := range []scenario{w.coldFirst(c, conc), w.nextPages(c, conc)} {
			s.Name, s.Group, s.Note = prefix+s.Name, s.Group+group, s.Note+"; "+note
			setup := s.setup
			s.setup = func(ctx context.Context) error {
				if setup != nil {
					if err := setup(ctx); err != nil {
						return err
					}
				}
				body, _, err := c.Viewers[0].c.get(ctx, apiTimeline+w.limitParam())
				if err == nil {
					err = check(body)
				}
				if err != nil {
					return fmt.Errorf("bench: %s, %s: %w", s.Name, c.Viewers[0].Handle, err)
				}
				return nil
			}
			s = around(s, give, take)
			out = append(out, s)
		}
	}
	return out
}

// around has sc's setup begin with give and its teardown end with take (which must undo
// give: an error is reported, the run goes on).
func around(sc scenario, give, take func(context.Context) error) scenario {
	setup, teardown := sc.setup, sc.teardown
	sc.setup = func(ctx context.Context) error {
		if err := give(ctx); err != nil {
			return err
		}
		if setup != nil {
			return setup(ctx)
		}
		return nil
	}
	sc.teardown = func() {
		if teardown != nil {
			teardown()
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := take(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %s: the dataset is left changed: %v\n", sc.Name, err)
		}
	}
	return sc
}

// benchCardTitle marks the cards the bench made.
const benchCardTitle = "Bench card "

// giveCards gives every item of the snapshot a fetched card, keeping the rows it replaces in
// bench_saved_cards (takeCards puts them back), and has the server drop the cards it kept.
func (w *world) giveCards(ctx context.Context) error {
	if err := w.takeCards(ctx); err != nil { // an earlier run that stopped half-way
		return err
	}
	_, err := w.pool.Exec(ctx, `CREATE TABLE bench_saved_cards AS
		SELECT c.* FROM link_cards c JOIN feed_snapshot s ON s.anchor_id = c.anchor_id`)
	if err != nil {
		return fmt.Errorf("bench: give link cards: %w", err)
	}
	_, err = w.pool.Exec(ctx, `
		INSERT INTO link_cards AS c (anchor_id, url, state, due, fetched_at, kind, title, description, site, canonical,
		                             authors, abstract, published, lang)
		SELECT s.anchor_id, s.anchor_url, 'ok', false, now(), 'paper', $1 || s.anchor_id, 'A paper the bench made up.',
		       'arXiv', s.canonical_url, '{Ada Lovelace,Grace Hopper,Alan Turing,Emmy Noether}',
		       repeat('An abstract of a paper the bench made up, long as abstracts are. ', 16), current_date, 'en'
		  FROM feed_snapshot s
		ON CONFLICT (anchor_id) DO UPDATE SET state = 'ok', due = false, fetched_at = now(), kind = EXCLUDED.kind,
		       title = EXCLUDED.title, description = EXCLUDED.description, site = EXCLUDED.site,
		       canonical = EXCLUDED.canonical, authors = EXCLUDED.authors, abstract = EXCLUDED.abstract,
		       published = EXCLUDED.published, lang = EXCLUDED.lang`, benchCardTitle)
	if err != nil {
		return fmt.Errorf("bench: give link cards: %w", err)
	}
	return w.cardsChanged(ctx)
}

// takeCards puts back the card rows giveCards replaced, if it did.
func (w *world) takeCards(ctx context.Context) error {
	var saved bool
	if err := w.pool.QueryRow(ctx, `SELECT to_regclass('bench_saved_cards') IS NOT NULL`).Scan(&saved); err != nil {
		return fmt.Errorf("bench: take link cards: %w", err)
	}
	if !saved {
		return nil
	}
	for _, stmt := range []string{`DELETE FROM link_cards WHERE title LIKE 'Bench card %'`,
		`INSERT INTO link_cards SELECT * FROM bench_saved_cards ON CONFLICT (anchor_id) DO NOTHING`,
		`DROP TABLE bench_saved_cards`} {
		if _, err := w.pool.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("bench: take link cards: %w", err)
		}
	}
	return w.cardsChanged(ctx)
}

// cardsChanged records that any item's card may have changed, as a card's save does for its
// item, and waits until the server has heard of it.
func (w *world) cardsChanged(ctx context.Context) error {
	if _, err := w.pool.Exec(ctx, `INSERT INTO site_changes (kind, ids) VALUES ('cards', '{}')`); err != nil {
		return fmt.Errorf("bench: record a cards change: %w", err)
	}
	token, err := w.store.Wake(ctx)
	if err != nil {
		return err
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		n, err := w.store.Lagging(ctx, token, time.Minute)
		if err != nil || n == 0 {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("bench: the server did not hear of the cards change")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// cardTargets: pages whose items have cards are at most 0.1 ms slower (server p50) than the
// same pages without; one instance fetches at least 50 pages/s; an import's drain does not
// delay a share-form preview (p99 ≤ 300 ms); a card reaches open pages within 1 s (p99).
func cardTargets(r Report) []Target {
	var out []Target
	for _, base := range []string{"first_cold_median", "next_page_median"} {
		with, ok1 := r.result("cards_" + base)
		without, ok2 := r.result(base)
		if !ok1 || !ok2 {
			continue
		}
		d := with.ServerP50 - without.ServerP50
		out = append(out, Target{What: "a page of items with link cards p50 ≤ 0.1 ms over the same page without", Scenario: with.Name,
			Measured: fmt.Sprintf("%+.2f ms (server p50 %s with cards, %s without)", d, fmtMs(with.ServerP50), fmtMs(without.ServerP50)),
			Met:      with.Requests > 0 && without.Requests > 0 && d <= 0.1})
	}
	if x, ok := r.result("cards_fetch_100_hosts"); ok {
		out = append(out, Target{What: "≥ 50 link-card pages/s fetched per instance, politeness per host honoured", Scenario: x.Name,
			Measured: fmt.Sprintf("%.1f pages/s, %d errors", x.RPS, x.Errors), Met: x.RPS >= 50 && x.Errors == 0})
	}
	if x, ok := r.result("cards_preview_under_import"); ok {
		out = append(out, Target{What: "a share-form preview p99 ≤ 300 ms while 10,000 imported links drain, every preview with its card", Scenario: x.Name,
			Measured: fmt.Sprintf("p50 %s, p99 %s (server p99 %s); %d of %d previews without the card; %d of %d imported links fetched meanwhile (%.1f s)",
				fmtMs(x.P50), fmtMs(x.P99), fmtMs(x.ServerP99), x.Errors, x.Requests, x.Done, x.Due, x.Seconds),
			Met: x.Requests > 0 && x.Errors == 0 && x.P99 <= 300})
	}
	if x, ok := r.result("cards_delivery_2_instances"); ok {
		out = append(out, Target{What: "a link card on an open follower page ≤ 1 s after the fixture answered its page (p99, 200 shares, 2 instances)", Scenario: x.Name,
			Measured: fmt.Sprintf("p50 %s, p99 %s; %d of %d arrived", fmtMs(x.P50), fmtMs(x.P99), x.Done, x.Due),
			Met:      x.Due > 0 && x.Done == x.Due && x.P99 <= 1000})
	}
	return out
}

// fetchHosts is how many hosts the fetch scenario's fixture answers for.
const fetchHosts = 100

// fetchPage is what every host of the fetch scenario answers: a blog post with OpenGraph.
const fetchPage = `<!doctype html><html lang="en"><head><title>A post</title>
<meta property="og:title" content="Why feeds should end"><meta property="og:site_name" content="A notebook">
<meta property="og:description" content="A feed you can finish is a feed you can trust.">
<meta property="og:image" content="/img/ending.jpg"></head><body><p>Text.</p></body></html>`

// fetchScenario fetches link cards from 100 hosts of a loopback fixture (reached through
// connect-to rules, as --fetch-connect-to does) with the server's politeness: a schedule per
// host in the database (one request per host per second; 3 s for arXiv), shared by every
// instance. Its throughput is one instance's pages/s (target ≥ 50).
func (w *world) fetchScenario() scenario {
	var srv *httptest.Server
	var f *linkcard.Fetcher
	var next atomic.Int64
	return scenario{Name: "cards_fetch_100_hosts", Group: "link cards fetched, 100 hosts, database politeness", Kind: "http",
		Concurrency: 50,
		Note:        "linkcard.Fetch of a page from one of 100 loopback hosts in turn, each host's turn taken from the database's schedule (1 request/s/host); throughput is pages/s",
		setup: func(ctx context.Context) error {
			srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				rw.Header().Set("Content-Type", "text/html; charset=utf-8")
				io.WriteString(rw, fetchPage)
			}))
			_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
			var rules []linkcard.ConnectTo
			for i := range fetchHosts {
				rules = append(rules, linkcard.ConnectTo{Host: fmt.Sprintf("h%d.fetch.bench.example", i), Port: "80", Addr: "127.0.0.1", Port2: port})
			}
			var err error
			f, err = linkcard.New(linkcard.Config{ConnectTo: rules, Politeness: dbSchedule{w.store}})
			return err
		},
		teardown: func() {
			if srv != nil {
				srv.Close()
			}
		},
		worker: func(int) step {
			return func(ctx context.Context) (latency, error) {
				i := next.Add(1)
				start := time.Now()
				_, err := f.Fetch(ctx, fmt.Sprintf("http://h%d.fetch.bench.example/post/%d", i%fetchHosts, i))
				d := time.Since(start)
				return latency{client: d, server: d}, err
			}
		}}
}

// dbSchedule is the server's politeness (cmd/tributary's hostSchedule): each host's turns
// from the database, a turn more than 5 s away refused (its job would be tried later).
type dbSchedule struct{ store *db.Store }

func (s dbSchedule) Wait(ctx context.Context, host string) error {
	host = strings.TrimPrefix(strings.ToLower(host), "www.")
	return s.store.HostSlot(ctx, host, linkcard.IntervalFor(host), 5*time.Second)
}
