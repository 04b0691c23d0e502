package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

func (r Report) result(name string) (Result, bool) {
	for _, x := range r.Results {
		if x.Name == name {
			return x, true
		}
	}
	return Result{}, false
}

// loads are the name suffixes of the loads the scenarios ran at: "" for the stated
// concurrency, then the unloaded run's.
func (r Report) loads() []string {
	if n := r.Settings.UnloadedConcurrency; n > 0 {
		return []string{"", unloadedSuffix(n)}
	}
	return []string{""}
}

// Ratio compares a baseline with the feed at server-side p50 (a baseline's is its query's
// round trip): how many times slower the baseline is.
type Ratio struct {
	Class    string  `json:"class"`
	Baseline string  `json:"baseline"`
	Ours     string  `json:"ours"`
	BaseP50  float64 `json:"baseline_p50_ms"`
	OursP50  float64 `json:"ours_p50_ms"`
	Ratio    float64 `json:"ratio"` // baseline p50 / ours p50: > 1 means ours is faster
}

func ratios(r Report) []Ratio {
	var out []Ratio
	add := func(class, base, ours string) {
		b, ok1 := r.result(base)
		o, ok2 := r.result(ours)
		if ok1 && ok2 && o.ServerP50 > 0 && b.Requests > 0 {
			out = append(out, Ratio{Class: class, Baseline: base, Ours: ours, BaseP50: b.ServerP50, OursP50: o.ServerP50, Ratio: round3(b.ServerP50 / o.ServerP50)})
		}
	}
	for _, c := range []string{"light", "median", "heavy"} {
		for _, base := range []string{"baseline_naive_", "baseline_seed000_"} {
			for _, ours := range []string{"first_cold_", "first_returning_"} {
				add(c, base+c, ours+c)
			}
		}
	}
	if n := r.Settings.UnloadedConcurrency; n > 0 {
		for _, c := range []string{"light", "median", "heavy"} {
			for _, ours := range []string{"first_cold_", "first_returning_"} {
				add(c, "baseline_naive_"+c+unloadedSuffix(n), ours+c+unloadedSuffix(n))
			}
		}
	}
	add("anonymous", "baseline_seed000_anon", "anon_json_miss")
	add("anonymous", "baseline_seed000_anon", "anon_json_hit")
	return out
}

func fmtMs(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.2f s", v/1000)
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	case v >= 0.1 || v == 0:
		return fmt.Sprintf("%.2f ms", v)
	default:
		return fmt.Sprintf("%.0f µs", v*1000)
	}
}

// writeReport writes BENCHMARKS.md, BENCHMARKS.json and bench/latency.svg under dir.
func writeReport(dir string, r Report) error {
	if err := os.MkdirAll(filepath.Join(dir, "bench"), 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "BENCHMARKS.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "bench", "latency.svg"), []byte(latencySVG(r.Results)), 0o644); err != nil {
		return err
	}
	growth := growthRuns(r)
	if len(growth) > 1 {
		if err := os.WriteFile(filepath.Join(dir, "bench", "growth.svg"), []byte(growthSVG(growth)), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "BENCHMARKS.md"), []byte(markdown(r, growth)), 0o644)
}

