package bench

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tributary"
	"tributary/feed"
)

// The card-flow rows (issue 45's targets): the server's own fetch jobs against the card
// fixture, while a sharer previews links (cards_preview_under_import) and while followers'
// pages wait for the cards of an author's shares on two instances (cards_delivery_2_instances).
// They run after the other rows, as live_notice does: they add shares to the dataset.

const (
	// cardImportLinks is how many links the preview row's import brings, spread over the
	// fixture's hosts; cardPreviewEvery is the sharer's pace.
	cardImportLinks  = 10_000
	cardPreviewEvery = 200 * time.Millisecond
	// cardDeliveryShares are the delivery row's shares, cardShareEvery apart, seen by the
	// pages of at most cardDeliveryStreams followers.
	cardDeliveryShares  = 200
	cardShareEvery      = 50 * time.Millisecond
	cardDeliveryStreams = 100
)

// cardFlowNames are the rows' names, for --only (with the unread count's row, which also
// needs a second instance and runs after the others).
var cardFlowNames = []string{"cards_preview_under_import", "cards_delivery_2_instances", "cards_share_ack",
	"notifications_live_2_instances"}

// cardFlows runs the card-flow rows --only asks for, against srv (started with fix's rules).
func cardFlows(ctx context.Context, cfg Config, srv *server, dsn string, pool *pgxpool.Pool, w *world, fix *cardFixture) ([]Result, error) {
	var out []Result
	for _, name := range cardFlowNames {
		if cfg.Only != nil && !cfg.Only.MatchString(name) {
			continue
		}
		var res Result
		var rows []Result
		var err error
		switch name {
		case "cards_preview_under_import":
			res, err = previewUnderImport(ctx, cfg, srv, w, fix)
			rows = []Result{res}
		case "cards_delivery_2_instances":
			res, err = cardDelivery(ctx, cfg, srv, dsn, pool, fix)
			rows = []Result{res}
		case "cards_share_ack":
			rows, err = shareAck(ctx, cfg, srv, dsn, w, fix)
		case "notifications_live_2_instances":
			res, err = unreadLive(ctx, cfg, srv, dsn, pool, fix)
			rows = []Result{res}
		}
		if err != nil {
			return out, err
		}
		out = append(out, rows...)
		for _, res := range rows {
			fmt.Fprintf(cfg.Log, "bench: %-30s n=%-6d p50=%8.2fms p99=%8.2fms server p50=%8.2fms done %d of %d errors=%d\n",
				res.Name, res.Requests, res.P50, res.P99, res.ServerP50, res.Done, res.Due, res.Errors)
			for _, e := range res.ErrorSamples {
				fmt.Fprintf(cfg.Log, "bench:   error: %s\n", e)
			}
		}
	}
	return out, nil
}

