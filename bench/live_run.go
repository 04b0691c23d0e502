package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"tributary/feed"
)

// liveRun is one live-notice measurement: its two instances, the readers whose home pages
// are open, where their streams come from, and the notices those streams told.
type liveRun struct {
	cfg       Config
	a, b      *server
	pool      *pgxpool.Pool
	rep       *LiveReport
	readers   []int64  // the author's followers first, then the bystanders
	followers int      // how many of readers follow the author
	tokens    []string // the author's session, then each reader's
	fronts    []string // where the streams connect: the instances, or haproxy in front of them
	from      []*http.Transport
	poster    *client // the author's, through the first instance

	mu      sync.Mutex
	notices [][]liveNoticeAt // each stream's "N new" notices, as they arrived
	told    []int            // each stream's most shares told (the largest count of its notices)
	arrival chan struct{}    // a notice arrived since the last receive (buffered 1)
}

// liveNoticeAt is a notice a stream told, and when it arrived.
type liveNoticeAt struct {
	at    time.Time
	count string
}

// reader is the client of readers[i]: from its stream's address, so to the same instance.
func (r *liveRun) reader(i int) *client {
	c := newClient(r.fronts[i%len(r.fronts)], r.from[i%len(r.from)])
	c.setSession(r.tokens[i+1])
	return c
}

// cpu is the instances' CPU time so far.
func (r *liveRun) cpu() time.Duration {
	return cpuTime(r.a.cmd.Process.Pid) + cpuTime(r.b.cmd.Process.Pid)
}

// noticesTold is how many notices the instances' streams have told so far: asked for, and
// (counted) told from their last counts.
func (r *liveRun) noticesTold() (told, counted float64) {
	counted = metric(r.a, "tributary_live_counted_total") + metric(r.b, "tributary_live_counted_total")
	return metric(r.a, "tributary_live_asks_total") + metric(r.b, "tributary_live_asks_total") + counted, counted
}

