package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"tributary/cluster"
)

// A production-shaped site on this machine (docs/operations.md): haproxy on one port in
// front of three instances, which reach the primary through PgBouncer in transaction mode
// (LISTEN, migrations and the refresh lock direct), and read feeds from a streaming
// replica. Every file it makes is under one directory; every process outlives the command
// and is found again by its pid file.
type topology struct {
	dir       string
	port      int // haproxy's; instance i listens on port+i, its metrics on port+10+i, profiles on port+30+i
	instances int
	bin       string // the binary the instances run
	stdout    io.Writer
}

func cmdTopology(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "topology", "topology start|stop|roll|status [flags]")
	dir := fs.String("dir", ".cache/topology", "directory of every file of the topology")
	port := fs.Int("port", 8088, "haproxy's port; instance i listens on port+i, its metrics on port+10+i, its profiles on port+30+i, PgBouncer on port+20")
	instances := fs.Int("instances", 3, "Tributary instances behind haproxy")
	if len(args) == 0 {
		fs.Usage()
		return errors.New("topology: say start, stop, roll or status")
	}
	verb := args[0]
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	t := &topology{dir: abs, port: *port, instances: *instances, bin: filepath.Join(abs, "bin", "tributary"), stdout: e.stdout}
	switch verb {
	case "start":
		return t.start(ctx)
	case "stop":
		return t.stop(ctx)
	case "roll":
		return t.roll(ctx)
	case "status":
		return t.status(ctx)
	}
	return fmt.Errorf("topology: unknown action %q (start, stop, roll or status)", verb)
}

func (t *topology) primary() cluster.Cluster {
	return cluster.Cluster{Dir: filepath.Join(t.dir, "primary")}
}
func (t *topology) replica() cluster.Cluster {
	return cluster.Cluster{Dir: filepath.Join(t.dir, "replica")}
}
func (t *topology) bouncer() cluster.Bouncer {
	p := t.primary()
	return cluster.Bouncer{Dir: filepath.Join(t.dir, "pgbouncer"), Port: t.port + 20,
		ServerHost: filepath.Join(p.Dir, "sock"), ServerPort: 5432, PoolSize: 20}
}
func (t *topology) pidFile(name string) string { return filepath.Join(t.dir, name+".pid") }
func (t *topology) appPort(i int) int          { return t.port + i }

// start brings up whatever of the topology does not run yet.
func (t *topology) start(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Join(t.dir, "bin"), 0o755); err != nil {
		return err
	}
	if err := os.Chmod(t.dir, 0o755); err != nil { // the postgres user reaches its parts
		return err
	}
	p := t.primary()
	if err := p.Start(ctx, "tributary", t.stdout); err != nil {
		return fmt.Errorf("topology: primary: %w (the postgres user must be able to reach %s; --dir under /tmp if not)", err, t.dir)
	}
	// PgBouncer does not pass start-up parameters on: the app's setting lives on the database.
	if err := execSQL(ctx, p.DSN("tributary"), "ALTER DATABASE tributary SET max_parallel_workers_per_gather = 0"); err != nil {
		return fmt.Errorf("topology: %w", err)
	}
	if err := t.replica().StartReplicaOf(ctx, p); err != nil {
		return fmt.Errorf("topology: replica: %w", err)
	}
	if !alive(t.bouncer().Dir + "/pgbouncer.pid") {
		if err := t.bouncer().Start(ctx); err != nil {
			return fmt.Errorf("topology: %w", err)
		}
	}
	// A start with no instance up runs the binary just built; a running site changes its
	// binary only by a roll.
	if _, err := os.Stat(t.bin); err != nil || !t.anyAppAlive() {
		if err := t.install(t.bin); err != nil {
			return err
		}
	}
	// Migrations once, before any instance starts (instances starting together would race).
	if out, err := exec.CommandContext(ctx, t.bin, "migrate", "--database-url", p.DSN("tributary")).CombinedOutput(); err != nil {
		return fmt.Errorf("topology: migrate: %w\n%s", err, out)
	}
	for i := 1; i <= t.instances; i++ {
		if alive(t.pidFile(fmt.Sprintf("app%d", i))) {
			continue
		}
		if err := t.startApp(ctx, i, t.bin, i == 1); err != nil {
			return err
		}
	}
	if !alive(t.pidFile("haproxy")) {
		if err := t.startHAProxy(ctx); err != nil {
			return err
		}
	}
	fmt.Fprintf(t.stdout, "topology up: http://localhost:%d (haproxy) -> %d instances -> PgBouncer :%d -> primary, replica for feed reads\nlogs and pid files: %s\n",
		t.port, t.instances, t.bouncer().Port, t.dir)
	return nil
}

