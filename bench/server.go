package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// server is the real tributary binary serving the bench database on a loopback port.
type server struct {
	URL      string
	Profiles string // its pprof listener's URL (/debug/pprof/)
	Metrics  string // its metrics listener's URL (/metrics)
	cmd      *exec.Cmd

	mu      sync.Mutex
	logTail []string // the last lines of its log, for error messages

	refreshed chan refreshLine
	done      chan struct{}

	stopOnce sync.Once
	stopErr  error
}

// refreshLine is the scheduler's log line of a snapshot refresh.
type refreshLine struct {
	Dur    time.Duration // the job's duration as logged
	Result string
	Err    string
}

var (
	servingRe  = regexp.MustCompile(`msg=serving url=(\S+)`)
	profilesRe = regexp.MustCompile(`msg=profiles url=(\S+)`)
	metricsRe  = regexp.MustCompile(`msg=metrics url=(\S+)`)
	refreshRe  = regexp.MustCompile(`msg="job (ran|failed)" job=snapshot-refresh dur=(\S+)(?: result="([^"]*)")?(?: err="?(.*?)"?$)?`)
)

// startServer runs `tributary serve` on the database and waits until it listens.
// extra are more flags of serve.
func startServer(ctx context.Context, bin, dsn string, extra ...string) (*server, error) {
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--database-url", dsn, "--poll-seconds", "-1", "--rate-limit-scale", "10000",
		"--log-level", "info", "--snapshot-rebuild", // the startup refresh is the full rebuild the report measures
		"--pprof-addr", "127.0.0.1:0", // to collect its garbage before its memory is measured (liveMemory)
		"--metrics-addr", "127.0.0.1:0", "--server-timing", // its own figures: metrics and server-side latency
		"--fetch", "mapped", // link cards are dispatched and their jobs run, but nothing leaves the machine
		"--trusted-proxies", "127.0.0.1/32"}, // haproxy in front (the pooled rows, the live streams) says whose requests it passes
		extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GOTRACEBACK=all")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: start server: %w", err)
	}
	s := &server{cmd: cmd, refreshed: make(chan refreshLine, 4), done: make(chan struct{})}
	urlc := make(chan string, 1)
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.logTail = append(s.logTail, line)
			if len(s.logTail) > 40 {
				s.logTail = s.logTail[len(s.logTail)-40:]
			}
			s.mu.Unlock()
			if m := profilesRe.FindStringSubmatch(line); m != nil {
				s.mu.Lock()
				s.Profiles = m[1]
				s.mu.Unlock()
			}
			if m := metricsRe.FindStringSubmatch(line); m != nil {
				s.mu.Lock()
				s.Metrics = m[1]
				s.mu.Unlock()
			}
			if m := servingRe.FindStringSubmatch(line); m != nil {
				select {
				case urlc <- m[1]:
				default:
				}
			}
			if m := refreshRe.FindStringSubmatch(line); m != nil {
				d, _ := time.ParseDuration(m[2])
				r := refreshLine{Dur: d, Result: m[3]}
				if m[1] == "failed" {
					r.Err = m[4]
					if r.Err == "" {
						r.Err = line
					}
				}
				select {
				case s.refreshed <- r:
				default:
				}
			}
		}
	}()
	select {
	case u := <-urlc:
		if err := loopbackOnly(u); err != nil {
			s.stop()
			return nil, err
		}
		s.URL = u
		return s, nil
	case <-s.done:
		cmd.Wait()
		return nil, fmt.Errorf("bench: the server exited before serving; its log:\n%s", s.tail())
	case <-time.After(2 * time.Minute):
		s.stop()
		return nil, fmt.Errorf("bench: the server did not start within 2 minutes; its log:\n%s", s.tail())
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	}
}

// loopbackOnly refuses to drive anything but a loopback address.
func loopbackOnly(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("bench: server URL %q: %w", raw, err)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); (ip == nil || !ip.IsLoopback()) && host != "localhost" {
		return fmt.Errorf("bench: the server listens on %s, not on loopback; refusing to drive it", host)
	}
	return nil
}

// waitRefresh waits for the startup snapshot refresh the scheduler runs.
func (s *server) waitRefresh(ctx context.Context, timeout time.Duration) (refreshLine, error) {
	select {
	case r := <-s.refreshed:
		if r.Err != "" {
			return r, fmt.Errorf("bench: the snapshot refresh failed: %s", r.Err)
		}
		return r, nil
	case <-s.done:
		return refreshLine{}, fmt.Errorf("bench: the server exited; its log:\n%s", s.tail())
	case <-time.After(timeout):
		return refreshLine{}, fmt.Errorf("bench: no snapshot refresh within %s; the server's log:\n%s", timeout, s.tail())
	case <-ctx.Done():
		return refreshLine{}, ctx.Err()
	}
}

// exited reports whether the server process has ended (its log closed).
func (s *server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *server) tail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.logTail, "\n")
}

// peakRSS is the server's peak resident set size (VmHWM), in bytes.
func (s *server) peakRSS() (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, fmt.Errorf("bench: peak RSS: %w", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest) // "123456 kB"
			if len(f) == 2 && f[1] == "kB" {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024, err
			}
		}
	}
	return 0, fmt.Errorf("bench: peak RSS: no VmHWM in /proc/%d/status", s.cmd.Process.Pid)
}

// stop asks the server to shut down gracefully, and kills it if it does not; calling it
// again returns the first call's result.
func (s *server) stop() error {
	s.stopOnce.Do(func() {
		s.cmd.Process.Signal(os.Interrupt)
		waited := make(chan error, 1)
		go func() { waited <- s.cmd.Wait() }()
		select {
		case s.stopErr = <-waited:
		case <-time.After(20 * time.Second):
			s.cmd.Process.Kill()
			s.stopErr = <-waited
		}
	})
	return s.stopErr
}

// cpuTime is the user+system CPU time a process has used; 0 when it cannot be read.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name may hold spaces: the fields start after its closing parenthesis.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	// Fields 14 and 15 of stat (utime, stime) are 11 and 12 after the name; clock ticks are 100 Hz on Linux.
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}