// loadPages loads every reader's home page first, as a browser does: what the pages cost the
// server (their readers' followed sets cached among it) is there with or without a stream;
// the memory measured is what the streams add.
func (r *liveRun) loadPages(ctx context.Context) error {
	fmt.Fprintf(r.cfg.Log, "bench: live notices: loading %d home pages\n", len(r.readers))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for i := range r.readers {
		c := r.reader(i)
		g.Go(func() error {
			_, _, err := c.get(gctx, "/")
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("bench: live notices: home pages: %w", err)
	}
	return nil
}

// share shares a new link as the author through the first instance and returns how long its
// answer took (ms); streams says, for the log, whether streams are open.
func (r *liveRun) share(ctx context.Context, streams string, s int) (float64, error) {
	form := url.Values{"url": {fmt.Sprintf("https://live-bench.example.com/%d/%d", time.Now().UnixNano(), s)}, "title": {"A live notice"}}
	req, err := http.NewRequestWithContext(ctx, "POST", r.a.URL+"/share", strings.NewReader(form.Encode()))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	cpuA, cpuB := cpuTime(r.a.cmd.Process.Pid), cpuTime(r.b.cmd.Process.Pid)
	start := time.Now()
	res, err := r.poster.http.Do(req)
	if err != nil {
		return 0, fmt.Errorf("bench: live notices: share: %w", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		return 0, fmt.Errorf("bench: live notices: share: status %d", res.StatusCode)
	}
	ack := ms(time.Since(start))
	cpuA, cpuB = cpuTime(r.a.cmd.Process.Pid)-cpuA, cpuTime(r.b.cmd.Process.Pid)-cpuB
	fmt.Fprintf(r.cfg.Log, "bench: live notices: share %d, streams %s, acknowledged in %.1f ms (%s; CPU of the instances meanwhile: %s and %s)\n",
		s, streams, ack, res.Header.Get("Server-Timing"), cpuA, cpuB)
	return ack, nil
}

// sharesAlone times the author's shares with no stream open (what the fanout after commit
// costs the writer is the difference with the timed shares), with their CPU, and returns the
// instances' resident memory without streams.
//
// A share's CPU is that of the instances and the database's backends from the share to a
// second after its answer, less what as long a time cost with no share just before it (the
// idle's work: tickers, pollers), measured in turns. The backends' is counted to the
// nanosecond: a share's ~1 ms is a tenth of cpuTime's tick, and was read as 0 or 10 ms.
func (r *liveRun) sharesAlone(ctx context.Context) (rssBefore int64, err error) {
	rssBefore = rss(r.a) + rss(r.b)
	var alone []float64
	var aloneApp, alonePg time.Duration
	window := func(pids []int, during func() error) (app, pg time.Duration, secs float64, err error) {
		app0, pg0 := r.cpu(), runTimes(pids)
		start := time.Now()
		err = during()
		app1, pg1 := r.cpu(), runTimes(pids)
		return app1 - app0, runTimeDelta(pg0, pg1), time.Since(start).Seconds(), err
	}
	for s := 1; s <= liveNoticeWarmShares+liveNoticeShares; s++ {
		pids := backendPIDs(ctx, r.pool)
		var idleApp, idlePg time.Duration
		var idleSecs float64
		if s > liveNoticeWarmShares {
			idleApp, idlePg, idleSecs, _ = window(pids, func() error { time.Sleep(time.Second); return nil })
		}
		var ack float64
		app, pg, secs, err := window(pids, func() (err error) {
			ack, err = r.share(ctx, "none", s)
			time.Sleep(time.Second)
			return err
		})
		if err != nil {
			return 0, err
		}
		if s > liveNoticeWarmShares {
			alone = append(alone, ack)
			aloneApp += app - time.Duration(float64(idleApp)*secs/idleSecs)
			alonePg += pg - time.Duration(float64(idlePg)*secs/idleSecs)
		}
		// The resident memory without streams, taken as it is with them: the least of the
		// samples, here one a share (the shares' own growth is not the streams').
		rssBefore = min(rssBefore, rss(r.a)+rss(r.b))
	}
	slices.Sort(alone)
	r.rep.ShareAloneP50ms = round3(quantile(alone, 0.50))
	r.rep.ShareAppCPUms = round3(max(0, ms(aloneApp)) / liveNoticeShares)
	r.rep.SharePgCPUms = round3(max(0, ms(alonePg)) / liveNoticeShares)
	return rssBefore, nil
}

// openStreams opens each reader's stream, its notices counting from now, and returns once
// every stream is open: closeStreams closes them, and closed is done when they all are.
func (r *liveRun) openStreams(ctx context.Context) (closeStreams func(), closed *sync.WaitGroup, err error) {
	src := "/feed/new?fencepost=" + url.QueryEscape(feed.FormatFencepost(time.Now()))
	sctx, closeStreams := context.WithCancel(ctx)
	r.notices = make([][]liveNoticeAt, len(r.readers))
	r.told = make([]int, len(r.readers))
	r.arrival = make(chan struct{}, 1)
	var opened sync.WaitGroup
	closed = &sync.WaitGroup{}
	fmt.Fprintf(r.cfg.Log, "bench: live notices: opening %d streams on 2 instances\n", len(r.readers))
	for i := range r.readers {
		err := r.reader(i).openLive(sctx, src, &opened, closed, func(int) {}, func(event, data string) {
			if m := livePillRe.FindStringSubmatch(data); event == "pill" && m != nil {
				at := time.Now() // before the lock, which the waiter's scan may hold
				r.mu.Lock()
				r.notices[i] = append(r.notices[i], liveNoticeAt{at: at, count: m[1]})
				r.told[i] = max(r.told[i], told(m[1]))
				r.mu.Unlock()
				select {
				case r.arrival <- struct{}{}:
				default:
				}
			}
		})
		if err != nil {
			opened.Wait()
			return closeStreams, closed, err
		}
	}
	opened.Wait()
	return closeStreams, closed, nil
}

// measureOpen takes the memory the open streams hold, once their first asks are done (each
// stream asks its notice at once) and their garbage collected (the least of a few samples),
// and the instances' goroutines.
func (r *liveRun) measureOpen(rssBefore, heldBefore int64) {
	for last, deadline := -1.0, time.Now().Add(time.Minute); time.Now().Before(deadline); {
		n, _ := r.noticesTold()
		if n >= float64(len(r.readers)) && n == last {
			break
		}
		last = n
		time.Sleep(time.Second)
	}
	time.Sleep(2 * time.Second)
	rssOpen := rss(r.a) + rss(r.b)
	for range 4 {
		time.Sleep(time.Second)
		rssOpen = min(rssOpen, rss(r.a)+rss(r.b))
	}
	n := float64(max(len(r.readers), 1))
	r.rep.GoroutinesOpen = goroutines(r.a) + goroutines(r.b)
	r.rep.KiBPerStream = round3(float64(rssOpen-rssBefore) / 1024 / n)
	if heldOpen := heldMemory(r.a) + heldMemory(r.b); heldBefore > 0 && heldOpen > 0 {
		r.rep.HeldKiBPerStream = round3(float64(heldOpen-heldBefore) / 1024 / n)
	}
}

// arrived is the index in stream i's notices of the first that counts share s (-1: none).
// The caller holds r.mu.
func (r *liveRun) arrived(i, s int) int {
	return slices.IndexFunc(r.notices[i], func(n liveNoticeAt) bool { return counts(n.count, s) })
}

// awaitNotices returns once every follower's stream told share s's notice, or at deadline.
func (r *liveRun) awaitNotices(s int, deadline time.Time) {
	timeout := time.NewTimer(time.Until(deadline))
	defer timeout.Stop()
	for {
		n := 0
		r.mu.Lock()
		for _, t := range r.told[:r.followers] {
			if t >= s {
				n++
			}
		}
		r.mu.Unlock()
		if n == r.followers {
			return
		}
		select {
		case <-r.arrival:
		case <-timeout.C:
			return
		}
	}
}

// timedShares shares with every stream open and times each share's notice on every
// follower's stream; it returns the asks the streams made meanwhile and the instances' CPU.
func (r *liveRun) timedShares(ctx context.Context) (told float64, cpu time.Duration, err error) {
	var lat, acks []float64
	for s := 1; s <= liveNoticeWarmShares+liveNoticeShares; s++ {
		timed := s > liveNoticeWarmShares
		if s == liveNoticeWarmShares+1 {
			profileLive(r.cfg, r.a, r.b)
		}
		// The instances' counters are read before the clock starts: reading them scrapes
		// both instances' /metrics, which is not the share's time.
		cpuBefore := r.cpu()
		toldBefore, countedBefore := r.noticesTold()
		start := time.Now()
		ack, err := r.share(ctx, "open", s)
		if err != nil {
			return 0, 0, err
		}
		r.awaitNotices(s, time.Now().Add(10*time.Second))
		if !timed {
			time.Sleep(time.Second)
			continue
		}
		acks = append(acks, ack)
		cpu += r.cpu() - cpuBefore
		n, c := r.noticesTold()
		told += n - toldBefore
		r.rep.Counted += int(c - countedBefore)
		r.mu.Lock()
		for i := range r.followers {
			r.rep.Due++
			if j := r.arrived(i, s); j >= 0 {
				r.rep.Delivered++
				lat = append(lat, ms(r.notices[i][j].at.Sub(start)))
			}
		}
		r.mu.Unlock()
		time.Sleep(time.Second)
	}
	slices.Sort(lat)
	slices.Sort(acks)
	r.rep.P50ms, r.rep.P99ms = round3(quantile(lat, 0.50)), round3(quantile(lat, 0.99))
	if len(lat) > 0 {
		r.rep.MaxMs = round3(lat[len(lat)-1])
	}
	r.rep.ShareP50ms = round3(quantile(acks, 0.50))
	if told > 0 {
		r.rep.CPUusPerNotice = round3(float64(cpu.Microseconds()) / told)
	}
	r.mu.Lock()
	for _, ns := range r.notices[r.followers:] {
		r.rep.BystanderNotices += len(ns)
	}
	r.mu.Unlock()
	return told, cpu, nil
}

// measureClosed waits for the instances to let the closed streams go and counts what is
// left. Behind haproxy an instance hears of a closed page at its stream's next heartbeat (the
// write fails); direct, at once. The instances are given two minutes.
func (r *liveRun) measureClosed() {
	closed := time.Now()
	open := func() int {
		return int(metric(r.a, "tributary_live_streams_open") + metric(r.b, "tributary_live_streams_open"))
	}
	for time.Since(closed) < 2*time.Minute && open() > 0 {
		time.Sleep(time.Second)
	}
	r.rep.ClosedAfterS = round3(time.Since(closed).Seconds())
	time.Sleep(2 * time.Second)
	r.rep.GoroutinesAfter = goroutines(r.a) + goroutines(r.b)
	r.rep.OpenAfter = open()
}
