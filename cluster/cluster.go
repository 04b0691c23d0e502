// Package cluster runs private PostgreSQL servers from the installed server binaries: the
// checkout's development cluster, the tests' and the bench's, and streaming replicas of them.
package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cluster is a private PostgreSQL cluster for one checkout: it listens only on a unix socket
// in its own directory, so clusters of several checkouts never collide.
type Cluster struct {
	Dir string // holds data/, sock/ and the server log
	// Stock runs the server with PostgreSQL's default settings (max_connections 100,
	// max_locks_per_transaction 64, durable commits), as a real server has them, rather
	// than the settings tuned for tests and the demo.
	Stock bool
}

const clusterPort = 5432

// DefaultDir names a private cluster directory for the checkout at root. It lives
// under the system temp dir because PostgreSQL's user must traverse it (homes are often 0700).
func DefaultDir(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = root
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(os.TempDir(), fmt.Sprintf("tributary-%d-%s", os.Getuid(), hex.EncodeToString(sum[:])[:10]))
}

// DSN returns the connection string of database name in the cluster.
func (c Cluster) DSN(name string) string {
	return fmt.Sprintf("host=%s port=%d user=postgres dbname=%s sslmode=disable", c.sockDir(), clusterPort, name)
}

func (c Cluster) dataDir() string { return filepath.Join(c.Dir, "data") }
func (c Cluster) sockDir() string { return filepath.Join(c.Dir, "sock") }
func (c Cluster) logFile() string { return filepath.Join(c.Dir, "postgres.log") }

// Start initializes the cluster if needed, starts it unless it runs already, and creates
// database name if missing. It is safe to call from several processes at once.
func (c Cluster) Start(ctx context.Context, name string, log io.Writer) error {
	bin, err := serverBinDir()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return fmt.Errorf("cluster: make dir: %w", err)
	}
	unlock, err := lockFile(c.Dir + ".lock")
	if err != nil {
		return err
	}
	defer unlock()

	if _, err := os.Stat(filepath.Join(c.dataDir(), "PG_VERSION")); err != nil {
		fmt.Fprintf(log, "initializing private PostgreSQL cluster in %s\n", c.Dir)
		os.RemoveAll(c.dataDir())
		if err := os.MkdirAll(c.sockDir(), 0o755); err != nil {
			return fmt.Errorf("cluster: make dir: %w", err)
		}
		if err := c.chownForServer(); err != nil {
			return err
		}
		if out, err := c.run(ctx, filepath.Join(bin, "initdb"), "-D", c.dataDir(), "-U", "postgres",
			"--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"); err != nil {
			return fmt.Errorf("cluster: initdb: %w\n%s", err, out)
		}
	}
	if !c.running() {
		if out, err := c.run(ctx, filepath.Join(bin, "pg_ctl"), "start", "-w", "-t", "60", "-D", c.dataDir(),
			"-l", c.logFile(), "-o", c.serverOptions(c.Stock)); err != nil {
			return fmt.Errorf("cluster: start (log: %s): %w\n%s", c.logFile(), err, out)
		}
		fmt.Fprintf(log, "started private PostgreSQL cluster (socket %s)\n", c.sockDir())
	}
	return c.createDatabase(ctx, name)
}

// StartReplicaOf makes the cluster a streaming replica of primary (pg_basebackup -R over its
// unix socket) unless it is one already, and starts it on its own socket.
func (c Cluster) StartReplicaOf(ctx context.Context, primary Cluster) error {
	bin, err := serverBinDir()
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(c.dataDir(), "PG_VERSION")); err != nil {
		if err := os.MkdirAll(c.sockDir(), 0o755); err != nil {
			return fmt.Errorf("cluster: replica dir: %w", err)
		}
		if err := c.chownForServer(); err != nil {
			return err
		}
		if out, err := c.run(ctx, filepath.Join(bin, "pg_basebackup"), "-D", c.dataDir(), "-R", "-X", "stream", "-c", "fast",
			"-h", primary.sockDir(), "-p", fmt.Sprint(clusterPort), "-U", "postgres"); err != nil {
			return fmt.Errorf("cluster: pg_basebackup: %w\n%s", err, out)
		}
	}
	if !c.running() {
		// A standby needs at least its primary's max_connections: it runs with its settings.
		if out, err := c.run(ctx, filepath.Join(bin, "pg_ctl"), "start", "-w", "-t", "60", "-D", c.dataDir(),
			"-l", c.logFile(), "-o", c.serverOptions(primary.Stock)); err != nil {
			return fmt.Errorf("cluster: start replica (log: %s): %w\n%s", c.logFile(), err, out)
		}
	}
	return nil
}

