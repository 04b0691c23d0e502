package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"tributary/cluster"
)

// What the production path costs a page (issue 48): the median reader's cold first page and
// next pages at one client, on the bench's server (direct to PostgreSQL) and on a second
// server as `make topology` runs one: reached through haproxy, reaching PostgreSQL through
// PgBouncer in transaction mode (--db-exec-mode cache_describe). The two alternate, a
// scenario at a time, so that both see the same machine.

// pooledKinds are the page scenarios measured both ways.
var pooledKinds = []struct {
	prefix string
	make   func(w *world, c class, conc int) scenario
}{
	{"first_cold_", (*world).coldFirst},
	{"next_page_", (*world).nextPages},
}

// pooledName names a scenario of the comparison: direct_<kind>median or pooled_<kind>median.
func pooledName(way, prefix string) string { return way + "_" + prefix + "median" }

// pooledWanted reports whether a run measures the pooled path: PgBouncer and haproxy are
// installed, and the run asks for the rows (every full run does).
func pooledWanted(cfg Config) bool {
	if cfg.Only != nil && !cfg.Only.MatchString("pooled_") && !cfg.Only.MatchString("direct_") {
		return false
	}
	_, err1 := cluster.BouncerBinary()
	_, err2 := haproxyBinary()
	return err1 == nil && err2 == nil
}

func haproxyBinary() (string, error) {
	for _, p := range []string{"haproxy", "/usr/sbin/haproxy"} {
		if path, err := exec.LookPath(p); err == nil {
			return path, nil
		}
	}
	return "", errors.New("bench: haproxy is not installed")
}

// measurePooled starts the pooled path beside srv (the bench's server on dsn) and measures
// both ways, one client each.
func measurePooled(ctx context.Context, cfg Config, srv *server, pool *pgxpool.Pool, w *world, dsn string, info DatasetInfo) ([]Result, error) {
	pc, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("bench: pooled: %w", err)
	}
	dir, err := os.MkdirTemp("", "tributary-bench-pooled-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil { // PgBouncer runs as postgres when we are root
		return nil, err
	}
	bport, err := cluster.FreePort()
	if err != nil {
		return nil, err
	}
	b := cluster.Bouncer{Dir: filepath.Join(dir, "pgbouncer"), Port: bport, ServerHost: pc.Host, ServerPort: int(pc.Port),
		PoolSize: cfg.Concurrency + 8}
	fmt.Fprintf(cfg.Log, "bench: pooled: PgBouncer on :%d, a server through it, haproxy in front\n", bport)
	if err := b.Start(ctx); err != nil {
		return nil, err
	}
	defer b.Stop()
	// Every read through the bouncer: the topology's replica for feed reads is left out
	// (a replica of the bench cluster would copy every bench database).
	psrv, err := startServer(ctx, cfg.Binary, b.DSN(pc.Database), "--direct-database-url", dsn, "--db-exec-mode", "cache_describe")
	if err != nil {
		return nil, err
	}
	defer psrv.stop()
	if _, err := psrv.waitRefresh(ctx, 10*time.Minute); err != nil {
		return nil, err
	}
	front, stop, err := startHAProxy(ctx, dir, 4000, psrv.URL)
	if err != nil {
		return nil, err
	}
	defer stop()
	pw, err := newWorld(ctx, front, pool, info, cfg)
	if err != nil {
		return nil, err
	}
	var out []Result
	i := slices.IndexFunc(w.classes, func(c class) bool { return c.Name == "median" })
	if i < 0 || len(pw.classes) != len(w.classes) {
		return nil, errors.New("bench: pooled: no median class")
	}
	for _, k := range pooledKinds {
		direct, pooled := k.make(w, w.classes[i], 1), k.make(pw, pw.classes[i], 1)
		direct.Name, pooled.Name = pooledName("direct", k.prefix), pooledName("pooled", k.prefix)
		for _, run := range []struct {
			srv *server
			sc  scenario
		}{{srv, direct}, {psrv, pooled}} {
			res, err := runScenarios(ctx, cfg, run.srv, pool, []scenario{run.sc})
			out = append(out, res...)
			if err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// startHAProxy runs haproxy on a free loopback port in front of backends (URLs; a client's
// address picks one, so that its page and its stream meet the same instance), as the
// topology's does (forwarded client address, long timeouts for live streams), holding at
// most maxconn connections; its files go in dir. It returns its URL and how to stop it.
func startHAProxy(ctx context.Context, dir string, maxconn int, backends ...string) (string, func(), error) {
	bin, err := haproxyBinary()
	if err != nil {
		return "", nil, err
	}
	port, err := cluster.FreePort()
	if err != nil {
		return "", nil, err
	}
	var servers strings.Builder
	for i, b := range backends {
		fmt.Fprintf(&servers, "    server app%d %s\n", i+1, strings.TrimPrefix(b, "http://"))
	}
	cfgFile, pidFile := filepath.Join(dir, "haproxy.cfg"), filepath.Join(dir, "haproxy.pid")
	conf := fmt.Sprintf(`global
    maxconn %d
    pidfile %s
    daemon

defaults
    mode http
    timeout connect 2s
    timeout client 1h
    timeout server 1h
    timeout http-request 10s

frontend site
    bind 127.0.0.1:%d
    http-request del-header X-Forwarded-For
    option forwardfor
    default_backend app

backend app
    balance source
%s`, maxconn, pidFile, port, servers.String())
	if err := os.WriteFile(cfgFile, []byte(conf), 0o644); err != nil {
		return "", nil, err
	}
	if out, err := exec.CommandContext(ctx, bin, "-f", cfgFile).CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("bench: haproxy: %w\n%s", err, out)
	}
	stop := func() {
		raw, err := os.ReadFile(pidFile)
		if err != nil {
			return
		}
		if pid, err := strconv.Atoi(string(trimNL(raw))); err == nil {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
		}
	}
	return fmt.Sprintf("http://127.0.0.1:%d", port), stop, nil
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// pooledTargets: a page through haproxy and PgBouncer at most 0.3 ms p50 (client-side: the
// hop through haproxy is the client's) over the same page direct, one client, same run.
func pooledTargets(r Report) []Target {
	var out []Target
	for _, k := range pooledKinds {
		d, ok1 := r.result(pooledName("direct", k.prefix))
		p, ok2 := r.result(pooledName("pooled", k.prefix))
		if !ok1 || !ok2 {
			continue
		}
		diff := p.P50 - d.P50
		out = append(out, Target{What: "a page through haproxy + PgBouncer ≤ 0.3 ms p50 over direct (one client, client-side, same run)",
			Scenario: p.Name, Measured: fmt.Sprintf("%+.2f ms (%s against %s direct; server-side %s against %s)", diff,
				fmtMs(p.P50), fmtMs(d.P50), fmtMs(p.ServerP50), fmtMs(d.ServerP50)),
			Met: p.Requests > 0 && d.Requests > 0 && diff <= 0.3})
	}
	return out
}
