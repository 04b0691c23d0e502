// Package bench is Tributary's benchmark harness: it seeds the bench dataset once, starts
// the real server on it, drives it over loopback HTTP at a stated concurrency, runs the
// baseline queries on the same database, and writes BENCHMARKS.md, BENCHMARKS.json, a
// latency chart and EXPLAIN (ANALYZE, BUFFERS) of the main queries.
package bench

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tributary"
	"tributary/cluster"
	"tributary/db"
	"tributary/feed"
)

// Config is one bench run.
type Config struct {
	Quick   bool
	Scale   string // a dataset of Scales ("40k", "400k", "4m"; "": the full one)
	Dataset Dataset
	Reseed  bool // seed again even when the database holds the dataset
	// Concurrency is the number of simulated clients of the latency scenarios;
	// ThroughputConcurrency that of the cached anonymous pages (a throughput target).
	Concurrency           int
	ThroughputConcurrency int
	// UnloadedConcurrency, when positive and not Concurrency, runs the logged-in scenarios
	// and the naive baseline again with this many clients (named with a _c<N> suffix): the
	// latency of a server that is not also queueing for the machine's two cores.
	UnloadedConcurrency int
	Warmup, Duration    time.Duration // per scenario
	MaxRequests         int           // per scenario
	Out                 string        // BENCHMARKS.md, BENCHMARKS.json, bench/latency.svg, bench/explain/
	Binary              string        // the tributary binary: seed and serve
	Database            Database
	Log                 io.Writer
	Rerun               string // the command line that reproduces this run, for the report
	// Only, when set, runs just the scenarios whose names it matches (for working on one path).
	Only *regexp.Regexp
	// LiveStreams is how many followers' pages are open in the live notice measurement
	// (0: liveNoticeStreams); readers are added when the author has fewer followers.
	LiveStreams int
	// LiveFollowers, when below LiveStreams, is how many of the streams are the author's
	// followers'; the others' readers follow someone else (0: every stream's).
	LiveFollowers int
}

// unloaded is the concurrency of the unloaded runs, 0 when there are none.
func (c *Config) unloaded() int {
	if c.UnloadedConcurrency == c.Concurrency {
		return 0
	}
	return max(c.UnloadedConcurrency, 0)
}

// Database says where the bench data lives: a database of this checkout's private cluster
// (created when missing, dropped and recreated when it holds something else), or a given URL.
type Database struct {
	URL        string // when set, used as is and never dropped
	ClusterDir string
	Name       string // database name in the private cluster
}