// anyAppAlive says whether an instance of the topology is running.
func (t *topology) anyAppAlive() bool {
	for i := 1; i <= t.instances; i++ {
		if alive(t.pidFile(fmt.Sprintf("app%d", i))) {
			return true
		}
	}
	return false
}

// install copies the running binary to path, so a rebuild of the checkout does not change
// what the instances run until a roll.
func (t *topology) install(path string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	b, err := os.ReadFile(self)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// startApp starts instance i of bin and returns once it answers /healthz (the first one
// loads the demo dataset into an empty database).
func (t *topology) startApp(ctx context.Context, i int, bin string, demo bool) error {
	p, r, b := t.primary(), t.replica(), t.bouncer()
	args := []string{"serve",
		"--addr", fmt.Sprintf("127.0.0.1:%d", t.appPort(i)),
		"--metrics-addr", fmt.Sprintf("127.0.0.1:%d", t.port+10+i), "--pprof-addr", fmt.Sprintf("127.0.0.1:%d", t.port+30+i),
		"--database-url", b.DSN("tributary"),
		"--direct-database-url", p.DSN("tributary"),
		"--db-exec-mode", "cache_describe",
		"--replica-url", r.DSN("tributary"), "--replica-exec-mode", "cache_statement", // direct: prepared statements
		// haproxy connects from loopback: only it is believed about the client.
		"--trusted-proxies", "127.0.0.1/32"}
	if demo {
		args = append(args, "--demo")
	}
	name := fmt.Sprintf("app%d", i)
	if err := t.spawn(name, bin, args...); err != nil {
		return err
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/healthz", t.appPort(i))
	client := &http.Client{Timeout: 2 * time.Second}
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); {
		if res, err := client.Get(url); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				fmt.Fprintf(t.stdout, "%s up on :%d\n", name, t.appPort(i))
				return nil
			}
		}
		if !alive(t.pidFile(name)) {
			return fmt.Errorf("topology: %s exited (log: %s)", name, filepath.Join(t.dir, name+".log"))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("topology: %s does not answer (log: %s)", name, filepath.Join(t.dir, name+".log"))
}

// spawn starts a process in a session of its own (it outlives this command), its output
// appended to name.log, its pid in name.pid.
func (t *topology) spawn(name, bin string, args ...string) error {
	log, err := os.OpenFile(filepath.Join(t.dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Dir = t.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("topology: start %s: %w", name, err)
	}
	pid := cmd.Process.Pid
	cmd.Process.Release()
	return os.WriteFile(t.pidFile(name), []byte(strconv.Itoa(pid)+"\n"), 0o644)
}

// haproxyConfig balances over the instances, each checked at /healthz; it tells them the
// client's address and scheme (and drops whatever a client claimed for either); requests
// that found no connection are retried on another instance; with none up it answers 503
// with Retry-After; its admin socket takes an instance out of rotation for a roll.
func (t *topology) haproxyConfig() string {
	var servers strings.Builder
	for i := 1; i <= t.instances; i++ {
		fmt.Fprintf(&servers, "    server app%d 127.0.0.1:%d check inter 1s fall 2 rise 1\n", i, t.appPort(i))
	}
	// Each connection through it holds two descriptors (client and instance).
	maxconn := 4000
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		maxconn = int(min(lim.Cur, 200_000)-200) / 2
	}
	return fmt.Sprintf(`global
    maxconn %[4]d
    pidfile %[1]s/haproxy.pid
    stats socket %[1]s/haproxy.sock mode 600 level admin
    daemon

defaults
    mode http
    timeout connect 2s
    timeout client 1h
    timeout server 1h
    timeout http-request 10s
    # Idle client connections are kept as the instances keep theirs (serve's IdleTimeout):
    # under http-request's 10 s, a client's POST on a connection idle that long was reset.
    timeout http-keep-alive 2m
    retries 3
    retry-on conn-failure empty-response response-timeout
    option redispatch
    # With every instance out (the database is down: /healthz fails) haproxy answers
    # itself: as the instances do then, 503 asking to retry.
    http-error status 503 content-type "text/plain; charset=utf-8" string "Tributary is briefly unavailable. Please try again in a moment." hdr Retry-After 2

frontend site
    bind 127.0.0.1:%[2]d
    http-request del-header X-Forwarded-For
    http-request set-header X-Forwarded-Proto https if { ssl_fc }
    http-request set-header X-Forwarded-Proto http if !{ ssl_fc }
    option forwardfor
    default_backend app

backend app
    balance leastconn
    option httpchk GET /healthz
    http-check expect status 200
%[3]s`, t.dir, t.port, servers.String(), maxconn)
}

func (t *topology) startHAProxy(ctx context.Context) error {
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		if bin, err = exec.LookPath("/usr/sbin/haproxy"); err != nil {
			return errors.New("topology: haproxy is not installed (Debian: apt-get install haproxy; `make topology` installs it as root)")
		}
	}
	cfg := filepath.Join(t.dir, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(t.haproxyConfig()), 0o644); err != nil {
		return err
	}
	if out, err := exec.CommandContext(ctx, bin, "-f", cfg).CombinedOutput(); err != nil {
		return fmt.Errorf("topology: haproxy: %w\n%s", err, out)
	}
	return nil
}