// markdown renders the report as BENCHMARKS.md, with the cost-growth table of the runs
// at each scale when there are two or more.
func markdown(r Report, growth []Report) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Benchmarks\n\n")
	p("Written by `tributary bench` (`make bench`) on %s at commit `%s`; rerun it rather than editing this file.\n",
		r.Date.Format("2006-01-02 15:04 MST"), r.Commit)
	if r.Settings.Quick {
		p("\n**Quick run (`--quick`, small dataset): for development, not for the record.**\n")
	}
	met, missed := 0, []string{}
	for _, t := range r.Targets {
		if t.Met {
			met++
		} else if t.Scenario != "" {
			missed = append(missed, fmt.Sprintf("`%s` (%s)", t.Scenario, t.Measured))
		} else {
			missed = append(missed, fmt.Sprintf("%s (%s)", t.What, t.Measured))
		}
	}
	p("\n## Summary\n\n")
	p("- Targets met: %d of %d (see [Targets](#targets)).", met, len(r.Targets))
	if len(missed) > 0 {
		p(" Missed: %s.", strings.Join(missed, "; "))
	}
	p("\n- Snapshot refresh: %.1f s (%s).", r.Refresh.Seconds, r.Refresh.Result)
	if r.Refresh.HourRedone > 0 || r.Refresh.HourSeconds > 0 {
		p(" The hourly refresh is incremental (a full rebuild once a day): over the last hour of this dataset, %d items redone in %.2f s, while the server served.", r.Refresh.HourRedone, r.Refresh.HourSeconds)
	}
	p("\n")
	p("- Server peak RSS (VmHWM at the end of the run, the startup refresh included): %.0f MiB.\n", float64(r.PeakRSSBytes)/(1<<20))

	p("\n## Results\n\n")
	p("Latency is measured twice. Client-side (p50, p95, p99): by the load driver, over loopback, from sending the request to reading the last byte of the answer. Server-side (srv p50, p95, p99): what the server reports in its `Server-Timing` header, from receiving the request to starting the answer (the session, the feed queries, ranking and encoding included; handlers encode before they write). For SQL baselines both are the query's round trip through pgx. The targets are server-side, as the issue states them. The throughput is measured requests over the measured wall-clock time (untimed preparation steps included). CPU per request (from /proc, over the measured phase, untimed preparation included): the server process, the PostgreSQL backends of the bench database, and the load driver itself; \"cores busy\" is their sum over the measured time and the machine's cores: near 100 %%, latency is mostly waiting for a core, and the in-process timings under [Where the time goes](#where-the-time-goes) show the unloaded cost.\n\n")
	p("| scenario | what | c | requests | p50 | p95 | p99 | srv p50 | srv p95 | srv p99 | req/s | errors | CPU/req: app | PostgreSQL | driver | cores busy |\n")
	p("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, x := range r.Results {
		p("| `%s` | %s | %d | %d | %s | %s | %s | %s | %s | %s | %.0f | %d | %s | %s | %s | %.0f%% |\n", x.Name, x.Group, x.Concurrency, x.Requests,
			fmtMs(x.P50), fmtMs(x.P95), fmtMs(x.P99), fmtMs(x.ServerP50), fmtMs(x.ServerP95), fmtMs(x.ServerP99),
			x.RPS, x.Errors, cpuCell(x.AppCPUms), cpuCell(x.PgCPUms), cpuCell(x.DriverCPUms), 100*x.Busy)
	}
	if l := r.Live; l != nil {
		p("\nLive notices (`live_notice`): %s%s open, their live streams (`/live`) spread over %d instances on the database%s and coming from %d loopback addresses (within the instances' caps per address and per user); the author shares %d times through the first instance, a second apart%s. Latency: from sending the share to the notice with the new count arriving on a stream, over every stream and share: p50 %s, p99 %s, max %s; %d of %d notices arrived. The share itself was answered in %s (p50)%s. Memory: %s per open stream; goroutines %d before the streams, %d with them open, %d after they closed%s.\n",
			liveReaders(l), addedReaders(l.AddedReaders), l.Instances, liveFront(l.Fronts), l.Addresses, l.Shares, warmShares(l.WarmShares), fmtMs(l.P50ms), fmtMs(l.P99ms), fmtMs(l.MaxMs), l.Delivered, l.Due, fmtMs(l.ShareP50ms), shareAlone(l), streamMemory(l),
			l.GoroutinesBefore, l.GoroutinesOpen, l.GoroutinesAfter, closedAfter(l))
	}
	p("\n![Latency per scenario: p50, p95, p99 on a log scale](bench/latency.svg)\n")
	if len(growth) > 1 {
		p("\n## Cost growth\n\nThe same scenarios at each scale the bench has run (`make bench SCALE=40k|4m`; the newest full run of each, read from its BENCHMARKS.json; server-side p50; × is the ratio to the 400k run). The machine is shared and noisy: compare within a column before across.\n\n")
		p("%s", growthMarkdown(growth))
		p("\n![Server-side p50 against the number of posts](bench/growth.svg)\n")
	}
	p("\nWhat each scenario does:\n\n")
	for _, x := range r.Results {
		if x.Note != "" {
			p("- `%s`: %s", x.Name, x.Note)
			if x.PrepMs > 0 {
				p(" (the untimed preparation took %s per request)", fmtMs(x.PrepMs))
			}
			p(".\n")
		}
	}
	for _, x := range r.Results {
		for _, e := range x.ErrorSamples {
			p("- error in `%s`: `%s`\n", x.Name, strings.ReplaceAll(e, "`", "'"))
		}
	}

	if md := strategiesMarkdown(r.Results); md != "" {
		p("\n## Materializing the home feed (seed 004)\n\n%s", md)
	}

	p("\n## Capacity model\n\n%s", capacityMarkdown(r, growth))

	p("\n## Baselines\n\n")
	p("Run on the same database with the same viewers and concurrency, as SQL alone through pgx (no HTTP, sessions, ranking in Go or JSON, which favours them). Ratio = baseline p50 / ours p50 (server-side; a baseline's is its query's round trip): above 1, ours is faster.\n\n")
	p("| class | baseline | p50 | ours | p50 | ratio |\n|---|---|--:|---|--:|--:|\n")
	for _, q := range r.Ratios {
		p("| %s | `%s` | %s | `%s` | %s | %.2f× |\n", q.Class, q.Baseline, fmtMs(q.BaseP50), q.Ours, fmtMs(q.OursP50), q.Ratio)
	}

	p("\n## Targets\n\n| target | scenario | measured | met |\n|---|---|---|---|\n")
	for _, t := range r.Targets {
		mark := "yes"
		if !t.Met {
			mark = "**no**"
		}
		p("| %s | %s | %s | %s |\n", t.What, code(t.Scenario), t.Measured, mark)
	}

	p("\n## Where the time goes\n\n")
	p("One request of each kind through the feed service in-process (no HTTP, no other load, on connections warmed by an unrecorded first pass), with every query it ran timed by a pgx tracer (planning, execution and transfer); the files hold EXPLAIN (ANALYZE, BUFFERS) of each query with the arguments the ranker used.\n\n")
	p("| request | wall | in PostgreSQL | queries | slowest query | file |\n|---|--:|--:|--:|---|---|\n")
	for _, ct := range r.Breakdown {
		p("| %s | %s | %s | %d | %s (%s) | [%s.txt](bench/explain/%s.txt) |\n", ct.Case, fmtMs(ct.WallMs), fmtMs(ct.DBMs), ct.Queries,
			code(ct.Slowest), fmtMs(ct.SlowedMs), ct.Case, ct.Case)
	}
	for _, f := range r.Explains {
		if strings.HasPrefix(f.Name, "baseline_") {
			p("\n- [%s](bench/explain/%s): %s.", f.Name, f.Name, f.Title)
		}
	}
	if len(r.PlanCache) > 0 {
		p("\n\nThe server runs its small per-page queries through pgx's statement cache: PostgreSQL plans the first five executions of a prepared statement with their arguments, then may keep one generic plan (the other queries are planned with their arguments on every run, `db/plans.go`). Each prepared query above, explained once, and again after the request's queries ran five times in a row on one connection as prepared statements (the files show both plans; queries under 0.5 ms either way are left out):\n\n")
		p("| request | query | first plan | after 5 requests | plan cache |\n|---|---|--:|--:|---|\n")
		for _, c := range r.PlanCache {
			if c.Err == "" && c.FirstMs < 0.5 && c.CachedMs < 0.5 {
				continue
			}
			kind := "custom"
			if c.Generic {
				kind = "**generic**"
				if c.CachedMs > 2*c.FirstMs && c.CachedMs-c.FirstMs > 1 {
					kind += fmt.Sprintf(" (%.0f× slower)", c.CachedMs/max(c.FirstMs, 0.001))
				}
			}
			if c.Err != "" {
				kind = "not measured: " + c.Err
			}
			p("| %s | `%s` | %s | %s | %s |\n", c.Case, c.Query, fmtMs(c.FirstMs), fmtMs(c.CachedMs), kind)
		}
	}
	p("\n\nPlan checks (EXPLAIN (FORMAT JSON) of the queries above):\n\n")
	for _, pc := range r.Plans {
		verdict := "use"
		if !pc.Uses {
			verdict = "**do not use**"
		}
		p("- %s: the reads of feed_snapshot (%s) %s %s", pc.Case, code(pc.Query), verdict, strings.Join(codes(pc.Want), " or "))
		if len(pc.Indexes) > 0 {
			p("; indexes in the plan: %s", strings.Join(pc.Indexes, ", "))
		}
		if len(pc.SeqScans) > 0 {
			p("; read whole: %s", strings.Join(pc.SeqScans, ", "))
		}
		if pc.Err != "" {
			p(" (%s)", pc.Err)
		}
		p(".\n")
	}

	p("\n## Setup\n\n")
	m := r.Machine
	p("- Machine: %s, %d cores, %d GB RAM, %s (kernel %s); %s; PostgreSQL %s (the bench's private cluster unless `--database-url`; `fsync=off`, `shared_buffers=512MB`). Server, PostgreSQL and load driver share the cores.\n",
		m.CPU, m.Cores, m.MemoryGB, m.OS, m.Kernel, m.Go, m.PostgreSQL)
	d := r.Dataset
	seeded := fmt.Sprintf("seeded %s in %.0f s", d.SeededAt.Format("2006-01-02 15:04 MST"), d.SeedSeconds)
	if d.Reused {
		seeded += ", reused by this run"
	}
	p("- Dataset: `tributary seed --users %d --posts %d --seed %d` (%s): %d users, %d follows, %d posts, %d anchors, %d card_seen events.\n",
		d.Users, d.Posts, d.Seed, seeded, d.UserCount, d.FollowCount, d.PostCount, d.AnchorCount, d.EventCount)
	p("- Viewers (logged in through the login form, one cookie jar each; workers never share a viewer):")
	for _, v := range r.Viewers {
		p(" %s: %d users following %d–%d (target ~%d);", v.Class, v.Viewers, v.MinFollowees, v.MaxFollowees, v.Target)
	}
	p("\n- Load: concurrency %d for latency scenarios and baselines, %d for the cached anonymous pages; each scenario warms up %.1f s, then measures %.0f s (at most a fixed number of requests). Feed scenarios use the JSON API (`GET /api/timeline`, %d items per page), the anonymous front page also as HTML (`GET /`).\n",
		r.Settings.Concurrency, r.Settings.ThroughputConcurrency, r.Settings.WarmupSeconds, r.Settings.DurationSeconds, r.Settings.PageSize)
	if n := r.Settings.UnloadedConcurrency; n > 0 {
		p("- The logged-in scenarios, the naive baseline and the floor run again with %d client(s) (names ending in `%s`): the latency of a server that is not also queueing for the cores. At concurrency %d the two cores are shared by %d requests in flight, PostgreSQL and the load driver, so latency there is mostly the CPU of the requests ahead (the CPU/req columns: app + PostgreSQL + driver, times the clients, over two cores). The targets are checked at both.\n",
			n, unloadedSuffix(n), r.Settings.Concurrency, r.Settings.Concurrency)
	}
	p("- `baseline_floor_heavy` is the floor of a logged-in first page while sessions, access state and fences live in PostgreSQL (DESIGN.md, Scale): the session read by its token, the viewer's bans and private feeds, the commit of a fencepost, as three dependent round trips from the driver with nothing else. A target below the floor cannot be met by such a page, however it ranks.\n")
	p("- Load average of the machine (1, 5, 15 min) before the run: %s; after: %s. Anything beyond the bench itself running at the same time inflates the figures.\n", r.LoadBefore, r.LoadAfter)
	p("- The server's PostgreSQL sessions (db.Open's settings, which the harness's own connections copy) run with `plan_cache_mode=%s`; the small queries of every page run as prepared statements that keep a plan, the others (id arrays whose size decides the plan) are planned with their arguments on every run (`db/plans.go`).\n", r.Settings.PlanCacheMode)
	p("- The server is the real binary: `tributary serve --addr 127.0.0.1:0 --poll-seconds -1` on the bench database; the snapshot refresh measured is the one its scheduler runs at startup, before any load.\n")
	if r.Settings.Rivers {
		p("- The server ran with rivers on (`TRIBUTARY_RIVERS=on`): active readers' home arrivals are read from their rivers, fanned out on write.\n")
	}

	p("\n## How to rerun\n\n```sh\n%s\n```\n\n", r.Rerun)
	p("`make bench` builds the binary, runs `tributary bench` (the dataset is seeded once into the database `tributary_bench` of a private PostgreSQL cluster of the bench's own, next to the checkout's, and reused while the seed parameters and migrations are unchanged; `--reseed` forces it), then checks with `go test ./bench` that the snapshot queries use their indexes. `tributary bench --quick` runs a small dataset in under a minute and writes to `bench/out/quick/`. `tributary bench --help` lists the flags (concurrency, duration, output directory, database).\n")
	return b.String()
}

