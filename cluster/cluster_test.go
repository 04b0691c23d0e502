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
		t.Skip(err)
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
		time.Sleep(200 * time.Millisecond)
		if out, err := exec.Command("pgrep", "-P", strconv.Itoa(otherPid), "sleep").Output(); err == nil && len(strings.Fields(string(out))) > 0 {
			otherPid, _ = strconv.Atoi(strings.Fields(string(out))[0])
		}
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
		// Kill the server as a crash would (its children leave once it is gone).
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the killed server does not go")
			}
		}
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
		time.Sleep(time.Second) // the killed server's backends leave its shared memory
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