// Defaults fills what the caller left zero: the full run's or the quick run's settings.
func (c *Config) Defaults() {
	if c.Dataset == (Dataset{}) {
		c.Dataset = FullDataset
		if c.Quick {
			c.Dataset = QuickDataset
		}
		if d, ok := Scales[c.Scale]; ok {
			c.Dataset = d
		}
	}
	c.Concurrency = cmp.Or(c.Concurrency, 4)
	c.ThroughputConcurrency = cmp.Or(c.ThroughputConcurrency, 16)
	if c.Quick {
		c.Warmup = cmp.Or(c.Warmup, 200*time.Millisecond)
		c.Duration = cmp.Or(c.Duration, time.Second)
	}
	c.Warmup = cmp.Or(c.Warmup, time.Second)
	c.Duration = cmp.Or(c.Duration, 8*time.Second)
	c.MaxRequests = cmp.Or(c.MaxRequests, 500_000)
	if c.Database.Name == "" {
		c.Database.Name = "tributary_bench"
		if c.Quick {
			c.Database.Name = "tributary_bench_quick"
		}
		if c.Scale != "" && c.Scale != "400k" {
			c.Database.Name = "tributary_bench_" + c.Scale
		}
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
}

// Open returns the bench database, starting the private cluster when no URL is given.
func (c Config) Open(ctx context.Context) (database, error) {
	if c.Database.URL != "" {
		return database{DSN: c.Database.URL}, nil
	}
	dir := c.Database.ClusterDir
	if dir == "" {
		// A cluster of its own, next to the checkout's: `make stop`, `make run` and the
		// tests never restart it in the middle of a run, and its cache holds only bench data.
		wd, _ := os.Getwd()
		dir = cluster.DefaultDir(wd) + "-bench"
	}
	cl := cluster.Cluster{Dir: dir}
	if err := cl.Start(ctx, c.Database.Name, c.Log); err != nil {
		return database{}, err
	}
	return database{DSN: cl.DSN(c.Database.Name), Name: c.Database.Name, cluster: &cl}, nil
}

// openLocked opens the bench database and holds its lock until unlock is called.
func (c Config) openLocked(ctx context.Context) (dbase database, unlock func(), err error) {
	if dbase, err = c.Open(ctx); err != nil {
		return dbase, nil, err
	}
	unlock, err = dbase.lock(ctx)
	return dbase, unlock, err
}

// Run is one whole bench run: dataset, server, scenarios, baselines, plans, report.
func Run(ctx context.Context, cfg Config) (Report, error) {
	cfg.Defaults()
	started := time.Now()
	rep := Report{Date: started.UTC(), Commit: gitCommit(), Machine: machine(), Rerun: cfg.Rerun, LoadBefore: loadAvg(),
		Settings: Settings{Concurrency: cfg.Concurrency, ThroughputConcurrency: cfg.ThroughputConcurrency, UnloadedConcurrency: cfg.unloaded(),
			WarmupSeconds: cfg.Warmup.Seconds(), DurationSeconds: cfg.Duration.Seconds(), PageSize: tributary.DefaultLimit, Quick: cfg.Quick}}
	dbase, unlock, err := cfg.openLocked(ctx)
	if err != nil {
		return rep, err
	}
	defer unlock()
	if rep.Dataset, err = prepareDataset(ctx, cfg, dbase); err != nil {
		return rep, err
	}
	pool, err := openPool(ctx, dbase.DSN, cfg.Concurrency+8)
	if err != nil {
		return rep, err
	}
	defer pool.Close()
	rep.Machine.PostgreSQL = postgresVersion(ctx, pool)
	if err := pool.QueryRow(ctx, "SHOW plan_cache_mode").Scan(&rep.Settings.PlanCacheMode); err != nil {
		return rep, fmt.Errorf("bench: %w", err)
	}

	rep.Settings.Rivers = os.Getenv("TRIBUTARY_RIVERS") == "on"
	fmt.Fprintf(cfg.Log, "bench: starting the server\n")
	fix, err := newCardFixture() // the site the card-flow rows' links are fetched from
	if err != nil {
		return rep, fmt.Errorf("bench: card fixture: %w", err)
	}
	defer fix.close()
	srv, err := startServer(ctx, cfg.Binary, dbase.DSN, fix.args()...)
	if err != nil {
		return rep, err
	}
	defer srv.stop()
	r, err := srv.waitRefresh(ctx, 10*time.Minute)
	if err != nil {
		return rep, err
	}
	rep.Refresh = RefreshReport{Seconds: r.Dur.Seconds(), Result: r.Result}
	fmt.Fprintf(cfg.Log, "bench: the server's startup snapshot refresh took %s (%s)\n", r.Dur, r.Result)

	w, err := newWorld(ctx, srv.URL, pool, rep.Dataset, cfg)
	if err != nil {
		return rep, err
	}
	for _, c := range w.classes {
		lo, hi := c.followeeRange()
		rep.Viewers = append(rep.Viewers, ClassInfo{Class: c.Name, Target: c.Target, Viewers: len(c.Viewers), MinFollowees: lo, MaxFollowees: hi})
	}
	all := append(w.scenarios(cfg.Concurrency, cfg.ThroughputConcurrency), w.baselines(pool, cfg.Concurrency, feed.DefaultConfig().HeadSize)...)
	all = append(all, w.peerScenarios(pool, cfg.Concurrency)...)
	all = append(all, w.strategyScenarios(pool, cfg.Concurrency)...)
	if n := cfg.unloaded(); n > 0 {
		all = append(all, w.unloaded(pool, n, feed.DefaultConfig().HeadSize)...)
	} else {
		all = append(all, w.notifiedPages(cfg.Concurrency)...)
	}
	if cfg.Only != nil {
		all = slices.DeleteFunc(all, func(sc scenario) bool { return !cfg.Only.MatchString(sc.Name) })
	}
	if rep.Results, err = runScenarios(ctx, cfg, srv, pool, all); err != nil {
		return rep, err
	}
	if pairsWanted(cfg) {
		pairs, err := measurePairs(ctx, cfg, srv, pool, w)
		if rep.Results = append(rep.Results, pairs...); err != nil {
			return rep, err
		}
	}
	if pooledWanted(cfg) {
		pooled, err := measurePooled(ctx, cfg, srv, pool, w, dbase.DSN, rep.Dataset)
		if rep.Results = append(rep.Results, pooled...); err != nil {
			return rep, err
		}
	}
	if cfg.Only == nil || cfg.Only.MatchString("live_notice") {
		if rep.Live, err = liveNotice(ctx, cfg, srv, dbase.DSN, pool); err != nil {
			return rep, err
		}
	}
	flows, err := cardFlows(ctx, cfg, srv, dbase.DSN, pool, w, fix)
	if rep.Results = append(rep.Results, flows...); err != nil {
		return rep, err
	}
	if cfg.Only == nil {
		// What the hourly refresh does: the items that may have changed in the last hour.
		now := time.Now()
		res, err := db.NewStore(pool).RefreshSince(ctx, now.Add(-time.Hour), now)
		if err != nil {
			return rep, err
		}
		rep.Refresh.HourSeconds, rep.Refresh.HourRedone = res.Duration.Seconds(), res.Redone
		fmt.Fprintf(cfg.Log, "bench: an incremental refresh of the last hour: %s\n", res)
	}
	if rep.PeakRSSBytes, err = srv.peakRSS(); err != nil {
		return rep, err
	}
	if err := pool.QueryRow(ctx, "SELECT pg_database_size(current_database())").Scan(&rep.DatabaseBytes); err != nil {
		return rep, fmt.Errorf("bench: database size: %w", err)
	}
	if rep.Tables, err = tableSizes(ctx, pool); err != nil {
		return rep, err
	}
	if err := srv.stop(); err != nil {
		fmt.Fprintf(cfg.Log, "bench: server stop: %v\n", err)
	}

	fmt.Fprintf(cfg.Log, "bench: EXPLAIN (ANALYZE, BUFFERS) of the main queries\n")
	if err := diagnose(ctx, cfg, dbase.DSN, pool, w, &rep); err != nil {
		return rep, err
	}
	rep.LoadAfter = loadAvg()
	rep.Targets = evaluate(rep)
	rep.Ratios = ratios(rep)
	if err := writeReport(cfg.Out, rep); err != nil {
		return rep, err
	}
	fmt.Fprintf(cfg.Log, "bench: done in %s; wrote %s\n", time.Since(started).Round(time.Second), filepath.Join(cfg.Out, "BENCHMARKS.md"))
	return rep, nil
}

// newWorld picks and logs in the viewers and mints the sessions of the event posters.
func newWorld(ctx context.Context, base string, pool *pgxpool.Pool, d DatasetInfo, cfg Config) (*world, error) {
	w := &world{base: base, tr: newTransport(max(cfg.Concurrency, cfg.ThroughputConcurrency)), pool: pool,
		store: db.NewStore(pool), maxAnchor: d.MaxAnchor, maxPost: d.MaxPost, pageSize: tributary.DefaultLimit, maxPages: 10}
	var err error
	if w.shareURLs, err = shareURLs(ctx, pool, d.MaxAnchor); err != nil {
		return nil, err
	}
	if w.classes, err = pickViewers(ctx, pool, max(8, cfg.Concurrency)); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Log, "bench: logging in %d viewers\n", 3*len(w.classes[0].Viewers))
	if err := w.logins(ctx); err != nil {
		return nil, err
	}
	var eventUsers []int64
	if err := pool.QueryRow(ctx, `SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM (SELECT id FROM users ORDER BY id LIMIT 2000) u`).Scan(&eventUsers); err != nil {
		return nil, fmt.Errorf("bench: event users: %w", err)
	}
	if w.events, err = mintSessions(ctx, pool, eventUsers); err != nil {
		return nil, err
	}
	return w, nil
}

