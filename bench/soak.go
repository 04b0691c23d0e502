package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// SoakConfig says how to soak: the bench's dataset and database, two instances of the real
// server on it, Conns clients of mixed traffic for Duration, and PostgreSQL restarted in the
// middle.
type SoakConfig struct {
	Bench     Config
	Duration  time.Duration // default 10 minutes
	Conns     int           // default 64
	NoRestart bool
	Out       string    // where SOAK.md goes (default: the current directory)
	Site      *SoakSite // soak this running site with its faults instead of two instances of its own
}

// soakKind is one kind of request of the mix, with its weight (workers per 16).
type soakKind struct {
	name   string
	weight int
}

var soakKinds = []soakKind{
	{"anon_first", 2}, {"anon_next", 2}, {"first_page", 4}, {"next_page", 4}, {"share", 1}, {"events", 2}, {"health", 1},
}

// soakSample is one request's outcome.
type soakSample struct {
	kind       string
	status     int // 0: no answer (connection refused or reset)
	retryAfter bool
	dur        time.Duration
	at         time.Time
}

// SoakReport is what a soak measured.
type SoakReport struct {
	Date       time.Time
	Commit     string
	Duration   time.Duration
	Conns      int
	Dataset    DatasetInfo
	Kinds      []SoakKindReport
	Restart    [2]time.Time // when PostgreSQL went down and accepted connections again (zero: no restart)
	Site       bool         // through a site's load balancer, with Faults
	Faults     []SoakFaultReport
	Ledger     SoakLedger
	Instances  []SoakInstance
	Unexpected []string // 5xx other than 503 during the restart, and the first few errors
}

// SoakKindReport sums up one kind of request.
type SoakKindReport struct {
	Kind                  string
	Requests              int
	ByStatus              map[string]int
	P50, P99              time.Duration
	DuringRestart, Not503 int // requests answered while PostgreSQL restarted; those not 200/503
	FiveXXOutsideRestart  int
}

// SoakInstance is one server's resources at the start (after warm-up) and at the end.
type SoakInstance struct {
	Name                           string
	RSSStart, RSSEnd               int64
	GoroutinesStart, GoroutinesEnd int
}

