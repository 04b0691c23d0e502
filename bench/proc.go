package bench

import (
	"context"
	"fmt"
	"os"
	"runtime"
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

// schedRunTime is the CPU time a single-threaded process (a PostgreSQL backend) has run, to
// the nanosecond (the scheduler's count in /proc/PID/schedstat), for windows too short for
// cpuTime's 10 ms ticks. A process of several threads needs cpuTime: schedstat counts its
// first thread only.
func schedRunTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("bench: /proc/%d/schedstat: empty", pid)
	}
	ns, err := strconv.ParseInt(f[0], 10, 64)
	return time.Duration(ns), err
}

// runTimes is schedRunTime of each of the single-threaded processes pids that is running.
func runTimes(pids []int) map[int]time.Duration {
	out := make(map[int]time.Duration, len(pids))
	for _, p := range pids {
		if d, err := schedRunTime(p); err == nil {
			out[p] = d
		}
	}
	return out
}

// runTimeDelta is the run time between two readings of runTimes, over the processes running
// at both (one that ended or began in between counts for nothing, not for its whole life).
func runTimeDelta(before, after map[int]time.Duration) time.Duration {
	var d time.Duration
	for p, t := range after {
		if t0, ok := before[p]; ok {
			d += t - t0
		}
	}
	return d
}

// cpuMeter adds up, per scenario of a group, the CPU time the server, the bench database's
// backends and the driver itself spent over the scenario's measured phases.
type cpuMeter struct {
	ctx       context.Context
	pool      *pgxpool.Pool
	app, self int // pids
	before    cpuUse
	pgBefore  map[int]time.Duration // each backend's run time at the phase's start
	used      []cpuUse
}

type cpuUse struct{ app, pg, self time.Duration }

func (m *cpuMeter) now() cpuUse {
	return cpuUse{app: cpuTime(m.app), self: cpuTime(m.self)}
}

// start and stop bracket a measured phase of the group's scenario i. The backends' time is
// counted over those running at both ends (runTimeDelta): one that ended in the phase would
// otherwise be taken off for its whole life.
func (m *cpuMeter) start(int) {
	m.before = m.now()
	m.pgBefore = runTimes(backendPIDs(m.ctx, m.pool))
}

func (m *cpuMeter) stop(i int) {
	n := m.now()
	m.used[i].app += n.app - m.before.app
	m.used[i].pg += runTimeDelta(m.pgBefore, runTimes(backendPIDs(m.ctx, m.pool)))
	m.used[i].self += n.self - m.before.self
}

// fill sets res's CPU per request (the server's only when it served them) and how busy the
// machine's cores were.
func (u cpuUse) fill(res *Result, served bool) {
	if res.Requests == 0 {
		return
	}
	n := float64(res.Requests+res.Errors) * float64(time.Millisecond)
	if served {
		res.AppCPUms = round3(float64(u.app) / n)
	}
	res.PgCPUms = round3(float64(u.pg) / n)
	res.DriverCPUms = round3(float64(u.self) / n)
	perReq := res.AppCPUms + res.PgCPUms + res.DriverCPUms // ms of CPU per request
	res.Busy = round3(perReq * float64(res.Requests+res.Errors) / (res.Seconds * 1000) / float64(max(runtime.NumCPU(), 1)))
}
