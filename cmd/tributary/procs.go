package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// alive reports whether the process a pid file names runs.
func alive(pidFile string) bool {
	pid, err := readPid(pidFile)
	return err == nil && running(pid)
}

// running reports whether process pid runs: exists and is not a zombie (an ended process
// whose parent, when that is a container's first process, may never reap it).
func running(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z")
}

func readPid(pidFile string) (int, error) {
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(raw)))
}

// stopPid sends SIGTERM to the process a pid file names and waits for it to end, killing it
// after grace.
func stopPid(pidFile string, grace time.Duration) error {
	pid, err := readPid(pidFile)
	if err != nil {
		return nil // never started
	}
	defer os.Remove(pidFile)
	if syscall.Kill(pid, syscall.SIGTERM) != nil {
		return nil // gone already
	}
	for deadline := time.Now().Add(grace); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if !running(pid) {
			return nil
		}
	}
	syscall.Kill(pid, syscall.SIGKILL)
	return fmt.Errorf("topology: pid %d (%s) did not stop within %s: killed", pid, pidFile, grace)
}

// execSQL runs one statement on dsn.
func execSQL(ctx context.Context, dsn, sql string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}
