package bench

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A step is one measured request of a simulated client: it does its untimed preparation
// (resetting a fence, inserting a share), then the request, and returns how long the
// request alone took.
type step func(ctx context.Context) (latency, error)

// latency is one request's time as the client saw it (sending the request to reading the
// last byte) and as the server reported it in its Server-Timing header (its handler's work,
// waiting for PostgreSQL and for a core included). SQL baselines have no server in between:
// both are the query's round trip.
type latency struct{ client, server time.Duration }

// serverTiming parses the server's "app;dur=<ms>" Server-Timing value (0 when absent).
func serverTiming(v string) time.Duration {
	_, dur, ok := strings.Cut(v, "dur=")
	if !ok {
		return 0
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(dur), 64)
	if err != nil {
		return 0
	}
	return time.Duration(f * float64(time.Millisecond))
}

// scenario is one line of the results table.
type scenario struct {
	Name        string
	Group       string // what the line measures, for the table
	Class       string // follower class, or ""
	Kind        string // "http" (through the server) or "sql" (a baseline query on its own)
	Concurrency int
	Note        string
	note        func() string // when set, the note (known after setup)
	// Alternate names a scenario this one is measured in turns with when both run
	// (runAlternating): the two rows of a ratio.
	Alternate string
	// setup runs once before the warm-up (logins, fences, cursors), untimed.
	setup func(ctx context.Context) error
	// prep, when set, times the untimed preparation of each request (fence resets, shares).
	prep *prepTimer
	// teardown, when set, runs after the scenario (closing its connections).
	teardown func()
	// worker makes worker i's step; workers never share a viewer.
	worker func(i int) step
}

// loadLimits bound every scenario in time and in count.
type loadLimits struct {
	Warmup      time.Duration
	Duration    time.Duration
	MaxRequests int // measured requests at most, over all workers
}

// Result is one scenario's figures; BENCHMARKS.json holds one per scenario.
type Result struct {
	Name        string  `json:"name"`
	Group       string  `json:"group"`
	Class       string  `json:"class,omitempty"`
	Kind        string  `json:"kind"`
	Concurrency int     `json:"concurrency"`
	Requests    int     `json:"requests"`
	Errors      int     `json:"errors"`
	P50         float64 `json:"p50_ms"`
	P95         float64 `json:"p95_ms"`
	P99         float64 `json:"p99_ms"`
	// Server-side latency: the server's own Server-Timing figure of each request.
	ServerP50 float64 `json:"server_p50_ms"`
	ServerP95 float64 `json:"server_p95_ms"`
	ServerP99 float64 `json:"server_p99_ms"`
	Mean      float64 `json:"mean_ms"`
	Max       float64 `json:"max_ms"`
	RPS       float64 `json:"rps"`
	Seconds   float64 `json:"seconds"`
	// CPU time per measured request of the server process and of the PostgreSQL backends
	// serving the bench database (0 when not measurable); preparation steps are included.
	AppCPUms float64 `json:"app_cpu_ms_per_req,omitempty"`
	PgCPUms  float64 `json:"pg_cpu_ms_per_req,omitempty"`
	// DriverCPUms is the load driver's own CPU per request (it shares the machine).
	DriverCPUms float64 `json:"driver_cpu_ms_per_req,omitempty"`
	// Busy is the share of the machine's cores that the server, PostgreSQL and the driver
	// kept busy over the measured phase: near 1, latency is mostly waiting for a core.
	Busy float64 `json:"cpu_busy,omitempty"`
	// PrepMs is the mean untimed preparation per request (a fence reset, a new share): it
	// runs on the same machine while other workers' requests are timed.
	PrepMs float64 `json:"prep_ms_per_req,omitempty"`
	// Done of Due: what a row that drives the server's own work counts of it (the card rows:
	// links fetched of those imported, cards that reached a page of those due).
	Done int `json:"done,omitempty"`
	Due  int `json:"due,omitempty"`
	// ErrorSamples are the first few distinct errors, to say what went wrong.
	ErrorSamples []string `json:"error_samples,omitempty"`
	Note         string   `json:"note,omitempty"`
}

// runLoad runs sc's workers for the warm-up (discarded), then measures for lim.Duration or
// lim.MaxRequests requests, whichever comes first.
// measuring, when set, is called as the measured phase starts (after the warm-up).
func runLoad(ctx context.Context, sc scenario, lim loadLimits, measuring func()) Result {
	steps := warmedUp(ctx, sc, lim)
	if measuring != nil {
		measuring()
	}
	start := time.Now()
	lat, errs := drive(ctx, steps, start.Add(lim.Duration), lim.MaxRequests)
	return summarizeLoad(sc, lat, errs, time.Since(start))
}

// alternateRounds is how many turns each of two scenarios measured in turns takes.
const alternateRounds = 8

// runAlternating measures two scenarios in turns (alternateRounds each, of lim.Duration /
// alternateRounds), after a warm-up of each: a ratio of the two is then not that of two
// moments of a shared machine. measuring(i) and measured(i) are called around each turn of
// scenario i (0: a, 1: b).
func runAlternating(ctx context.Context, a, b scenario, lim loadLimits, measuring, measured func(i int)) (Result, Result) {
	sc := [2]scenario{a, b}
	var (
		steps   [2][]step
		lat     [2][]latency
		errs    [2][]error
		elapsed [2]time.Duration
	)
	for i := range sc {
		steps[i] = warmedUp(ctx, sc[i], lim)
	}
	turn, max := lim.Duration/alternateRounds, lim.MaxRequests/alternateRounds
	if lim.MaxRequests > 0 {
		max = cmp.Or(max, 1)
	}
	for range alternateRounds {
		for i := range sc {
			measuring(i)
			start := time.Now()
			l, e := drive(ctx, steps[i], start.Add(turn), max)
			elapsed[i] += time.Since(start)
			measured(i)
			lat[i], errs[i] = append(lat[i], l...), append(errs[i], e...)
		}
	}
	return summarizeLoad(a, lat[0], errs[0], elapsed[0]), summarizeLoad(b, lat[1], errs[1], elapsed[1])
}

