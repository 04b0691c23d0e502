package main

import (
	"context"
	"fmt"
	"os"

	"tributary/bench"
)

// cmdSoak runs two instances under mixed traffic for a while, restarts PostgreSQL in the
// middle and writes SOAK.md (make soak; not part of CI). With --topology it soaks the
// production-shaped site instead (soak_topology.go).
func cmdSoak(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "soak", "soak [flags]")
	var cfg bench.SoakConfig
	fs.BoolVar(&cfg.Bench.Quick, "quick", false, "the small bench dataset")
	fs.DurationVar(&cfg.Duration, "duration", 0, "how long the traffic runs (default 10m)")
	fs.IntVar(&cfg.Conns, "conns", 0, "clients of mixed traffic (default 64)")
	fs.BoolVar(&cfg.NoRestart, "no-restart", false, "do not restart PostgreSQL in the middle")
	fs.StringVar(&cfg.Out, "out", ".", "where SOAK.md goes")
	fs.StringVar(&cfg.Bench.Database.ClusterDir, "cluster-dir", e.getenv("TRIBUTARY_BENCH_CLUSTER_DIR"),
		"directory of the bench's private PostgreSQL cluster (restarted in the middle of the soak)")
	topo := fs.Bool("topology", false, "soak the topology (started if not running) through haproxy, with faults: an instance killed, the primary restarted, the replica paused")
	topoDir := fs.String("topology-dir", ".cache/topology", "the topology's directory (as for tributary topology)")
	topoPort := fs.Int("topology-port", 8088, "the topology's haproxy port (as for tributary topology)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("soak: unexpected argument %q", fs.Arg(0))
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("soak: find the tributary binary: %w", err)
	}
	cfg.Bench.Binary, cfg.Bench.Log = exe, e.stderr
	if *topo {
		if cfg.Site, err = soakTopology(ctx, e, *topoDir, *topoPort); err != nil {
			return err
		}
	}
	_, err = bench.Soak(ctx, cfg)
	return err
}
