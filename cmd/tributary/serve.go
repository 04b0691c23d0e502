package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"tributary"
	"tributary/db"
	"tributary/feed"
	"tributary/jobs"
	"tributary/seed"
	"tributary/site"
	"tributary/static"
	"tributary/web"
)

func cmdServe(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "serve", "serve [flags]")
	var dbf dbFlags
	dbf.register(fs, e)
	var fetch fetchFlags
	fetch.register(fs, e)
	addr := fs.String("addr", e.envOr("TRIBUTARY_ADDR", ":8080"), "listen address (env TRIBUTARY_ADDR)")
	demo := fs.Bool("demo", false, "load the demo dataset when the database has no users")
	logLevel := fs.String("log-level", e.envOr("TRIBUTARY_LOG_LEVEL", "info"), "debug, info, warn or error (env TRIBUTARY_LOG_LEVEL)")
	refreshEvery := fs.Duration("snapshot-every", envDuration(e, "TRIBUTARY_SNAPSHOT_EVERY", time.Hour), "how often the feed snapshot is refreshed: incrementally, and rebuilt in full once a day (env TRIBUTARY_SNAPSHOT_EVERY)")
	rebuild := fs.Bool("snapshot-rebuild", e.getenv("TRIBUTARY_SNAPSHOT_REBUILD") != "", "rebuild the feed snapshot in full at start, not only once a day (env TRIBUTARY_SNAPSHOT_REBUILD non-empty)")
	poll := fs.Int("poll-seconds", envInt(e, "TRIBUTARY_POLL_SECONDS", 15), "how often open feeds check for new items; -1 never (env TRIBUTARY_POLL_SECONDS)")
	seenGrace := fs.Duration("seen-grace", envDuration(e, "TRIBUTARY_SEEN_GRACE", 10*time.Minute), "dwell younger than this does not hide an item yet (env TRIBUTARY_SEEN_GRACE)")
	dwellFlush := fs.Int("dwell-flush-ms", envInt(e, "TRIBUTARY_DWELL_FLUSH_MS", 0), "how often pages report card dwell, in ms (0: 5000)")
	replicaURL := fs.String("replica-url", e.getenv("DATABASE_REPLICA_URL"), "a streaming read replica of the database for feed reads (env DATABASE_REPLICA_URL)")
	replicaMode := fs.String("replica-exec-mode", e.getenv("DATABASE_REPLICA_EXEC_MODE"),
		"how statements are sent to the replica (as --db-exec-mode; default: --db-exec-mode's): cache_statement when it is reached directly, not through a pooler (env DATABASE_REPLICA_EXEC_MODE)")
	pprofAddr := fs.String("pprof-addr", e.getenv("TRIBUTARY_PPROF_ADDR"), "serve Go's pprof profiles on this address, apart from the site (off when empty; env TRIBUTARY_PPROF_ADDR)")
	metricsAddr := fs.String("metrics-addr", e.getenv("TRIBUTARY_METRICS_ADDR"), "serve Prometheus metrics at /metrics on this address, apart from the site (off when empty; env TRIBUTARY_METRICS_ADDR)")
	trusted := fs.String("trusted-proxies", e.getenv("TRIBUTARY_TRUSTED_PROXIES"), "comma-separated CIDR ranges of the proxies in front of the site, whose X-Forwarded-For and X-Forwarded-Proto are believed (env TRIBUTARY_TRUSTED_PROXIES)")
	serverTiming := fs.Bool("server-timing", e.getenv("TRIBUTARY_SERVER_TIMING") == "1", "say how long each answer took to make in a Server-Timing header (for benchmarks; env TRIBUTARY_SERVER_TIMING=1)")
	rateScale := fs.Float64("rate-limit-scale", 1, "multiply every rate limit (log-in, sign-up, shares, comments, dwell events) by this; for load tests")
	bumpAge := fs.Duration("bump-age", envDuration(e, "TRIBUTARY_BUMP_AGE", tributary.DefaultBumpRule.MaxAge), "a comment bumps a post younger than this (env TRIBUTARY_BUMP_AGE)")
	bumpWindow := fs.Duration("bump-window", envDuration(e, "TRIBUTARY_BUMP_WINDOW", tributary.DefaultBumpRule.Window), "... or a post that got more than bump-comments comments in this window (env TRIBUTARY_BUMP_WINDOW)")
	bumpComments := fs.Int("bump-comments", envInt(e, "TRIBUTARY_BUMP_COMMENTS", tributary.DefaultBumpRule.Comments), "see bump-window (env TRIBUTARY_BUMP_COMMENTS)")
	cursorKey := fs.String("cursor-key", e.getenv("TRIBUTARY_CURSOR_KEY"), "sign cursors with this secret (at least 32 characters) instead of the site's keys in the database (env TRIBUTARY_CURSOR_KEY)")
	// Off by default, as measured (BENCHMARKS.md, "Rivers"): a return's arrivals are read from the
	// posts in about the time the river's read takes, and the fanout costs every share.
	rivers := fs.Bool("rivers", e.getenv("TRIBUTARY_RIVERS") == "on", "serve active readers' home feeds from rivers, fanned out on write (env TRIBUTARY_RIVERS=on; default: fanout on read)")
	riverIdle := fs.Duration("river-idle", envDuration(e, "TRIBUTARY_RIVER_IDLE", feed.DefaultRiverKeeping.Idle), "a reader's river not read for this long is swept (env TRIBUTARY_RIVER_IDLE)")
	riverDepth := fs.Int("river-depth", envInt(e, "TRIBUTARY_RIVER_DEPTH", feed.DefaultRiverKeeping.Depth), "items a river keeps, newest first (env TRIBUTARY_RIVER_DEPTH)")
	var live web.LiveCaps // open live streams, past which a page polls (see web.LiveCaps)
	fs.IntVar(&live.PerAddress, "live-per-address", web.DefaultLiveCaps.PerAddress, "live streams open per client address on an instance")
	fs.IntVar(&live.PerUser, "live-per-user", web.DefaultLiveCaps.PerUser, "live streams open per signed-in user on an instance")
	fs.IntVar(&live.PerInstance, "live-streams", web.DefaultLiveCaps.PerInstance, "live streams open on an instance")
	secure := fs.Bool("secure-cookie", e.getenv("TRIBUTARY_SECURE_COOKIE") == "1", "mark the session cookie Secure (serve behind HTTPS; env TRIBUTARY_SECURE_COOKIE=1)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := static.Check(); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	proxies, err := web.ParseTrustedProxies(*trusted)
	if err != nil {
		return fmt.Errorf("serve: --trusted-proxies: %w", err)
	}
	if *cursorKey != "" && len(*cursorKey) < 32 {
		return fmt.Errorf("serve: --cursor-key: must be at least 32 characters, got %d", len(*cursorKey))
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("serve: --log-level: %w", err)
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))

	store, done, err := dbf.openStore(ctx, e)
	if err != nil {
		return err
	}
	defer done()
	store.Rivers.Off = !*rivers
	if store.Fetcher, err = fetch.fetcher(store, log); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if *replicaURL != "" {
		opts, _ := dbf.options() // checked by openStore
		if *replicaMode != "" {
			if opts.ExecMode, err = db.ParseExecMode(*replicaMode); err != nil {
				return fmt.Errorf("serve: --replica-exec-mode: %w", err)
			}
		}
		rpool, err := db.OpenReplica(ctx, *replicaURL, opts)
		if err != nil {
			return fmt.Errorf("serve: --replica-url: %w", err)
		}
		defer rpool.Close()
		store.UseReplica(rpool)
	}
	if *demo {
		if err := loadDemo(ctx, e, store); err != nil {
			return err
		}
	}

	fcfg := feed.DefaultConfig()
	fcfg.SeenGrace = *seenGrace
	fcfg.CursorKey = []byte(*cursorKey)
	feeds := feed.New(store, fcfg, time.Now)
	bus := site.New(store, log)
	store.CardSaved = bus.Changed // other instances' open pages fill the card in
	feeds.Attach(bus)
	srv := web.NewServer(web.Config{Store: store, Feed: feeds, Bus: bus, Log: log, SecureCookie: *secure,
		TrustedProxies: proxies, ServerTiming: *serverTiming, PollSeconds: *poll, DwellFlushMs: *dwellFlush, RateScale: *rateScale,
		Bump: tributary.BumpRule{MaxAge: *bumpAge, Window: *bumpWindow, Comments: *bumpComments}, LiveCaps: live})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	httpSrv := srv.HTTPServer()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	busDone := make(chan struct{})
	go func() {
		defer close(busDone)
		bus.Run(ctx)
	}()
	go store.RunReplicaCheck(ctx, 250*time.Millisecond, log)
	riversDone := make(chan struct{})
	go func() {
		defer close(riversDone)
		if *rivers {
			feeds.RunRivers(ctx, feed.RiverKeeping{Idle: *riverIdle, Depth: *riverDepth, Sweep: feed.DefaultRiverKeeping.Sweep}, log)
		}
	}()
	durableDone := make(chan struct{})
	go func() {
		defer close(durableDone)
		if err := store.RunJobs(ctx, log); err != nil {
			log.Error("durable jobs stopped", "err", err)
		}
	}()
	jobsDone := make(chan struct{})
	go func() {
		defer close(jobsDone)
		jobs.Run(ctx, log,
			jobs.Job{Name: "snapshot-refresh", Every: *refreshEvery, Jitter: 0.05, RunAtStart: true,
				Run: func(ctx context.Context) (string, error) {
					refresh := store.Refresh
					if *rebuild {
						refresh, *rebuild = store.RefreshSnapshot, false
					}
					res, err := refresh(ctx, time.Now())
					if err != nil || res.Skipped {
						return res.String(), err
					}
					srv.Metrics().Refreshed(res.Duration, res.Rows)
					// The ranking copy is made at once rather than by the first viewer who needs it.
					start := time.Now()
					if err := feeds.Warm(ctx); err != nil {
						return "", err
					}
					return fmt.Sprintf("%s, copied for ranking in %s", res, time.Since(start).Round(time.Millisecond)), nil
				}},
			jobs.Job{Name: "filter-bumps", Every: time.Second, Jitter: 0.1,
				Run: func(ctx context.Context) (string, error) {
					n, err := store.ApplyFilterBumps(ctx)
					if n == 0 {
						return "", err // nothing to say: logged at debug level
					}
					return fmt.Sprintf("%d bumped posts moved up in their discussions", n), err
				}},
			jobs.Job{Name: "fence-evict", Every: 10 * time.Minute, Jitter: 0.2,
				Run: func(ctx context.Context) (string, error) {
					n, err := store.EvictFences(ctx, time.Now().Add(-24*time.Hour))
					return fmt.Sprintf("%d fences and fenceposts older than a day evicted", n), err
				}},
			jobs.Job{Name: "site-log-prune", Every: 10 * time.Minute, Jitter: 0.2,
				Run: func(ctx context.Context) (string, error) {
					n, err := store.PruneSite(ctx, time.Now().Add(-time.Hour))
					if err != nil {
						return "", err
					}
					m, err := store.PruneRateLimits(ctx, time.Now().Add(-24*time.Hour))
					return fmt.Sprintf("%d site changes and instances older than an hour, %d rate-limit windows older than a day pruned", n, m), err
				}},
			jobs.Job{Name: "notification-fanout", Every: 250 * time.Millisecond, Jitter: 0.2,
				Run: func(ctx context.Context) (string, error) {
					n, err := store.DispatchFanouts(ctx, 500)
					if n == 0 {
						return "", err
					}
					return fmt.Sprintf("%d notification fan-outs handed to jobs", n), err
				}},
			jobs.Job{Name: "notification-prune", Every: time.Hour, Jitter: 0.2,
				Run: func(ctx context.Context) (string, error) {
					n, err := store.PruneNotifications(ctx, time.Now().Add(-90*24*time.Hour))
					return fmt.Sprintf("%d notifications older than 90 days pruned", n), err
				}},
			jobs.Job{Name: "session-cleanup", Every: time.Hour, Jitter: 0.1,
				Run: func(ctx context.Context) (string, error) {
					n, err := store.DeleteExpiredSessions(ctx)
					return fmt.Sprintf("%d expired sessions deleted", n), err
				}},
			jobs.Job{Name: "link-cards", Every: 250 * time.Millisecond, Jitter: 0.2,
				Run: func(ctx context.Context) (string, error) {
					if store.Fetcher == nil {
						return "", nil
					}
					n, err := store.DispatchCards(ctx, 500, 10*time.Minute)
					if n == 0 {
						return "", err
					}
					return fmt.Sprintf("%d link cards handed to fetch jobs", n), err
				}})
	}()

	// Profiles and metrics on listeners of their own, never on the site's: opt-in, for operators.
	if *pprofAddr != "" {
		pmux := http.NewServeMux()
		pmux.HandleFunc("/debug/pprof/", pprof.Index)
		pmux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		pmux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		pmux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		pmux.HandleFunc("/debug/pprof/trace", pprof.Trace)
		stop, err := serveOps(*pprofAddr, pmux, log, "profiles", "/debug/pprof/")
		if err != nil {
			return fmt.Errorf("serve: --pprof-addr: %w", err)
		}
		defer stop()
	}
	if *metricsAddr != "" {
		mmux := http.NewServeMux()
		mmux.Handle("GET /metrics", srv.Metrics().Handler())
		stop, err := serveOps(*metricsAddr, mmux, log, "metrics", "/metrics")
		if err != nil {
			return fmt.Errorf("serve: --metrics-addr: %w", err)
		}
		defer stop()
	}
	log.Info("serving", "url", "http://"+displayAddr(ln.Addr().String()))
	errc := make(chan error, 1)
	go func() { errc <- httpSrv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	err = httpSrv.Shutdown(shutdownCtx)
	cancel()
	<-jobsDone
	<-riversDone
	<-durableDone
	<-busDone
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	return nil
}