// serverOptions are the server's settings: on its own socket only, and unless stock, tuned
// for tests and the demo.
func (c Cluster) serverOptions(stock bool) string {
	opts := fmt.Sprintf("-k %s -c listen_addresses='' -p %d", c.sockDir(), clusterPort)
	if !stock {
		opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c shared_buffers=512MB"
	}
	return opts
}

// Stop stops the cluster if it runs.
func (c Cluster) Stop(ctx context.Context) error {
	bin, err := serverBinDir()
	if err != nil {
		return err
	}
	if !c.running() {
		return nil
	}
	if out, err := c.run(ctx, filepath.Join(bin, "pg_ctl"), "stop", "-w", "-m", "fast", "-D", c.dataDir()); err != nil {
		return fmt.Errorf("cluster: stop: %w\n%s", err, out)
	}
	return nil
}

// running reports whether the cluster's server runs: whether it accepts a connection on its
// socket. pg_ctl status trusts postmaster.pid's process id, and a server killed without its
// cleanup (a crash, a machine stopped) leaves that file and the socket's lock file behind;
// once another process of the server's user has that id, the cluster looked alive to
// pg_ctl and PostgreSQL refused to start beside either file. When nothing answers on the
// socket both are stale, and go.
func (c Cluster) running() bool {
	sock := filepath.Join(c.sockDir(), fmt.Sprintf(".s.PGSQL.%d", clusterPort))
	if conn, err := net.DialTimeout("unix", sock, 5*time.Second); err == nil {
		conn.Close()
		return true
	}
	for _, f := range []string{filepath.Join(c.dataDir(), "postmaster.pid"), sock + ".lock", sock} {
		os.Remove(f)
	}
	return false
}

func (c Cluster) createDatabase(ctx context.Context, name string) error {
	conn, err := connectRetry(ctx, c.DSN("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("cluster: check database: %w", err)
	}
	if !exists {
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
			return fmt.Errorf("cluster: create database: %w", err)
		}
	}
	return nil
}

// connectRetry rides out the moment between "server started" and "accepting connections".
func connectRetry(ctx context.Context, dsn string) (*pgx.Conn, error) {
	var err error
	for range 50 {
		var conn *pgx.Conn
		if conn, err = pgx.Connect(ctx, dsn); err == nil {
			return conn, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil, fmt.Errorf("cluster: connect: %w", err)
}

// PostgreSQL refuses to run as root: as root, the server runs as the postgres user.
func (c Cluster) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, name, args...)
	}
	cmd.Dir = c.Dir
	// The server must outlive this process (make stop ends it), so keep it out of our
	// process group: Ctrl-C in a terminal must not kill it mid-write.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd.CombinedOutput()
}

func (c Cluster) chownForServer() error { return c.chownDir(c.Dir, c.sockDir()) }

// chownDir gives paths to the postgres user when running as root (the server, PgBouncer
// and pg_basebackup run as that user then).
func (c Cluster) chownDir(paths ...string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("cluster: running as root needs the postgres system user (apt-get install postgresql): %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	for _, p := range paths {
		if err := os.Chown(p, uid, gid); err != nil {
			return fmt.Errorf("cluster: chown %s: %w", p, err)
		}
	}
	return nil
}

// Tool finds one of PostgreSQL's programs (pg_dump, pg_restore) of the server's version.
func Tool(name string) (string, error) {
	if dir, err := serverBinDir(); err == nil {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("cluster: %s not found (Debian: apt-get install postgresql-client)", name)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// serverBinDir finds PostgreSQL's server binaries (initdb, pg_ctl).
func serverBinDir() (string, error) {
	if dir := os.Getenv("PG_BINDIR"); dir != "" {
		return dir, nil
	}
	if dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin"); len(dirs) > 0 {
		sort.Slice(dirs, func(i, j int) bool { return pgMajor(dirs[i]) > pgMajor(dirs[j]) })
		for _, d := range dirs {
			if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
				return d, nil
			}
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("cluster: PostgreSQL server binaries (initdb, pg_ctl) not found: " +
		"install them (Debian: apt-get install postgresql) or set DATABASE_URL to an existing database")
}

func pgMajor(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// lockFile takes an exclusive flock so concurrent processes (test packages, make run)
// initialize the cluster once.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cluster: lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("cluster: lock: %w", err)
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