// warmedUp makes sc's workers' steps and runs them for the warm-up (discarded).
func warmedUp(ctx context.Context, sc scenario, lim loadLimits) []step {
	steps := make([]step, sc.Concurrency)
	for i := range steps {
		steps[i] = sc.worker(i)
	}
	if lim.Warmup > 0 {
		drive(ctx, steps, time.Now().Add(lim.Warmup), lim.MaxRequests)
	}
	if sc.prep != nil {
		sc.prep.reset()
	}
	return steps
}

// summarizeLoad is sc's row from its measured requests over elapsed.
func summarizeLoad(sc scenario, lat []latency, errs []error, elapsed time.Duration) Result {
	res := Result{Name: sc.Name, Group: sc.Group, Class: sc.Class, Kind: sc.Kind, Concurrency: sc.Concurrency, Note: sc.Note}
	if sc.note != nil {
		res.Note = sc.note()
	}
	res.Seconds = elapsed.Seconds()
	res.Requests = len(lat)
	res.Errors = len(errs)
	seen := map[string]bool{}
	for _, e := range errs {
		if msg := e.Error(); !seen[msg] && len(res.ErrorSamples) < 5 {
			seen[msg] = true
			res.ErrorSamples = append(res.ErrorSamples, msg)
		}
	}
	if sc.prep != nil {
		res.PrepMs = sc.prep.mean()
	}
	client, server := make([]time.Duration, len(lat)), make([]time.Duration, len(lat))
	for i, l := range lat {
		client[i], server[i] = l.client, l.server
	}
	s := summarize(client)
	res.P50, res.P95, res.P99, res.Mean, res.Max = s.P50, s.P95, s.P99, s.Mean, s.Max
	ss := summarize(server)
	res.ServerP50, res.ServerP95, res.ServerP99 = ss.P50, ss.P95, ss.P99
	if elapsed > 0 {
		res.RPS = float64(len(lat)) / elapsed.Seconds()
	}
	return res
}

// drive runs the steps concurrently until deadline or max requests, and returns the
// latencies of the successful requests and the errors.
func drive(ctx context.Context, steps []step, deadline time.Time, max int) ([]latency, []error) {
	ctx, cancel := context.WithDeadline(ctx, deadline.Add(30*time.Second)) // a hung request cannot hang the run
	defer cancel()
	var (
		issued    atomic.Int64
		failed    atomic.Int64
		succeeded atomic.Int64
		mu        sync.Mutex
		lat       []latency
		errs      []error
		wg        sync.WaitGroup
	)
	for _, st := range steps {
		wg.Go(func() {
			var mine []latency
			var bad []error
			for ctx.Err() == nil && time.Now().Before(deadline) && (max <= 0 || issued.Add(1) <= int64(max)) {
				d, err := st(ctx)
				if err != nil {
					if ctx.Err() != nil {
						break
					}
					bad = append(bad, err)
					// A dead server or database fails every request at once: give up early
					// instead of spinning through the scenario.
					if n := failed.Add(1); n >= 1000 || (n >= 100 && succeeded.Load() == 0) {
						cancel()
						break
					}
					continue
				}
				succeeded.Add(1)
				mine = append(mine, d)
			}
			mu.Lock()
			lat = append(lat, mine...)
			errs = append(errs, bad...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return lat, errs
}

// prepTimer sums the time of untimed preparation steps.
type prepTimer struct {
	total, n atomic.Int64
}

// time runs f and adds its duration.
func (p *prepTimer) time(f func() error) error {
	start := time.Now()
	err := f()
	p.total.Add(int64(time.Since(start)))
	p.n.Add(1)
	return err
}

func (p *prepTimer) reset() { p.total.Store(0); p.n.Store(0) }

// mean is the mean preparation time in milliseconds.
func (p *prepTimer) mean() float64 {
	if n := p.n.Load(); n > 0 {
		return ms(time.Duration(p.total.Load() / n))
	}
	return 0
}

// stats are latency figures in milliseconds.
type stats struct {
	N                        int
	P50, P95, P99, Mean, Max float64
}

// summarize computes nearest-rank percentiles of the latencies.
func summarize(lat []time.Duration) stats {
	if len(lat) == 0 {
		return stats{}
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return stats{N: len(s), P50: ms(percentile(s, 50)), P95: ms(percentile(s, 95)), P99: ms(percentile(s, 99)),
		Mean: ms(sum / time.Duration(len(s))), Max: ms(s[len(s)-1])}
}

// percentile returns the nearest-rank p-th percentile of sorted: the smallest value that at
// least p % of the values are less than or equal to.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

func ms(d time.Duration) float64 { return math.Round(float64(d)/float64(time.Millisecond)*1000) / 1000 }

// timed runs f (a query, with no server in between) and returns how long it took.
func timed(f func() error) (latency, error) {
	start := time.Now()
	err := f()
	d := time.Since(start)
	return latency{client: d, server: d}, err
}
