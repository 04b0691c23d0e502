package bench

import (
	"os/exec"
	"strings"
	"testing"
	"time"
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
	run, ticks := runTime(pid), cpuTime(pid)
	if run <= 0 || run%(10*time.Millisecond) == 0 {
		t.Fatalf("runTime %v: not a count finer than ticks", run)
	}
	if d := run - ticks; d < -20*time.Millisecond || d > 20*time.Millisecond {
		t.Fatalf("runTime %v, cpuTime %v: they count the same CPU", run, ticks)
	}
}
