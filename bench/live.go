package bench

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"tributary/feed"
)

// LiveReport is the live-notice measurement (seed 002's tier 1): open home pages of an
// author's followers, their streams spread over two instances, and the time from a share
// through one instance to the "N new" notice on each of them.
type LiveReport struct {
	Streams   int `json:"streams"`
	Instances int `json:"instances"`
	// Fronts: the haproxy processes in front of the instances (0: the streams went direct).
	Fronts int `json:"fronts,omitempty"`
	// Followers: the streams of the author's followers (the notices are theirs); the other
	// streams' readers follow someone else, and their notices (BystanderNotices) are none.
	Followers        int `json:"followers,omitempty"`
	BystanderNotices int `json:"bystander_notices,omitempty"`
	// Readers the bench added to reach Streams, and the client addresses the streams used.
	AddedReaders int `json:"added_readers,omitempty"`
	Addresses    int `json:"addresses,omitempty"`
	Shares       int `json:"shares"`
	// Notices that arrived, of those due (every stream, every share).
	Delivered int `json:"delivered"`
	Due       int `json:"due"`
	// From sending the share to the notice on a stream, over every stream and share.
	P50ms float64 `json:"p50_ms"`
	P99ms float64 `json:"p99_ms"`
	MaxMs float64 `json:"max_ms"`
	// The share's own answer (the writer waits for nothing of the fanout), and the same
	// shares' before any stream opened, a second apart as well.
	ShareP50ms      float64 `json:"share_p50_ms"`
	ShareAloneP50ms float64 `json:"share_alone_p50_ms"`
	// Memory added per open stream (both instances, after the streams opened): live in the
	// heap and in goroutine stacks (heldMemory; what the target is judged on), and resident,
	// which moves with when the garbage was last collected (1.8-21 KiB over 2026-11-27's runs).
	HeldKiBPerStream float64 `json:"held_kib_per_stream"`
	KiBPerStream     float64 `json:"kib_per_stream"`
	// Goroutines of both instances before the streams opened, while open and after closing,
	// and the streams the instances still count open after closing.
	GoroutinesBefore, GoroutinesOpen, GoroutinesAfter int
	OpenAfter                                         int `json:"open_after"`
	// ClosedAfterS: how long after the pages closed the instances had let every stream go.
	ClosedAfterS float64 `json:"closed_after_s,omitempty"`
	// CPUusPerAsk is the instances' CPU over the timed shares and their notices, per stream
	// asked; ShareAppCPUms and SharePgCPUms are a share's CPU with no stream open, of the
	// instances and of the database's backends, from the share to a second after its answer
	// (the work it starts after commit included) less an idle second's.
	CPUusPerAsk   float64 `json:"cpu_us_per_ask,omitempty"`
	ShareAppCPUms float64 `json:"share_app_cpu_ms,omitempty"`
	SharePgCPUms  float64 `json:"share_pg_cpu_ms,omitempty"`
	WarmShares    int     `json:"warm_shares"`
}

// liveNoticeStreams is how many home pages are open during the measurement (the issue's
// target is stated for 1,000), liveNoticeShares how many shares are timed, after
// liveNoticeWarmShares untimed ones (as every scenario has its warm-up: the share's
// statements prepared on the pool's connections).
const (
	liveNoticeStreams    = 1000
	liveNoticeShares     = 10
	liveNoticeWarmShares = 3
	// liveAddresses is how many loopback addresses the streams come from (127.0.0.2 on):
	// 10,000 streams are 40 an address, within the instances' default cap per address.
	liveAddresses = 250
	// liveReaderHandle names the readers the bench adds when the most followed author has
	// fewer followers than streams asked for; they go again when the measurement ends.
	liveReaderHandle = "bench_live_reader_"
)