// runScenarios runs the scenarios one after the other (one with an Alternate in turns with
// it, when both are to run), with the CPU time each used.
func runScenarios(ctx context.Context, cfg Config, srv *server, pool *pgxpool.Pool, all []scenario) ([]Result, error) {
	lim := loadLimits{Warmup: cfg.Warmup, Duration: cfg.Duration, MaxRequests: cfg.MaxRequests}
	if len(all) > 1 {
		fmt.Fprintf(cfg.Log, "bench: %d scenarios of %s each (after a %s warm-up)\n", len(all), cfg.Duration, cfg.Warmup)
	}
	app, self := srv.cmd.Process.Pid, os.Getpid()
	var out []Result
	taken := map[string]bool{} // measured in turns with one before
	for i, sc := range all {
		if taken[sc.Name] {
			continue
		}
		group := []scenario{sc}
		if j := slices.IndexFunc(all[i+1:], func(b scenario) bool { return sc.Alternate != "" && b.Name == sc.Alternate }); j >= 0 {
			group = append(group, all[i+1+j])
			taken[sc.Alternate] = true
		}
		for _, g := range group {
			if g.setup != nil {
				if err := g.setup(ctx); err != nil {
					return out, fmt.Errorf("bench: %s: setup: %w", g.Name, err)
				}
			}
		}
		m := &cpuMeter{ctx: ctx, pool: pool, app: app, self: self, used: make([]cpuUse, len(group))}
		var results []Result
		if len(group) == 2 {
			a, b := runAlternating(ctx, group[0], group[1], lim, m.start, m.stop)
			results = []Result{a, b}
		} else {
			results = []Result{runLoad(ctx, sc, lim, func() { m.start(0) })}
			m.stop(0)
		}
		for i, g := range group {
			if g.teardown != nil {
				g.teardown()
			}
			res := results[i]
			m.used[i].fill(&res, g.Kind == "http")
			out = append(out, res)
			fmt.Fprintf(cfg.Log, "bench: %-30s c=%-3d n=%-6d p50=%8.2fms p95=%8.2fms p99=%8.2fms server p50=%8.2fms p99=%8.2fms %9.1f req/s errors=%d\n",
				res.Name, res.Concurrency, res.Requests, res.P50, res.P95, res.P99, res.ServerP50, res.ServerP99, res.RPS, res.Errors)
			for _, e := range res.ErrorSamples {
				fmt.Fprintf(cfg.Log, "bench:   error: %s\n", e)
			}
			switch {
			case ctx.Err() != nil:
				return out, ctx.Err()
			case srv.exited():
				return out, fmt.Errorf("bench: the server exited during %s; its log:\n%s", g.Name, srv.tail())
			case res.Requests == 0 && res.Errors > 0:
				return out, fmt.Errorf("bench: every request of %s failed, the first with: %s", g.Name, res.ErrorSamples[0])
			}
		}
	}
	return out, nil
}

