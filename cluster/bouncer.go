package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Bouncer is a PgBouncer in transaction mode in front of a PostgreSQL server, as a
// production site runs one: every database of the server, any user its auth file names,
// trusted on loopback. It runs from Debian's pgbouncer package.
type Bouncer struct {
	Dir string // holds the config, auth file, pid file and log
	// Port is the loopback TCP port it listens on.
	Port int
	// ServerHost and ServerPort are the PostgreSQL server's (a socket directory or a host).
	ServerHost string
	ServerPort int
	// PoolSize is how many server connections it keeps per database and user (0: 20).
	PoolSize int
	// RoundRobin hands each transaction to the server connections in turn rather than to
	// the last one used, so that state a client left on a connection (a session lock, a
	// SET, a prepared statement) is not found by its next transaction: tests see reliance
	// on it at once.
	RoundRobin bool
}

// BouncerBinary finds pgbouncer, or says how to install it.
func BouncerBinary() (string, error) {
	for _, p := range []string{"pgbouncer", "/usr/sbin/pgbouncer"} {
		if path, err := exec.LookPath(p); err == nil {
			return path, nil
		}
	}
	return "", errors.New("cluster: pgbouncer is not installed (Debian: apt-get install pgbouncer; `make deps` installs it as root)")
}

// DSN is the connection string of database name through the bouncer.
func (b Bouncer) DSN(name string) string {
	return fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=%s sslmode=disable", b.Port, name)
}

func (b Bouncer) pidFile() string { return filepath.Join(b.Dir, "pgbouncer.pid") }

// LogFile is where the bouncer writes its log.
func (b Bouncer) LogFile() string { return filepath.Join(b.Dir, "pgbouncer.log") }

// config is pgbouncer.ini. The app's connections ask for max_parallel_workers_per_gather at
// start-up, which PgBouncer does not pass on: it ignores the parameter, and the operator sets
// it on the database (docs/operations.md). After a failed login (the primary restarting)
// PgBouncer refuses every client for server_login_retry, 15 s by default: 1 s lets the site
// answer again within a second of the primary (a soak saw 15 s of 503s after a 2.7 s restart).
func (b Bouncer) config() string {
	pool := b.PoolSize
	if pool == 0 {
		pool = 20
	}
	rr := 0
	if b.RoundRobin {
		rr = 1
	}
	return fmt.Sprintf(`[databases]
* = host=%s port=%d

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
admin_users = postgres
pool_mode = transaction
default_pool_size = %d
max_client_conn = 20000
server_round_robin = %d
server_login_retry = 1
ignore_startup_parameters = extra_float_digits,max_parallel_workers_per_gather
logfile = %s
pidfile = %s
`, b.ServerHost, b.ServerPort, b.Port, filepath.Join(b.Dir, "users.txt"), pool, rr, b.LogFile(), b.pidFile())
}

// Start writes the configuration and starts the bouncer (as the postgres user when root:
// PgBouncer refuses to run as root), returning once it accepts connections.
func (b Bouncer) Start(ctx context.Context) error {
	bin, err := BouncerBinary()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(b.Dir, 0o755); err != nil {
		return fmt.Errorf("cluster: bouncer dir: %w", err)
	}
	ini := filepath.Join(b.Dir, "pgbouncer.ini")
	if err := os.WriteFile(ini, []byte(b.config()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(b.Dir, "users.txt"), []byte(`"postgres" ""`+"\n"), 0o644); err != nil {
		return err
	}
	if err := (Cluster{Dir: b.Dir}).chownDir(b.Dir); err != nil {
		return err
	}
	if out, err := (Cluster{Dir: b.Dir}).run(ctx, bin, "-d", ini); err != nil {
		return fmt.Errorf("cluster: start pgbouncer (log: %s): %w\n%s", b.LogFile(), err, out)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(b.Port))
	for range 100 {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("cluster: pgbouncer does not answer on %s (log: %s)", addr, b.LogFile())
}

// Stop ends the bouncer (an immediate shutdown) if it runs, and waits for it to go.
func (b Bouncer) Stop() error {
	raw, err := os.ReadFile(b.pidFile())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		return fmt.Errorf("cluster: bouncer pid file: %w", err)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		os.Remove(b.pidFile())
		return nil // gone already
	}
	for range 100 {
		if syscall.Kill(pid, 0) != nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("cluster: pgbouncer (pid %d) did not stop", pid)
}

// FreePort asks the kernel for a loopback TCP port nobody listens on now.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
