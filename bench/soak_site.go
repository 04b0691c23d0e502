package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// SoakSite is a running multi-instance site (`tributary topology start`) the soak drives
// through its load balancer, and the faults it causes on a schedule.
type SoakSite struct {
	URL       string // the load balancer
	DSN       string // the primary, direct: sessions before, the ledger check after
	Instances []SoakSiteInstance
	Faults    []SoakFault // spread evenly over the run, one at a time
}

// SoakSiteInstance is one instance of the site, for its resources.
type SoakSiteInstance struct {
	Name    string
	Metrics string     // its /metrics URL
	Pid     func() int // its process now (it changes when a fault restarts it)
}

// SoakFault is one fault: Do causes it and returns once the site is whole again.
type SoakFault struct {
	Name string
	Do   func(ctx context.Context) error
}

// SoakFaultReport is when one fault began and ended.
type SoakFaultReport struct {
	Name       string
	Start, End time.Time
	Err        string
}

// soakSiteKinds is the site soak's mix (workers per 16): the writes keep a ledger.
var soakSiteKinds = []soakKind{
	{"anon_first", 2}, {"anon_next", 2}, {"first_page", 3}, {"next_page", 3}, {"share", 2}, {"like", 2}, {"comment", 1}, {"events", 1},
}

// ledger is every write the site acknowledged, checked against the primary afterwards.
type ledger struct {
	mu       sync.Mutex
	shares   []string   // unique titles
	comments []string   // unique bodies
	likes    [][2]int64 // user, post
	ryowMiss []string   // shares missing from the writer's page right after the redirect
}

func (l *ledger) add(f func(*ledger)) {
	l.mu.Lock()
	f(l)
	l.mu.Unlock()
}