// previewUnderImport imports cardImportLinks links of one file (db.Store.Import, as the
// import command does) and, while their fetch jobs drain, asks the share form's preview of a
// new fixture link every cardPreviewEvery, as the form does. It ends when the import has
// drained or after the drain's time limit; what is left of the import is then no longer due.
func previewUnderImport(ctx context.Context, cfg Config, srv *server, w *world, fix *cardFixture) (Result, error) {
	res := Result{Name: "cards_preview_under_import", Group: "share-form preview while an import's links are fetched", Kind: "http",
		Concurrency: 1, Due: cardImportLinks}
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	var csv strings.Builder
	csv.WriteString("url,title,handle,shared_at\n")
	for i := range cardImportLinks {
		fmt.Fprintf(&csv, "http://%s/import/%s/%d,,cardbench_%s,2026-01-01\n", cardHost(i), run, i, run)
	}
	recs, bad, err := tributary.ParseImport(strings.NewReader(csv.String()), tributary.FormatCSV, time.Now())
	if err == nil && len(bad) > 0 {
		err = fmt.Errorf("%d bad lines, the first: %v", len(bad), bad[0])
	}
	if err != nil {
		return res, fmt.Errorf("bench: %s: import file: %w", res.Name, err)
	}
	limit := 3 * time.Minute // a full run: the drain is ≥ 100 s at one page per host per second
	if cfg.Quick {
		limit = 30 * time.Second
	}
	fmt.Fprintf(cfg.Log, "bench: %s: importing %d links, then previews every %s while they drain (at most %s)\n",
		res.Name, cardImportLinks, cardPreviewEvery, limit)
	imported := time.Now()
	if _, err := w.store.Import(ctx, recs); err != nil {
		return res, fmt.Errorf("bench: %s: import: %w", res.Name, err)
	}
	res.Note = fmt.Sprintf("%d links imported in one file (db.Store.Import, %s; untimed) over the fixture's %d hosts, their cards fetched by the server's jobs (one page per host per second, the schedule in the database); meanwhile GET /share/preview?url=<a new fixture link> every %s, as the form asks it; the row ends when the import has drained or after %s; a preview without the card is an error; req/s is the import's pages fetched per second",
		cardImportLinks, time.Since(imported).Round(time.Millisecond), fetchHosts, cardPreviewEvery, limit)

	c := newClient(srv.URL, w.tr)
	c.setSession(w.events[0])
	var client, server []time.Duration
	var errs []error
	start := time.Now()
	tick := time.NewTicker(cardPreviewEvery)
	defer tick.Stop()
	for i := 0; time.Since(start) < limit && fix.answered("/import/"+run) < cardImportLinks; i++ {
		link := fmt.Sprintf("http://%s/preview/%s/%d", cardHost(i*7), run, i)
		body, d, err := c.get(ctx, "/share/preview?url="+url.QueryEscape(link))
		if err == nil { // answered: timed, whether it shows the card or not
			client, server = append(client, d.client), append(server, d.server)
			if !bytes.Contains(body, []byte(cardFixtureTitle)) {
				err = fmt.Errorf("a preview showed no card (the page was not fetched within the preview's deadline)")
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-tick.C:
		}
	}
	res.Seconds = time.Since(start).Seconds()
	res.Done = fix.answered("/import/" + run)
	res.RPS = float64(res.Done) / res.Seconds // the drain's pages/s
	summarizeInto(&res, client, server, errs)
	// What is left of the import is not fetched after the row (the next one times its own).
	if _, err := w.pool.Exec(ctx, `UPDATE link_cards SET due = false WHERE due AND url LIKE $1`,
		"%/import/"+run+"/%"); err != nil {
		return res, fmt.Errorf("bench: %s: %w", res.Name, err)
	}
	return res, nil
}

// cardDelivery: a second instance beside srv, the home pages of the most followed author's
// followers open on both with their live streams, and cardDeliveryShares shares of new
// fixture links by the author through srv; each card's latency runs from the fixture having
// answered its page to the stream event naming the share's post on a follower's page.
func cardDelivery(ctx context.Context, cfg Config, a *server, dsn string, pool *pgxpool.Pool, fix *cardFixture) (Result, error) {
	res := Result{Name: "cards_delivery_2_instances", Group: "a fetched link card to open follower pages, 2 instances", Kind: "http"}
	var author int64
	var followers []int64
	err := pool.QueryRow(ctx, `SELECT followed_id FROM follows WHERE state = 'active'
		GROUP BY followed_id ORDER BY count(*) DESC LIMIT 1`).Scan(&author)
	if err == nil {
		err = pool.QueryRow(ctx, `SELECT coalesce(array_agg(follower_id), '{}') FROM (SELECT follower_id FROM follows
			WHERE followed_id = $1 AND state = 'active' ORDER BY follower_id LIMIT $2) f`, author, cardDeliveryStreams).Scan(&followers)
	}
	if err != nil {
		return res, fmt.Errorf("bench: %s: %w", res.Name, err)
	}
	tokens, err := mintSessions(ctx, pool, append([]int64{author}, followers...))
	if err != nil {
		return res, err
	}
	b, err := secondInstance(ctx, cfg, res.Name, dsn, fix.args()...)
	if err != nil {
		return res, err
	}
	defer b.stop()
	servers := []*server{a, b}
	tr := &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: 4}
	defer tr.CloseIdleConnections()

	// The pages, then their streams: each records when it first heard each card named.
	var mu sync.Mutex
	heard := make([]map[string]time.Time, len(followers))
	rechecks := make([][]time.Time, len(followers))
	for i := range heard {
		heard[i] = map[string]time.Time{}
	}
	closeStreams, err := openStreams(ctx, servers, tr, tokens[1:], func(i int, event, data string) {
		keys := talkKeys(event, data)
		if keys == nil {
			return
		}
		at := time.Now()
		mu.Lock()
		defer mu.Unlock()
		if keys[0] == "recheck" {
			rechecks[i] = append(rechecks[i], at)
		}
		for _, k := range keys {
			if _, ok := heard[i][k]; !ok {
				heard[i][k] = at
			}
		}
	})
	if err != nil {
		return res, fmt.Errorf("bench: %s: %w", res.Name, err)
	}
	defer closeStreams()

	fmt.Fprintf(cfg.Log, "bench: %s: %d streams open on %d instances; %d shares, %s apart\n",
		res.Name, len(followers), len(servers), cardDeliveryShares, cardShareEvery)
	poster := newClient(a.URL, tr)
	poster.setSession(tokens[0])
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	links := make([]string, cardDeliveryShares)
	start := time.Now()
	for s := range links {
		links[s] = fmt.Sprintf("http://%s/deliver/%s/%d", cardHost(s), run, s)
		if _, err := shareForm(ctx, poster, links[s], "A card to come"); err != nil {
			return res, fmt.Errorf("bench: %s: %w", res.Name, err)
		}
		time.Sleep(cardShareEvery)
	}
	ids := map[string]int64{}
	rows, err := pool.Query(ctx, `SELECT url, id FROM posts WHERE author_id = $1 AND url = ANY($2)`, author, links)
	if err == nil {
		for rows.Next() {
			var u string
			var id int64
			if err = rows.Scan(&u, &id); err != nil {
				break
			}
			ids[u] = id
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	if err != nil {
		return res, fmt.Errorf("bench: %s: the shares' posts: %w", res.Name, err)
	}
	// Until every page has heard of every card, or 10 s after the last share.
	due := len(links) * len(followers)
	var arrivals []cardArrival
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		mu.Lock()
		arrivals = cardArrivals(links, ids, fix.servedAt, heard, rechecks)
		mu.Unlock()
		if len(arrivals) == due || time.Now().After(deadline) {
			break
		}
	}
	res.Seconds = time.Since(start).Seconds()
	mu.Lock()
	keys := 0
	for _, h := range heard {
		keys += len(h)
	}
	mu.Unlock()
	fmt.Fprintf(cfg.Log, "bench: %s: %d posts found of %d shares, %d cards named on the pages in all\n", res.Name, len(ids), len(links), keys)
	var lat []time.Duration
	for _, x := range arrivals {
		lat = append(lat, x.after)
	}
	var missing []error
	if n := due - len(arrivals); n > 0 {
		missing = append(missing, fmt.Errorf("%d of %d cards did not reach their page within 10 s of the last share", n, due))
	}
	summarizeInto(&res, lat, lat, missing)
	res.Requests, res.Errors, res.Done, res.Due = len(arrivals), due-len(arrivals), len(arrivals), due
	res.Concurrency = len(followers)
	res.Note = fmt.Sprintf("the home pages of %d followers of the most followed author open, their live streams (/live) on 2 instances; the author shares %d new fixture links through the first, %s apart; both instances' jobs fetch the cards (one page per host per second); latency: from the fixture having answered a link's page to the first stream event after it that fills the card in on each page (talk naming the share's post, or recheck: every card the page shows); the concurrency column is the number of pages, requests the cards that arrived",
		len(followers), cardDeliveryShares, cardShareEvery)
	return res, nil
}

// shareForm posts a link through the share form (as liveNotice's shares) and returns how
// long its answer took.
func shareForm(ctx context.Context, c *client, link, title string) (latency, error) {
	form := url.Values{"url": {link}, "title": {title}}
	req, err := http.NewRequestWithContext(ctx, "POST", c.base+"/share", strings.NewReader(form.Encode()))
	if err != nil {
		return latency{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	_, d, err := c.do(req, http.StatusSeeOther)
	if err != nil {
		return d, fmt.Errorf("share: %w", err)
	}
	return d, nil
}

// talkKeys are the cards a talk event names, or "recheck" for a recheck event (nil: neither).
func talkKeys(event, data string) []string {
	switch event {
	case "talk":
		return strings.Fields(data)
	case "recheck":
		return []string{"recheck"}
	}
	return nil
}

// secondInstance starts another server on the bench's database, with extra flags, for a row
// of name, and waits for its startup refresh.
func secondInstance(ctx context.Context, cfg Config, name, dsn string, extra ...string) (*server, error) {
	fmt.Fprintf(cfg.Log, "bench: %s: starting a second instance\n", name)
	b, err := startServer(ctx, cfg.Binary, dsn, extra...)
	if err != nil {
		return nil, err
	}
	if _, err := b.waitRefresh(ctx, 10*time.Minute); err != nil {
		b.stop()
		return nil, err
	}
	return b, nil
}

// openStreams opens the home page of each session token's user and then the page's live
// stream, on servers in turn, and hands every event of stream i to on (from the stream's
// goroutine). It returns once every stream has answered; closing ends them and waits.
func openStreams(ctx context.Context, servers []*server, tr *http.Transport, tokens []string, on func(i int, event, data string)) (func(), error) {
	sctx, cancel := context.WithCancel(ctx)
	var opened, done sync.WaitGroup
	var mu sync.Mutex
	refused := 0 // streams answered with another status than 200
	closeAll := func() { cancel(); done.Wait() }
	src := "/feed/new?fencepost=" + url.QueryEscape(feed.FormatFencepost(time.Now()))
	for i, token := range tokens {
		c := newClient(servers[i%len(servers)].URL, tr)
		c.setSession(token)
		if _, _, err := c.get(ctx, "/"); err != nil {
			closeAll()
			return nil, fmt.Errorf("home page: %w", err)
		}
		answered := func(status int) { // refused: answered, but not with a stream
			if status != 0 && status != http.StatusOK {
				mu.Lock()
				refused++
				mu.Unlock()
			}
		}
		if err := c.openLive(sctx, src, &opened, &done, answered, func(event, data string) { on(i, event, data) }); err != nil {
			closeAll()
			return nil, err
		}
	}
	opened.Wait()
	if refused > 0 {
		closeAll()
		return nil, fmt.Errorf("%d of %d streams refused", refused, len(tokens))
	}
	return closeAll, nil
}

// cardArrival is one card on one page: how long after the fixture answered its page.
type cardArrival struct {
	link  string
	page  int
	after time.Duration
}

// cardArrivals pairs each link's post (ids) with the pages that heard of it, first, after the
// fixture answered the link's page (servedAt), or were told to check every card they show
// (a recheck) after it: a page that heard of it only before has not had this card.
func cardArrivals(links []string, ids map[string]int64, servedAt func(string) (time.Time, bool), heard []map[string]time.Time, rechecks [][]time.Time) []cardArrival {
	var out []cardArrival
	for _, link := range links {
		id, ok := ids[link]
		served, ok2 := servedAt(link)
		if !ok || !ok2 {
			continue
		}
		key := "p" + strconv.FormatInt(id, 10)
		for page, h := range heard {
			at, ok := h[key]
			ok = ok && !at.Before(served)
			if page < len(rechecks) {
				if j := slices.IndexFunc(rechecks[page], func(t time.Time) bool { return !t.Before(served) }); j >= 0 && (!ok || rechecks[page][j].Before(at)) {
					at, ok = rechecks[page][j], true
				}
			}
			if ok {
				out = append(out, cardArrival{link: link, page: page, after: at.Sub(served)})
			}
		}
	}
	return out
}

// summarizeInto puts latencies (client-side and server-side) and errors into a row.
func summarizeInto(res *Result, client, server []time.Duration, errs []error) {
	res.Requests, res.Errors = len(client), len(errs)
	s, ss := summarize(client), summarize(server)
	res.P50, res.P95, res.P99, res.Mean, res.Max = s.P50, s.P95, s.P99, s.Mean, s.Max
	res.ServerP50, res.ServerP95, res.ServerP99 = ss.P50, ss.P95, ss.P99
	seen := map[string]bool{}
	for _, e := range errs {
		if msg := e.Error(); !seen[msg] && len(res.ErrorSamples) < 5 {
			seen[msg] = true
			res.ErrorSamples = append(res.ErrorSamples, msg)
		}
	}
}
