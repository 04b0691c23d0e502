package bench

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
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
	// CPUusPerNotice is the instances' CPU over the timed shares and their notices, per
	// notice told (asked, or told from the stream's last count: Counted of them).
	// ShareAppCPUms and SharePgCPUms are a share's CPU with no stream open, of the
	// instances and of the database's backends, from the share to a second after its answer
	// (the work it starts after commit included) less an idle second's.
	CPUusPerNotice float64 `json:"cpu_us_per_notice,omitempty"`
	Counted        int     `json:"counted"`
	ShareAppCPUms  float64 `json:"share_app_cpu_ms,omitempty"`
	SharePgCPUms   float64 `json:"share_pg_cpu_ms,omitempty"`
	WarmShares     int     `json:"warm_shares"`
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
	author, followers, bystanders, added, err := pickLiveReaders(ctx, pool, streams, nf)
	defer dropLiveReaders(context.WithoutCancel(ctx), pool)
	if err != nil {
		return nil, err
	}
	readers := append(slices.Clone(followers), bystanders...)
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
	fronts, nfronts, stopFronts, err := liveFronts(ctx, []*server{a, b}, len(readers))
	if err != nil {
		return nil, err
	}
	defer stopFronts()
	r := &liveRun{cfg: cfg, a: a, b: b, pool: pool, readers: readers, followers: len(followers), tokens: tokens, fronts: fronts,
		rep: &LiveReport{Streams: len(readers), Followers: len(followers), Instances: 2, Fronts: nfronts, Shares: liveNoticeShares,
			WarmShares: liveNoticeWarmShares, AddedReaders: added, Addresses: min(liveAddresses, len(readers))}}
	tr := &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: 4}
	defer tr.CloseIdleConnections()
	r.poster = newClient(a.URL, tr)
	r.poster.setSession(tokens[0])
	// Each stream comes from one of liveAddresses loopback addresses, as readers come from
	// many: the instances hold them to their caps per address and per user as configured.
	r.from = make([]*http.Transport, liveAddresses)
	for k := range r.from {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+k))}}
		r.from[k] = &http.Transport{Proxy: nil, DisableCompression: true, DialContext: d.DialContext}
		defer r.from[k].CloseIdleConnections()
	}

	if err := r.loadPages(ctx); err != nil {
		return nil, err
	}
	r.rep.GoroutinesBefore = goroutines(a) + goroutines(b)
	rssBefore, err := r.sharesAlone(ctx)
	if err != nil {
		return nil, err
	}
	heldBefore := heldMemory(a) + heldMemory(b)
	closeStreams, closed, err := r.openStreams(ctx)
	defer closeStreams()
	if err != nil {
		return nil, err
	}
	r.measureOpen(rssBefore, heldBefore)
	told, cpu, err := r.timedShares(ctx)
	if err != nil {
		return nil, err
	}
	closeStreams()
	closed.Wait()
	r.measureClosed()
	rep := r.rep
	fmt.Fprintf(cfg.Log, "bench: live notices: %d of %d delivered, p50 %.1f ms, p99 %.1f ms; %.1f KiB per stream held (%.1f KiB resident); goroutines %d -> %d -> %d; %.0f notices (%d told from counts, unasked), %.0f µs of the instances' CPU each\n",
		rep.Delivered, rep.Due, rep.P50ms, rep.P99ms, rep.HeldKiBPerStream, rep.KiBPerStream, rep.GoroutinesBefore, rep.GoroutinesOpen, rep.GoroutinesAfter,
		told, rep.Counted, float64(cpu.Microseconds())/max(told, 1))
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