// serveOps serves an operator's handler on a listener of its own at addr, logs its URL
// (msg names it) and returns the function that stops it.
func serveOps(addr string, h http.Handler, log *slog.Logger, msg, path string) (func() error, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	// Profiles take up to 30 s to write (profile?seconds=); reading a request is quick.
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute}
	go hs.Serve(ln)
	log.Info(msg, "url", "http://"+displayAddr(ln.Addr().String())+path)
	return hs.Close, nil
}

// displayAddr turns ":8080" or "[::]:8080" into "localhost:8080" for the log line.
func displayAddr(a string) string {
	if strings.HasPrefix(a, "[::]:") || strings.HasPrefix(a, "0.0.0.0:") || strings.HasPrefix(a, ":") {
		return "localhost:" + a[strings.LastIndex(a, ":")+1:]
	}
	return a
}

// loadDemo fills an empty database with the demo dataset and prints the demo logins.
func loadDemo(ctx context.Context, e *env, store *db.Store) error {
	n, err := store.CountUsers(ctx)
	if err != nil || n > 0 {
		return err
	}
	fmt.Fprintln(e.stderr, "empty database: loading the demo dataset (3,000 users, 20,000 posts)…")
	hash, err := bcrypt.GenerateFromPassword([]byte(seedDemoPassword), bcrypt.DefaultCost)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	started := time.Now()
	res, err := seed.Fill(ctx, store, seed.Config{Users: 3000, Posts: 20000, Seed: 1, End: time.Now().Truncate(time.Minute),
		DemoPasswordHash: string(hash), DemoPassword: seedDemoPassword})
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if err := seed.Activity(ctx, store, res.Logins, 1, time.Now()); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	fmt.Fprintf(e.stderr, "demo dataset loaded in %.1fs. Demo logins (password %q):\n", time.Since(started).Seconds(), seedDemoPassword)
	for _, l := range res.Logins {
		fmt.Fprintf(e.stderr, "  %-6s %s\n", l.Handle, l.Note)
	}
	return nil
}

// envInt reads an integer from the environment, or def.
func envInt(e *env, key string, def int) int {
	if n, err := strconv.Atoi(e.getenv(key)); err == nil {
		return n
	}
	return def
}

// envDuration reads a duration from the environment, or def.
func envDuration(e *env, key string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(e.getenv(key)); err == nil && d > 0 {
		return d
	}
	return def
}