func code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + s + "`"
}

func codes(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = code(s)
	}
	return out
}

func cpuCell(v float64) string {
	if v <= 0 {
		return "–"
	}
	return fmtMs(v)
}

// warmShares says how many untimed shares went before the timed ones of the live run.
func warmShares(n int) string {
	if n == 0 {
		return ""
	}
	if n == 1 {
		return ", after an untimed one"
	}
	return fmt.Sprintf(", after %d untimed ones", n)
}

// shareAlone says how fast the same shares were answered with no stream open (runs before it
// was measured say nothing).
// liveReaders says whose home pages the live measurement opened.
func liveReaders(l *LiveReport) string {
	if l.Followers == 0 || l.Followers == l.Streams {
		return fmt.Sprintf("the home pages of the %d followers of the most followed author", l.Streams)
	}
	return fmt.Sprintf("%d home pages, %d of them of the most followed author's followers and the others of readers who follow another author (no notice is theirs; %d reached them)",
		l.Streams, l.Followers, l.BystanderNotices)
}

// liveFront says how the pages and streams reached the instances.
func liveFront(fronts int) string {
	switch fronts {
	case 0:
		return ", direct (haproxy is not installed)"
	case 1:
		return ", behind haproxy (which passes on each client's address)"
	}
	return fmt.Sprintf(", behind %d haproxy load balancers, each in front of both instances (a client's address picks its instance) and passing on that address (a haproxy holds two descriptors a stream; a process here holds at most 20,000)", fronts)
}