// liveNotice measures live notices: a second instance on the same database, the home pages
// of the most followed author's followers open on both (their streams asking /feed/new as
// each reader), then shares by that author through the first instance.
func liveNotice(ctx context.Context, cfg Config, a *server, dsn string, pool *pgxpool.Pool) (*LiveReport, error) {
	streams := cfg.LiveStreams
	if streams <= 0 {
		streams = liveNoticeStreams
	}
	nf := streams // the streams of the author's followers; the others' readers follow someone else
	if cfg.LiveFollowers > 0 && cfg.LiveFollowers < streams {
		nf = cfg.LiveFollowers
	}
	var author int64
	var followers, bystanders []int64
	err := dropLiveReaders(ctx, pool) // a run stopped before it dropped them
	if err == nil {
		err = pool.QueryRow(ctx, `SELECT followed_id FROM follows WHERE state = 'active'
			GROUP BY followed_id ORDER BY count(*) DESC LIMIT 1`).Scan(&author)
	}
	added := 0
	if err == nil {
		added, err = addLiveReaders(ctx, pool, author, nf)
		defer dropLiveReaders(context.WithoutCancel(ctx), pool)
	}
	if err == nil {
		err = pool.QueryRow(ctx, `SELECT coalesce(array_agg(follower_id), '{}') FROM (SELECT follower_id FROM follows
			WHERE followed_id = $1 AND state = 'active' ORDER BY follower_id LIMIT $2) f`, author, nf).Scan(&followers)
	}
	if err == nil && streams > nf {
		bystanders, err = addBystanders(ctx, pool, author, streams-nf)
		added += len(bystanders)
	}
	readers := append(slices.Clone(followers), bystanders...)
	if err != nil {
		return nil, fmt.Errorf("bench: live notices: %w", err)
	}
	tokens, err := mintSessions(ctx, pool, append([]int64{author}, readers...))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Log, "bench: live notices: starting a second instance\n")
	b, err := startServer(ctx, cfg.Binary, dsn)
	if err != nil {
		return nil, err
	}
	defer b.stop()
	if _, err := b.waitRefresh(ctx, 10*time.Minute); err != nil {
		return nil, err
	}
	servers := []*server{a, b}
	fronts, nfronts, stopFronts, err := liveFronts(ctx, servers, len(readers))
	if err != nil {
		return nil, err
	}
	defer stopFronts()
	rep := &LiveReport{Streams: len(readers), Followers: len(followers), Instances: len(servers), Fronts: nfronts, Shares: liveNoticeShares,
		WarmShares: liveNoticeWarmShares, AddedReaders: added, Addresses: min(liveAddresses, len(readers))}
	tr := &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: 4}
	defer tr.CloseIdleConnections()
	// Each stream comes from one of liveAddresses loopback addresses, as readers come from
	// many: the instances hold them to their caps per address and per user as configured.
	from := make([]*http.Transport, liveAddresses)
	for k := range from {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+k))}}
		from[k] = &http.Transport{Proxy: nil, DisableCompression: true, DialContext: d.DialContext}
		defer from[k].CloseIdleConnections()
	}
	// The pages themselves, loaded first as a browser does (what they cost the server, the
	// readers' followed sets cached among it, is the pages' and is there with or without a
	// stream); the memory measured is what the streams add.
	fmt.Fprintf(cfg.Log, "bench: live notices: loading %d home pages\n", len(readers))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for i := range readers {
		c := newClient(fronts[i%len(fronts)], from[i%len(from)]) // from the stream's address: the same instance
		c.setSession(tokens[i+1])
		g.Go(func() error {
			_, _, err := c.get(gctx, "/")
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("bench: live notices: home pages: %w", err)
	}
	rssBefore := rss(a) + rss(b)
	rep.GoroutinesBefore = goroutines(a) + goroutines(b)

	// The author's shares, answered through the first instance: the same shares are timed
	// first with no stream open, then with every stream open (what the fanout after commit
	// costs the writer is the difference).
	poster := newClient(a.URL, tr)
	poster.setSession(tokens[0])
	share := func(streams string, s int) (float64, error) {
		form := url.Values{"url": {fmt.Sprintf("https://live-bench.example.com/%d/%d", time.Now().UnixNano(), s)}, "title": {"A live notice"}}
		req, err := http.NewRequestWithContext(ctx, "POST", a.URL+"/share", strings.NewReader(form.Encode()))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		cpuA, cpuB := cpuTime(a.cmd.Process.Pid), cpuTime(b.cmd.Process.Pid)
		start := time.Now()
		res, err := poster.http.Do(req)
		if err != nil {
			return 0, fmt.Errorf("bench: live notices: share: %w", err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusSeeOther {
			return 0, fmt.Errorf("bench: live notices: share: status %d", res.StatusCode)
		}
		ack := ms(time.Since(start))
		cpuA, cpuB = cpuTime(a.cmd.Process.Pid)-cpuA, cpuTime(b.cmd.Process.Pid)-cpuB
		fmt.Fprintf(cfg.Log, "bench: live notices: share %d, streams %s, acknowledged in %.1f ms (%s; CPU of the instances meanwhile: %s and %s)\n",
			s, streams, ack, res.Header.Get("Server-Timing"), cpuA, cpuB)
		return ack, nil
	}
	var alone []float64
	// A share's CPU is that of the instances and the database's backends from the share to
	// a second after its answer, less what as long a time cost with no share just before it
	// (the idle's work: tickers, pollers), measured in turns. The backends' is counted to the
	// nanosecond: a share's ~1 ms is a tenth of cpuTime's tick, and was read as 0 or 10 ms.
	var aloneApp, alonePg time.Duration
	cpuNow := func(pids []int) (time.Duration, map[int]time.Duration) {
		return cpuTime(a.cmd.Process.Pid) + cpuTime(b.cmd.Process.Pid), runTimes(pids)
	}
	window := func(pids []int, during func() error) (app, pg time.Duration, secs float64, err error) {
		app0, pg0 := cpuNow(pids)
		start := time.Now()
		err = during()
		app1, pg1 := cpuNow(pids)
		return app1 - app0, runTimeDelta(pg0, pg1), time.Since(start).Seconds(), err
	}
	for s := 1; s <= liveNoticeWarmShares+liveNoticeShares; s++ {
		pids := backendPIDs(ctx, pool)
		var idleApp, idlePg time.Duration
		var idleSecs float64
		if s > liveNoticeWarmShares {
			idleApp, idlePg, idleSecs, _ = window(pids, func() error { time.Sleep(time.Second); return nil })
		}
		var ack float64
		app, pg, secs, err := window(pids, func() (err error) {
			ack, err = share("none", s)
			time.Sleep(time.Second)
			return err
		})
		if err != nil {
			return nil, err
		}
		if s > liveNoticeWarmShares {
			alone = append(alone, ack)
			aloneApp += app - time.Duration(float64(idleApp)*secs/idleSecs)
			alonePg += pg - time.Duration(float64(idlePg)*secs/idleSecs)
		}
		// The resident memory without streams, taken as it is with them below: the least
		// of the samples, here one a share (the shares' own growth is not the streams').
		rssBefore = min(rssBefore, rss(a)+rss(b))
	}
	slices.Sort(alone)
	rep.ShareAloneP50ms = round3(quantile(alone, 0.50))
	rep.ShareAppCPUms = round3(max(0, ms(aloneApp)) / liveNoticeShares)
	rep.SharePgCPUms = round3(max(0, ms(alonePg)) / liveNoticeShares)
	heldBefore := heldMemory(a) + heldMemory(b)

	// The streams: each follower's home page, its notice counting from now.
	src := "/feed/new?fencepost=" + url.QueryEscape(feed.FormatFencepost(time.Now()))
	sctx, closeStreams := context.WithCancel(ctx)
	defer closeStreams()
	type notice struct {
		at    time.Time
		count string
	}
	var mu sync.Mutex
	notices := make([][]notice, len(readers))
	var opened, done sync.WaitGroup
	fmt.Fprintf(cfg.Log, "bench: live notices: opening %d streams on %d instances\n", len(readers), len(servers))
	for i := range readers {
		c := newClient(fronts[i%len(fronts)], from[i%len(from)])
		c.setSession(tokens[i+1])
		req, err := http.NewRequestWithContext(sctx, "GET", c.base+"/live?src="+url.QueryEscape(src), nil)
		if err != nil {
			return nil, err
		}
		opened.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			c.http.Timeout = 0
			res, err := c.http.Do(req)
			opened.Done()
			if err != nil {
				return
			}
			defer res.Body.Close()
			readEvents(res.Body, func(event, data string) {
				if m := livePillRe.FindStringSubmatch(data); event == "pill" && m != nil {
					mu.Lock()
					notices[i] = append(notices[i], notice{at: time.Now(), count: m[1]})
					mu.Unlock()
				}
			})
		}()
	}
	opened.Wait()
	// The resident memory with the streams open, once their first asks are done (each stream
	// asks its notice at once) and their garbage collected: the least of a few samples.
	asks := func() float64 { return metric(a, "tributary_live_asks_total") + metric(b, "tributary_live_asks_total") }
	for last, deadline := -1.0, time.Now().Add(time.Minute); time.Now().Before(deadline); {
		n := asks()
		if n >= float64(len(readers)) && n == last {
			break
		}
		last = n
		time.Sleep(time.Second)
	}
	time.Sleep(2 * time.Second)
	rssOpen := rss(a) + rss(b)
	for range 4 {
		time.Sleep(time.Second)
		rssOpen = min(rssOpen, rss(a)+rss(b))
	}
	rep.GoroutinesOpen = goroutines(a) + goroutines(b)
	rep.KiBPerStream = round3(float64(rssOpen-rssBefore) / 1024 / float64(max(len(readers), 1)))
	if heldOpen := heldMemory(a) + heldMemory(b); heldBefore > 0 && heldOpen > 0 {
		rep.HeldKiBPerStream = round3(float64(heldOpen-heldBefore) / 1024 / float64(max(len(readers), 1)))
	}

	var lat, acks []float64
	var cpu time.Duration // the instances' CPU over the timed shares and their notices
	asked := 0.0
	for s := 1; s <= liveNoticeWarmShares+liveNoticeShares; s++ {
		timed := s > liveNoticeWarmShares
		if s == liveNoticeWarmShares+1 {
			profileLive(cfg, a, b)
		}
		// The instances' counters are read before the clock starts: reading asks scrapes
		// both instances' /metrics, which is not the share's time.
		cpuBefore, asksBefore := cpuTime(a.cmd.Process.Pid)+cpuTime(b.cmd.Process.Pid), asks()
		start := time.Now()
		ack, err := share("open", s)
		if err != nil {
			return nil, err
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			arrived := 0
			mu.Lock()
			for i := range notices[:len(followers)] {
				if j := slices.IndexFunc(notices[i], func(n notice) bool { return counts(n.count, s) }); j >= 0 {
					arrived++
				}
			}
			mu.Unlock()
			if arrived == len(followers) || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if !timed {
			time.Sleep(time.Second)
			continue
		}
		acks = append(acks, ack)
		cpu += cpuTime(a.cmd.Process.Pid) + cpuTime(b.cmd.Process.Pid) - cpuBefore
		asked += asks() - asksBefore
		mu.Lock()
		for i := range notices[:len(followers)] {
			rep.Due++
			if j := slices.IndexFunc(notices[i], func(n notice) bool { return counts(n.count, s) }); j >= 0 {
				rep.Delivered++
				lat = append(lat, ms(notices[i][j].at.Sub(start)))
			}
		}
		mu.Unlock()
		time.Sleep(time.Second)
	}
	slices.Sort(lat)
	slices.Sort(acks)
	rep.P50ms, rep.P99ms = round3(quantile(lat, 0.50)), round3(quantile(lat, 0.99))
	if len(lat) > 0 {
		rep.MaxMs = round3(lat[len(lat)-1])
	}
	rep.ShareP50ms = round3(quantile(acks, 0.50))
	if asked > 0 {
		rep.CPUusPerAsk = round3(float64(cpu.Microseconds()) / asked)
	}
	mu.Lock()
	for _, ns := range notices[len(followers):] {
		rep.BystanderNotices += len(ns)
	}
	mu.Unlock()

	closeStreams()
	done.Wait()
	// Behind haproxy an instance hears of a closed page at its stream's next heartbeat (the
	// write fails); direct, at once. The instances are given two minutes.
	closed := time.Now()
	open := func() int {
		return int(metric(a, "tributary_live_streams_open") + metric(b, "tributary_live_streams_open"))
	}
	for time.Since(closed) < 2*time.Minute && open() > 0 {
		time.Sleep(time.Second)
	}
	rep.ClosedAfterS = round3(time.Since(closed).Seconds())
	time.Sleep(2 * time.Second)
	rep.GoroutinesAfter = goroutines(a) + goroutines(b)
	rep.OpenAfter = open()
	fmt.Fprintf(cfg.Log, "bench: live notices: %d of %d delivered, p50 %.1f ms, p99 %.1f ms; %.1f KiB per stream held (%.1f KiB resident); goroutines %d -> %d -> %d; %.0f asks, %.0f µs of the instances' CPU each\n",
		rep.Delivered, rep.Due, rep.P50ms, rep.P99ms, rep.HeldKiBPerStream, rep.KiBPerStream, rep.GoroutinesBefore, rep.GoroutinesOpen, rep.GoroutinesAfter,
		asked, float64(cpu.Microseconds())/max(asked, 1))
	return rep, nil
}

// profileLive saves a CPU profile of each instance over the timed shares, into the directory
// BENCH_LIVE_PROFILE names (unset: none): what a notice's asks cost, where.
func profileLive(cfg Config, servers ...*server) {
	dir := os.Getenv("BENCH_LIVE_PROFILE")
	if dir == "" {
		return
	}
	for i, s := range servers {
		go func() {
			file := filepath.Join(dir, fmt.Sprintf("live-cpu-%d.pprof", i))
			if err := saveCPUProfile(s, liveNoticeShares*3/2*time.Second, file); err != nil {
				fmt.Fprintf(cfg.Log, "bench: live profile: %v\n", err)
			}
		}()
	}
}
