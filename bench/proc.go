package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tributary/db"
)

// loadAvg is the 1, 5 and 15 minute load averages.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// openPool connects to the bench database the way the server does (poolConfig), with room
// for conns connections.
func openPool(ctx context.Context, dsn string, conns int) (*pgxpool.Pool, error) {
	pcfg, err := poolConfig(ctx, dsn)
	if err != nil {
		return nil, err
	}
	pcfg.MaxConns = int32(conns)
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	return pool, pool.Ping(ctx)
}

// poolConfig is a pool configuration for dsn with the session settings the app's own pool
// (db.Open) gives its connections, such as plan_cache_mode: the baselines, the untimed
// preparation and the EXPLAIN files then run under the server's settings.
func poolConfig(ctx context.Context, dsn string) (*pgxpool.Config, error) {
	pcfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	app, err := db.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer app.Close()
	for k, v := range app.Config().ConnConfig.RuntimeParams {
		if _, set := pcfg.ConnConfig.RuntimeParams[k]; !set {
			pcfg.ConnConfig.RuntimeParams[k] = v
		}
	}
	return pcfg, nil
}

// backendPIDs are the PostgreSQL backends connected to the bench database, the harness's
// own included (baselines run there).
func backendPIDs(ctx context.Context, pool *pgxpool.Pool) []int {
	var pids []int
	if err := pool.QueryRow(ctx, `SELECT coalesce(array_agg(pid), '{}') FROM pg_stat_activity WHERE datname = current_database()`).Scan(&pids); err != nil {
		return nil
	}
	return pids
}

// runTime is the CPU time a single-threaded process (a PostgreSQL backend) has run, to the
// nanosecond (the scheduler's count in /proc/PID/schedstat), for windows too short for
// cpuTime's 10 ms ticks; cpuTime when it cannot be read. A process of several threads needs
// cpuTime: schedstat counts its first thread only.
func runTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
	if err != nil {
		return cpuTime(pid)
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return cpuTime(pid)
	}
	ns, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return cpuTime(pid)
	}
	return time.Duration(ns)
}

// sumRunTime is runTime over single-threaded processes.
func sumRunTime(pids []int) time.Duration {
	var d time.Duration
	for _, p := range pids {
		d += runTime(p)
	}
	return d
}

func sumCPU(pids []int) time.Duration {
	var d time.Duration
	for _, p := range pids {
		d += cpuTime(p)
	}
	return d
}