// diagnose captures the main requests' queries in-process, writes their EXPLAIN files and
// checks the snapshot queries' plans.
func diagnose(ctx context.Context, cfg Config, dsn string, pool *pgxpool.Pool, w *world, rep *Report) error {
	light, heavy := w.classes[0].Viewers[0], w.classes[len(w.classes)-1].Viewers[0]
	t := planTarget{Light: light.ID, Heavy: heavy.ID, Followees: heavy.Followees, ShareURL: w.shareURLs[0]}
	if len(w.classes) > 2 {
		t.Median = w.classes[len(w.classes)/2].Viewers[0].ID
	}
	cases, err := capturePlans(ctx, dsn, t)
	if err != nil {
		return err
	}
	for _, pc := range cases {
		ct := CaseTiming{Case: pc.Name, WallMs: ms(pc.Wall), DBMs: ms(pc.dbTime()), Queries: len(pc.Calls)}
		for _, c := range pc.Calls {
			if ms(c.Dur) > ct.SlowedMs {
				ct.Slowest, ct.SlowedMs = c.Name, ms(c.Dur)
			}
		}
		rep.Breakdown = append(rep.Breakdown, ct)
	}
	dir := filepath.Join(cfg.Out, "bench", "explain")
	if rep.Explains, rep.PlanCache, err = writeExplains(ctx, pool, dir, cases, heavy.ID, w.pageSize, feed.DefaultConfig().HeadSize); err != nil {
		return err
	}
	rep.Plans = checkPlans(ctx, pool, cases)
	return nil
}
