package cluster

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A server killed without its cleanup leaves postmaster.pid behind; when another process
// has since taken its id, pg_ctl calls the cluster running. Start must see through that and
// start the server again.
func TestStartRecoversFromAStalePidFile(t *testing.T) {
	if _, err := serverBinDir(); err != nil {
		t.Skipf("no PostgreSQL server binaries to run a cluster with: %v", err)
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "tributary-cluster-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c := Cluster{Dir: filepath.Join(dir, "c")}
	if err := c.Start(ctx, "probe", io.Discard); err != nil {
		t.Fatal(err)
	}
	// Its pid file and its socket's lock file name a live process of the server's user now
	// (pg_ctl cannot signal another user's, and calls those not running).
	other := exec.Command("sleep", "120")
	if os.Getuid() == 0 {
		other = exec.Command("runuser", "-u", "postgres", "--", "sleep", "120")
	}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	otherPid := other.Process.Pid
	if os.Getuid() == 0 { // runuser's child is the sleep
		eventually(t, "runuser starts sleep", func() bool {
			kids := children(otherPid)
			if len(kids) > 0 {
				otherPid = kids[0]
			}
			return len(kids) > 0
		})
	}
	pidFile := filepath.Join(c.dataDir(), "postmaster.pid")
	lockFile := filepath.Join(c.sockDir(), ".s.PGSQL.5432.lock")
	// Both files are left (a crash), then only the socket's (a start that cleaned the pid
	// file up and still could not start).
	for _, leftPidFile := range []bool{true, false} {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
		if err != nil {
			t.Fatal(err)
		}
		// Kill the server as a crash would: its children leave once it is gone, and with
		// them its shared memory.
		procs := append(children(pid), pid)
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the killed server and its children go", func() bool {
			for _, p := range procs {
				if syscall.Kill(p, 0) == nil {
					return false
				}
			}
			return true
		})
		for _, f := range []string{pidFile, lockFile} {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			stale := strings.Replace(string(b), strconv.Itoa(pid), strconv.Itoa(otherPid), 1)
			if err := os.WriteFile(f, []byte(stale), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if !leftPidFile {
			os.Remove(pidFile)
		}
		if err := c.Start(ctx, "probe", io.Discard); err != nil {
			t.Fatalf("Start beside stale files (pid file left: %v): %v", leftPidFile, err)
		}
		conn, err := connectRetry(ctx, c.DSN("probe"))
		if err != nil {
			t.Fatal(err)
		}
		conn.Close(ctx)
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	out, _ := exec.Command("pgrep", "-P", strconv.Itoa(pid)).Output()
	var kids []int
	for _, f := range strings.Fields(string(out)) {
		if k, err := strconv.Atoi(f); err == nil {
			kids = append(kids, k)
		}
	}
	return kids
}

// eventually waits until cond holds, for at most 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s, still not: %s", what)
		}
	}
}