// Soak drives two instances with mixed traffic for cfg.Duration and writes SOAK.md.
func Soak(ctx context.Context, cfg SoakConfig) (SoakReport, error) {
	cfg.Bench.Defaults()
	if cfg.Duration == 0 {
		cfg.Duration = 10 * time.Minute
	}
	if cfg.Conns == 0 {
		cfg.Conns = 64
	}
	if cfg.Site != nil {
		return soakSite(ctx, cfg)
	}
	log := cfg.Bench.Log
	rep := SoakReport{Date: time.Now().UTC(), Commit: gitCommit(), Duration: cfg.Duration, Conns: cfg.Conns}
	dbase, unlock, err := cfg.Bench.openLocked(ctx)
	if err != nil {
		return rep, err
	}
	defer unlock()
	if rep.Dataset, err = prepareDataset(ctx, cfg.Bench, dbase); err != nil {
		return rep, err
	}
	pool, err := openPool(ctx, dbase.DSN, 4)
	if err != nil {
		return rep, err
	}
	defer pool.Close()

	var servers []*server
	for i := range 2 {
		fmt.Fprintf(log, "soak: starting instance %d\n", i+1)
		srv, err := startServer(ctx, cfg.Bench.Binary, dbase.DSN)
		if err != nil {
			return rep, err
		}
		defer srv.stop()
		if _, err := srv.waitRefresh(ctx, 10*time.Minute); err != nil {
			return rep, err
		}
		servers = append(servers, srv)
	}
	classes, err := pickViewers(ctx, pool, 16)
	if err != nil {
		return rep, err
	}
	var users []int64
	for _, c := range classes {
		for _, v := range c.Viewers {
			users = append(users, v.ID)
		}
	}
	tokens, err := mintSessions(ctx, pool, users)
	if err != nil {
		return rep, err
	}
	var maxAnchor int64
	if err := pool.QueryRow(ctx, "SELECT coalesce(max(id), 1) FROM anchors").Scan(&maxAnchor); err != nil {
		return rep, err
	}
	urls, err := shareURLs(ctx, pool, maxAnchor)
	if err != nil {
		return rep, err
	}
	anchors, err := soakAnchors(ctx, pool)
	if err != nil {
		return rep, err
	}
	pool.Close() // the soak's own connection would only be in the way of the restart

	tr := newTransport(cfg.Conns * 2)
	var (
		mu      sync.Mutex
		samples []soakSample
	)
	record := func(s soakSample) {
		mu.Lock()
		samples = append(samples, s)
		mu.Unlock()
	}
	var kinds []string
	for _, k := range soakKinds {
		for range k.weight {
			kinds = append(kinds, k.name)
		}
	}
	runCtx, stop := context.WithTimeout(ctx, cfg.Duration)
	defer stop()
	var wg sync.WaitGroup
	for i := range cfg.Conns {
		w := &soakWorker{kind: kinds[i%len(kinds)], servers: servers, tr: tr, token: tokens[i%len(tokens)], urls: urls,
			anchors: anchors, r: rand.New(rand.NewPCG(uint64(i), 42)), record: record, seq: i}
		wg.Go(func() { w.run(runCtx) })
	}
	fmt.Fprintf(log, "soak: %d clients of mixed traffic on 2 instances for %s\n", cfg.Conns, cfg.Duration)

	warm := min(time.Minute, cfg.Duration/10)
	time.Sleep(warm)
	starts := make([]SoakInstance, len(servers))
	for i, s := range servers {
		starts[i] = SoakInstance{Name: fmt.Sprintf("instance %d", i+1), RSSStart: rss(s), GoroutinesStart: goroutines(s)}
	}
	if !cfg.NoRestart && dbase.cluster != nil {
		time.Sleep(cfg.Duration/2 - warm)
		fmt.Fprintf(log, "soak: restarting PostgreSQL\n")
		rep.Restart[0] = time.Now()
		if err := dbase.cluster.Stop(ctx); err != nil {
			return rep, err
		}
		time.Sleep(2 * time.Second) // down for a while, as a real restart or failover is
		if err := dbase.cluster.Start(ctx, dbase.Name, io.Discard); err != nil {
			return rep, err
		}
		rep.Restart[1] = time.Now()
		fmt.Fprintf(log, "soak: PostgreSQL is back after %s\n", rep.Restart[1].Sub(rep.Restart[0]).Round(time.Millisecond))
	}
	wg.Wait()
	for i, s := range servers {
		starts[i].RSSEnd, starts[i].GoroutinesEnd = rss(s), goroutines(s)
	}
	rep.Instances = starts
	rep.Kinds, rep.Unexpected = summarizeSoak(samples, rep.Restart)
	out := cmpOr(cfg.Out, ".")
	if err := writeSoak(filepath.Join(out, "SOAK.md"), rep); err != nil {
		return rep, err
	}
	fmt.Fprintf(log, "soak: wrote %s\n", filepath.Join(out, "SOAK.md"))
	return rep, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// soakWorker is one client: it sends one kind of request again and again, to either
// instance (next pages alternate: the cursor of one instance is used on the other).
type soakWorker struct {
	kind    string
	servers []*server
	tr      *http.Transport
	token   string
	user    int64 // the token's user (site soak)
	urls    []string
	posts   []int64 // what likes and comments go to (site soak)
	anchors []int64 // items that exist, for dwell reports
	r       *rand.Rand
	record  func(soakSample)
	seq     int
	cursor  string
	n       int
	ledger  *ledger // the site soak's: its writes are unique and recorded
	runID   string  // makes this soak's titles and comments unique
	text    string  // the unique title or comment just sent
}

func (w *soakWorker) run(ctx context.Context) {
	c := &http.Client{Transport: w.tr, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for ctx.Err() == nil {
		w.n++
		base := w.servers[(w.seq+w.n)%len(w.servers)].URL
		var (
			req  *http.Request
			post int64
		)
		switch w.kind {
		case "anon_first":
			req, _ = http.NewRequestWithContext(ctx, "GET", base+"/", nil)
			req.Header.Set("Accept-Encoding", "gzip")
		case "anon_next", "next_page":
			path := "/api/timeline"
			if w.cursor != "" {
				path += "?cursor=" + url.QueryEscape(w.cursor)
			}
			req, _ = http.NewRequestWithContext(ctx, "GET", base+path, nil)
		case "first_page":
			req, _ = http.NewRequestWithContext(ctx, "GET", base+"/api/timeline", nil)
		case "share":
			form := url.Values{"url": {w.urls[w.r.IntN(len(w.urls))]}, "title": {w.unique("Shared again during the soak")}}
			req, _ = http.NewRequestWithContext(ctx, "POST", base+"/share", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		case "like":
			post = w.posts[w.r.IntN(len(w.posts))]
			req, _ = http.NewRequestWithContext(ctx, "POST", fmt.Sprintf("%s/p/%d/like", base, post), nil)
		case "comment":
			post = w.posts[w.r.IntN(len(w.posts))]
			form := url.Values{"body": {w.unique("A comment during the soak")}}
			req, _ = http.NewRequestWithContext(ctx, "POST", fmt.Sprintf("%s/p/%d/comments", base, post), strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		case "events":
			var evs []string
			for range 5 {
				evs = append(evs, fmt.Sprintf(`{"item":%d,"dwell_ms":%d}`, w.anchors[w.r.IntN(len(w.anchors))], 300+w.r.IntN(4000)))
			}
			req, _ = http.NewRequestWithContext(ctx, "POST", base+"/events", strings.NewReader(`{"events":[`+strings.Join(evs, ",")+`]}`))
			req.Header.Set("Content-Type", "application/json")
		case "health":
			req, _ = http.NewRequestWithContext(ctx, "GET", base+"/healthz", nil)
		}
		if w.kind != "anon_first" && w.kind != "anon_next" && w.kind != "health" {
			req.AddCookie(&http.Cookie{Name: sessionCookie, Value: w.token})
		}
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		start := time.Now()
		resp, err := c.Do(req)
		s := soakSample{kind: w.kind, at: start}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			s.dur = time.Since(start)
			w.record(s)
			time.Sleep(50 * time.Millisecond) // a refused connection answers at once
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		s.status, s.dur, s.retryAfter = resp.StatusCode, time.Since(start), resp.Header.Get("Retry-After") != ""
		if ctx.Err() != nil {
			return
		}
		w.record(s)
		if w.ledger != nil {
			w.note(ctx, c, resp, post)
		}
		if w.kind == "anon_next" || w.kind == "next_page" {
			var t struct {
				NextCursor string `json:"next_cursor"`
			}
			if resp.StatusCode == http.StatusOK && json.Unmarshal(body, &t) == nil && t.NextCursor != "" && w.n%8 != 0 {
				w.cursor = t.NextCursor
			} else {
				w.cursor = "" // the end, or start again now and then
			}
		}
		if resp.StatusCode == http.StatusServiceUnavailable {
			time.Sleep(50 * time.Millisecond)
		}
		switch w.kind {
		case "events":
			time.Sleep(500 * time.Millisecond) // a page reports dwell every few seconds, not at once
		case "share", "comment", "like":
			if w.ledger != nil {
				time.Sleep(2 * time.Second) // a person writes now and then (and the site limits writes per user)
			}
		}
	}
}

// soakAnchors are the newest items (up to 5,000) for the dwell reports: item ids have gaps
// (a share of a known link spends one), and a report naming no item is refused.
func soakAnchors(ctx context.Context, pool *pgxpool.Pool) ([]int64, error) {
	var ids []int64
	err := pool.QueryRow(ctx, `SELECT coalesce(array_agg(id), '{}') FROM (SELECT id FROM anchors ORDER BY id DESC LIMIT 5000) a`).Scan(&ids)
	if err == nil && len(ids) == 0 {
		err = errors.New("bench: soak: no items")
	}
	return ids, err
}

// unique is text made unique to this soak and request, so the ledger can find it.
func (w *soakWorker) unique(text string) string {
	if w.ledger == nil {
		return text
	}
	w.text = fmt.Sprintf("%s %s w%d n%d", text, w.runID, w.seq, w.n)
	return w.text
}

// note puts an acknowledged write in the ledger; after a share it reads the writer's page
// the redirect names at once, which must show the share (read-your-own-write).
func (w *soakWorker) note(ctx context.Context, c *http.Client, resp *http.Response, post int64) {
	if resp.StatusCode != http.StatusSeeOther && resp.StatusCode != http.StatusOK {
		return
	}
	switch w.kind {
	case "like":
		w.ledger.add(func(l *ledger) { l.likes = append(l.likes, [2]int64{w.user, post}) })
	case "comment":
		w.ledger.add(func(l *ledger) { l.comments = append(l.comments, w.text) })
	case "share":
		title := w.text
		w.ledger.add(func(l *ledger) { l.shares = append(l.shares, title) })
		loc, err := resp.Location()
		if err != nil {
			return
		}
		page, _ := http.NewRequestWithContext(ctx, "GET", loc.String(), nil)
		page.AddCookie(&http.Cookie{Name: sessionCookie, Value: w.token})
		t0 := time.Now()
		res, err := c.Do(page)
		if err != nil {
			return // the site's answer is counted with its kind; the ledger holds the share
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		w.record(soakSample{kind: "own_page", status: res.StatusCode, retryAfter: res.Header.Get("Retry-After") != "", at: t0, dur: time.Since(t0)})
		if res.StatusCode == http.StatusOK && !strings.Contains(string(b), title) {
			w.ledger.add(func(l *ledger) { l.ryowMiss = append(l.ryowMiss, title+" not on "+loc.Path) })
		}
	}
}
