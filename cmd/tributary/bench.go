package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"tributary/bench"
)

const benchHelp = `Usage: tributary bench [flags]

Benchmarks the feed on the bench dataset (seeded once with 'tributary seed' into the
database tributary_bench of a private PostgreSQL cluster of its own, next to the
checkout's: <cluster dir>-bench, so 'make stop' and the tests leave it alone; reused while
the seed parameters and the migrations stay the same), through the real server on a
loopback port: anonymous front page (cache hit and miss), logged-in first pages (cold and
returning) and next pages for light, median and heavy followers, the live path, event
ingestion; then the baseline queries on the same database, EXPLAIN (ANALYZE, BUFFERS) of
the main queries, the snapshot refresh time and the server's peak RSS. Writes
BENCHMARKS.md, BENCHMARKS.json, bench/latency.svg and bench/explain/*.txt under --out.

--quick runs a small dataset (its own database, tributary_bench_quick) in under a minute
and writes to bench/out/quick unless --out is given. The bench cluster keeps running
after the run (warm for the next one): 'tributary cluster stop --cluster-dir DIR' stops it,
with DIR from 'tributary bench --print-dsn'.

Flags:
`

func cmdBench(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench", "bench [flags]")
	fs.Usage = func() {
		fmt.Fprint(e.stderr, benchHelp)
		fs.PrintDefaults()
	}
	var cfg bench.Config
	fs.BoolVar(&cfg.Quick, "quick", false, "small dataset and short scenarios, for development")
	fs.StringVar(&cfg.Scale, "scale", "", "dataset size: 40k, 400k (the default) or 4m posts, each in a database of its own (tributary_bench_40k, _4m), results under bench/out/<scale> unless --out or --only is given")
	fs.IntVar(&cfg.Concurrency, "concurrency", 4, "simulated clients of the latency scenarios and baselines")
	fs.IntVar(&cfg.ThroughputConcurrency, "throughput-concurrency", 16, "simulated clients of the cached anonymous pages")
	fs.IntVar(&cfg.LiveStreams, "live-streams", 0, "open follower pages in the live notice measurement (0: 1,000; readers are added past the most followed author's followers)")
	fs.IntVar(&cfg.LiveFollowers, "live-followers", 0, "of the live streams, how many are the sharing author's followers' (0: all); the others' readers follow someone else")
	fs.IntVar(&cfg.UnloadedConcurrency, "unloaded-concurrency", 1, "also run the logged-in scenarios and the naive baseline with this many clients (0: not)")
	fs.DurationVar(&cfg.Duration, "duration", 0, "measured time per scenario (default 8s, --quick 1s)")
	fs.DurationVar(&cfg.Warmup, "warmup", 0, "unmeasured warm-up per scenario (default 1s, --quick 200ms)")
	fs.StringVar(&cfg.Out, "out", "", "output directory (default: the current directory, --quick: bench/out/quick)")
	fs.BoolVar(&cfg.Reseed, "reseed", false, "seed the dataset again even when the database holds it")
	fs.StringVar(&cfg.Database.URL, "database-url", e.getenv("BENCH_DATABASE_URL"),
		"bench database (env BENCH_DATABASE_URL; never DATABASE_URL): seeded when empty, never dropped; default: a database of the private cluster")
	fs.StringVar(&cfg.Database.ClusterDir, "cluster-dir", e.getenv("TRIBUTARY_BENCH_CLUSTER_DIR"),
		"directory of the bench's private PostgreSQL cluster (env TRIBUTARY_BENCH_CLUSTER_DIR; default: the checkout's cluster directory + \"-bench\")")
	fs.StringVar(&cfg.Binary, "binary", "", "tributary binary to seed and serve with (default: this one)")
	printDSN := fs.Bool("print-dsn", false, "print the bench database's connection string and exit")
	render := fs.String("render", "", "write BENCHMARKS.md again from this BENCHMARKS.json (its directory), with the cost-growth table of the runs at every scale found, and exit")
	only := fs.String("only", "", "run only the scenarios whose names match this regular expression (default --out: bench/out/only)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("bench: unexpected argument %q", fs.Arg(0))
	}
	if *render != "" {
		return bench.Render(*render)
	}
	if _, ok := bench.Scales[cfg.Scale]; cfg.Scale != "" && !ok {
		return fmt.Errorf("bench: --scale must be 40k, 400k or 4m, got %q", cfg.Scale)
	}
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			return fmt.Errorf("bench: --only: %w", err)
		}
		cfg.Only = re
	}
	cfg.Log = e.stderr
	cfg.Defaults()
	if *printDSN {
		dbase, err := cfg.Open(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, dbase.DSN)
		return nil
	}
	if cfg.Binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("bench: find the tributary binary: %w (give --binary)", err)
		}
		cfg.Binary = exe
	}
	if cfg.Out == "" {
		switch {
		case cfg.Quick:
			cfg.Out = filepath.Join("bench", "out", "quick")
		case cfg.Only != nil: // a part of a run never takes the place of a whole one's report
			cfg.Out = filepath.Join("bench", "out", "only")
		case cfg.Scale != "" && cfg.Scale != "400k":
			cfg.Out = filepath.Join("bench", "out", cfg.Scale)
		default:
			cfg.Out = "."
		}
	}
	cfg.Rerun = strings.TrimSpace("make bench    # or: go run ./cmd/tributary bench " + strings.Join(args, " "))
	_, err := bench.Run(ctx, cfg)
	return err
}
