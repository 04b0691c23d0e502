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
