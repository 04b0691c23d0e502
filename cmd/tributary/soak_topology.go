package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"syscall"
	"time"

	"tributary/bench"
)

// soakTopology starts whatever of the topology in dir does not run yet and describes it to
// the soak, with its faults: one instance killed (SIGKILL) and started again, the primary
// restarted, the replica's replay paused (it lags) and resumed.
func soakTopology(ctx context.Context, e *env, dir string, port int) (*bench.SoakSite, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	t := &topology{dir: abs, port: port, instances: 3, bin: filepath.Join(abs, "bin", "tributary"), stdout: e.stderr}
	if err := t.start(ctx); err != nil {
		return nil, err
	}
	site := &bench.SoakSite{URL: fmt.Sprintf("http://127.0.0.1:%d", t.port), DSN: t.primary().DSN("tributary")}
	for i := 1; i <= t.instances; i++ {
		name := fmt.Sprintf("app%d", i)
		site.Instances = append(site.Instances, bench.SoakSiteInstance{Name: name,
			Metrics: fmt.Sprintf("http://127.0.0.1:%d/metrics", t.port+10+i),
			Pid:     func() int { pid, _ := readPid(t.pidFile(name)); return pid }})
	}
	site.Faults = []bench.SoakFault{
		{Name: "SIGKILL app2, start it again", Do: t.killApp(2)},
		{Name: "restart the primary", Do: t.restartPrimary},
		{Name: "pause the replica's replay 30 s, resume", Do: t.pauseReplica(30 * time.Second)},
	}
	return site, nil
}

// killApp kills instance i with SIGKILL (no draining: its requests in flight are cut) and
// starts it again once haproxy has had time to notice.
func (t *topology) killApp(i int) func(context.Context) error {
	return func(ctx context.Context) error {
		name := fmt.Sprintf("app%d", i)
		pid, err := readPid(t.pidFile(name))
		if err != nil {
			return err
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			return fmt.Errorf("kill %s: %w", name, err)
		}
		for running(pid) {
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(3 * time.Second) // down a while, as a crashed machine is
		return t.startApp(ctx, i, t.bin, false)
	}
}

// restartPrimary stops the primary (fast shutdown: its sessions are cut), leaves it down a
// while and starts it again.
func (t *topology) restartPrimary(ctx context.Context) error {
	p := t.primary()
	if err := p.Stop(ctx); err != nil {
		return err
	}
	time.Sleep(2 * time.Second)
	return p.Start(ctx, "tributary", io.Discard)
}

// pauseReplica pauses the replica's WAL replay for d, so it falls behind as writes go on,
// then resumes it.
func (t *topology) pauseReplica(d time.Duration) func(context.Context) error {
	return func(ctx context.Context) error {
		dsn := t.replica().DSN("tributary")
		err := execSQL(ctx, dsn, "SELECT pg_wal_replay_pause()")
		if err != nil {
			return fmt.Errorf("pause the replica: %w", err)
		}
		time.Sleep(d)
		// The WAL held back replays at once, and its conflicts may cancel the resuming
		// statement after it took effect: resuming again is harmless.
		for range 5 {
			if err = execSQL(ctx, dsn, "SELECT pg_wal_replay_resume()"); err == nil {
				return nil
			}
			time.Sleep(time.Second)
		}
		return fmt.Errorf("resume the replica: %w", err)
	}
}
