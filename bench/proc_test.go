package bench

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tributary/db/dbtest"
)

// runTime reads a single-threaded process's CPU to well under a tick, and agrees with the
// kernel's tick count of it (cpuTime).
func TestRunTimeOfASingleThreadedProcess(t *testing.T) {
	// A shell busy for some tens of milliseconds, then asleep while it is read.
	cmd := exec.Command("sh", "-c", `i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; echo busy; sleep 5`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil || !strings.HasPrefix(string(buf), "busy") {
		t.Fatalf("the shell said %q (%v)", buf, err)
	}
	pid := cmd.Process.Pid
	before := runTimes([]int{pid, 1 << 30}) // the second: no such process
	run, ticks := before[pid], cpuTime(pid)
	if len(before) != 1 || run <= 0 || run%(10*time.Millisecond) == 0 {
		t.Fatalf("run times %v: want the shell's alone, a count finer than ticks", before)
	}
	if d := run - ticks; d < -20*time.Millisecond || d > 20*time.Millisecond {
		t.Fatalf("run time %v, cpuTime %v: they count the same CPU", run, ticks)
	}
	// A process gone or begun between two readings counts for nothing.
	before[1<<30] = time.Hour
	after := runTimes([]int{pid})
	after[1<<30+1] = time.Hour
	if d := runTimeDelta(before, after); d < 0 || d > time.Second {
		t.Fatalf("run time between readings %v: want the shell's alone", d)
	}
}

// A phase's database CPU is the backends' over the phase: one that ends in it is not taken
// off for its whole life.
func TestCPUMeterOverABackendThatEnds(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.Pool(t)
	gone, stays := acquire(t, pool), acquire(t, pool)
	defer stays.Release()
	var pid int
	if err := gone.QueryRow(ctx, `SELECT pg_backend_pid() FROM (SELECT count(*) FROM generate_series(1, 3000000)) busy`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	m := &cpuMeter{ctx: ctx, pool: pool, app: os.Getpid(), self: os.Getpid(), used: make([]cpuUse, 1)}
	m.start(0)
	var ended bool
	if err := stays.QueryRow(ctx, `SELECT pg_terminate_backend($1, 5000) FROM (SELECT count(*) FROM generate_series(1, 300000)) busy`,
		pid).Scan(&ended); err != nil || !ended {
		t.Fatalf("ending the busy backend: %v, %v", ended, err)
	}
	gone.Conn().Close(ctx)
	gone.Release()
	m.stop(0)
	if pg := m.used[0].pg; pg <= 0 {
		t.Fatalf("the database's CPU over the phase: %v, want the backend that stayed's", pg)
	}
}

func acquire(t *testing.T, pool *pgxpool.Pool) *pgxpool.Conn {
	t.Helper()
	c, err := pool.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}