// closedAfter says how soon the instances let the streams go after their pages closed.
func closedAfter(l *LiveReport) string {
	if l.ClosedAfterS == 0 {
		return ""
	}
	return fmt.Sprintf(" (the instances had let the last go %.0f s after the pages closed: behind a proxy, an instance hears of a closed page when its stream's next heartbeat fails to reach it)", l.ClosedAfterS)
}

// addedReaders says how many of the followers the bench added for the measurement.
func addedReaders(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d of the readers added by the bench, each following one author)", n)
}

// streamMemory says what an open stream holds: live in the heap and stacks, and resident.
func streamMemory(l *LiveReport) string {
	resident := fmt.Sprintf("%.1f KiB of resident memory", l.KiBPerStream)
	if l.HeldKiBPerStream == 0 { // runs before the held memory was measured
		return resident
	}
	return fmt.Sprintf("%.1f KiB live in the heap (found by a collection forced for the count) and in goroutine stacks (%s, which moves with when the garbage was last collected)", l.HeldKiBPerStream, resident)
}

func shareAlone(l *LiveReport) string {
	if l.ShareAloneP50ms == 0 {
		return ""
	}
	return fmt.Sprintf("; with no stream open, the same shares a second apart before the streams opened: %s", fmtMs(l.ShareAloneP50ms))
}