// soakSite runs the soak through cfg.Site and writes SOAK.md.
func soakSite(ctx context.Context, cfg SoakConfig) (SoakReport, error) {
	site, log := cfg.Site, cfg.Bench.Log
	rep := SoakReport{Date: time.Now().UTC(), Commit: gitCommit(), Duration: cfg.Duration, Conns: cfg.Conns, Site: true}
	pool, err := openPool(ctx, site.DSN, 4)
	if err != nil {
		return rep, err
	}
	defer pool.Close()
	if err := pool.QueryRow(ctx, "SELECT (SELECT count(*) FROM posts), (SELECT count(*) FROM users)").
		Scan(&rep.Dataset.PostCount, &rep.Dataset.UserCount); err != nil {
		return rep, fmt.Errorf("bench: soak: count the site: %w", err)
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
	var posts []int64 // public posts anyone may like and comment on
	if err := pool.QueryRow(ctx, `SELECT coalesce(array_agg(id), '{}') FROM (SELECT id FROM posts
		WHERE is_public AND deleted_at IS NULL ORDER BY id DESC LIMIT 500) p`).Scan(&posts); err != nil || len(posts) == 0 {
		return rep, fmt.Errorf("bench: soak: public posts: %v (%d)", err, len(posts))
	}

	tr := newTransport(cfg.Conns * 2)
	var (
		mu      sync.Mutex
		samples []soakSample
		led     ledger
	)
	record := func(s soakSample) {
		mu.Lock()
		samples = append(samples, s)
		mu.Unlock()
	}
	var kinds []string
	for _, k := range soakSiteKinds {
		for range k.weight {
			kinds = append(kinds, k.name)
		}
	}
	run := fmt.Sprintf("%x", time.Now().UnixNano())
	lb := []*server{{URL: site.URL}}
	runCtx, stop := context.WithTimeout(ctx, cfg.Duration)
	defer stop()
	var wg sync.WaitGroup
	for i := range cfg.Conns {
		w := &soakWorker{kind: kinds[i%len(kinds)], servers: lb, tr: tr, token: tokens[i%len(tokens)], user: users[i%len(users)],
			urls: urls, posts: posts, anchors: anchors, r: rand.New(rand.NewPCG(uint64(i), 42)), record: record, seq: i,
			ledger: &led, runID: run}
		wg.Go(func() { w.run(runCtx) })
	}
	fmt.Fprintf(log, "soak: %d clients of mixed traffic through %s for %s, %d faults\n", cfg.Conns, site.URL, cfg.Duration, len(site.Faults))

	warm := min(time.Minute, cfg.Duration/10)
	time.Sleep(warm)
	starts := make([]SoakInstance, len(site.Instances))
	for i, in := range site.Instances {
		starts[i] = SoakInstance{Name: in.Name, RSSStart: rssOf(in.Pid()), GoroutinesStart: goroutines(&server{Metrics: in.Metrics})}
	}
	// Fault i begins at (i+1)/(n+1) of the run.
	begin := time.Now().Add(-warm)
	for i, f := range site.Faults {
		at := begin.Add(cfg.Duration * time.Duration(i+1) / time.Duration(len(site.Faults)+1))
		if d := time.Until(at); d > 0 {
			time.Sleep(d)
		}
		if runCtx.Err() != nil {
			break
		}
		fmt.Fprintf(log, "soak: fault: %s\n", f.Name)
		fr := SoakFaultReport{Name: f.Name, Start: time.Now()}
		if err := f.Do(ctx); err != nil {
			fr.Err = err.Error()
			fmt.Fprintf(log, "soak: fault %s: %v\n", f.Name, err)
		}
		fr.End = time.Now()
		rep.Faults = append(rep.Faults, fr)
		fmt.Fprintf(log, "soak: fault over after %s\n", fr.End.Sub(fr.Start).Round(time.Millisecond))
	}
	wg.Wait()
	for i, in := range site.Instances {
		starts[i].RSSEnd, starts[i].GoroutinesEnd = rssOf(in.Pid()), goroutines(&server{Metrics: in.Metrics})
	}
	rep.Instances = starts
	rep.Kinds, rep.Unexpected = summarizeSoakSite(samples)
	if rep.Ledger, err = checkLedger(ctx, pool, &led); err != nil {
		return rep, err
	}
	out := cmpOr(cfg.Out, ".")
	if err := writeSoak(filepath.Join(out, "SOAK.md"), rep); err != nil {
		return rep, err
	}
	fmt.Fprintf(log, "soak: wrote %s\n", filepath.Join(out, "SOAK.md"))
	return rep, nil
}

// SoakLedger is the ledger's check: acknowledged writes, and those missing afterwards.
type SoakLedger struct {
	Shares, Likes, Comments              int
	LostShares, LostLikes, LostComments  int
	ReadYourWrites, ReadYourWritesMissed int
	FirstMissed                          []string
}

// checkLedger looks every acknowledged write up on the primary.
func checkLedger(ctx context.Context, pool *pgxpool.Pool, l *ledger) (SoakLedger, error) {
	r := SoakLedger{Shares: len(l.shares), Likes: len(l.likes), Comments: len(l.comments),
		ReadYourWrites: len(l.shares), ReadYourWritesMissed: len(l.ryowMiss)}
	var found int
	if err := pool.QueryRow(ctx, `SELECT count(DISTINCT title) FROM posts WHERE title = ANY($1) AND deleted_at IS NULL`, l.shares).Scan(&found); err != nil {
		return r, fmt.Errorf("bench: soak ledger: %w", err)
	}
	r.LostShares = len(l.shares) - found
	if err := pool.QueryRow(ctx, `SELECT count(DISTINCT body) FROM comments WHERE body = ANY($1)`, l.comments).Scan(&found); err != nil {
		return r, fmt.Errorf("bench: soak ledger: %w", err)
	}
	r.LostComments = len(l.comments) - found
	us, ps := make([]int64, len(l.likes)), make([]int64, len(l.likes))
	for i, k := range l.likes {
		us[i], ps[i] = k[0], k[1]
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT DISTINCT u, p FROM unnest($1::bigint[], $2::bigint[]) AS k(u, p)) k
		WHERE EXISTS (SELECT 1 FROM likes WHERE user_id = k.u AND post_id = k.p)`, us, ps).Scan(&found); err != nil {
		return r, fmt.Errorf("bench: soak ledger: %w", err)
	}
	distinct := map[[2]int64]bool{}
	for _, k := range l.likes {
		distinct[k] = true
	}
	r.Likes = len(distinct)
	r.LostLikes = len(distinct) - found
	r.FirstMissed = l.ryowMiss[:min(len(l.ryowMiss), 10)]
	return r, nil
}