// roll replaces the instances one at a time with the binary running this command: each is
// taken out of haproxy's rotation, drained (SIGTERM: serve finishes its requests and closes
// its live streams, whose pages reconnect to another instance), started anew and put back
// once it answers.
func (t *topology) roll(ctx context.Context) error {
	next := t.bin + ".next"
	if err := t.install(next); err != nil {
		return err
	}
	for i := 1; i <= t.instances; i++ {
		name := fmt.Sprintf("app%d", i)
		if err := t.admin(fmt.Sprintf("disable server app/%s", name)); err != nil {
			return err
		}
		if err := stopPid(t.pidFile(name), 30*time.Second); err != nil {
			return err
		}
		if err := t.startApp(ctx, i, next, false); err != nil {
			return err
		}
		if err := t.admin(fmt.Sprintf("enable server app/%s", name)); err != nil {
			return err
		}
	}
	fmt.Fprintln(t.stdout, "rolled every instance to the new binary")
	return os.Rename(next, t.bin)
}

// admin sends one command to haproxy's admin socket.
func (t *topology) admin(cmd string) error {
	c, err := net.Dial("unix", filepath.Join(t.dir, "haproxy.sock"))
	if err != nil {
		return fmt.Errorf("topology: haproxy admin socket: %w", err)
	}
	defer c.Close()
	if _, err := fmt.Fprintln(c, cmd); err != nil {
		return err
	}
	out, _ := io.ReadAll(bufio.NewReader(c))
	if s := strings.TrimSpace(string(out)); s != "" {
		return fmt.Errorf("topology: haproxy %q: %s", cmd, s)
	}
	return nil
}

// stop ends every part, front to back.
func (t *topology) stop(ctx context.Context) error {
	var errs []error
	errs = append(errs, stopPid(t.pidFile("haproxy"), 10*time.Second))
	for i := 1; i <= t.instances; i++ {
		errs = append(errs, stopPid(t.pidFile(fmt.Sprintf("app%d", i)), 30*time.Second))
	}
	errs = append(errs, t.bouncer().Stop(), t.replica().Stop(ctx), t.primary().Stop(ctx))
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fmt.Fprintln(t.stdout, "topology stopped")
	return nil
}

func (t *topology) status(ctx context.Context) error {
	parts := []string{"haproxy"}
	for i := 1; i <= t.instances; i++ {
		parts = append(parts, fmt.Sprintf("app%d", i))
	}
	for _, p := range parts {
		fmt.Fprintf(t.stdout, "%-8s running: %v\n", p, alive(t.pidFile(p)))
	}
	fmt.Fprintf(t.stdout, "%-8s running: %v\n", "pgbouncer", alive(t.bouncer().Dir+"/pgbouncer.pid"))
	return nil
}
