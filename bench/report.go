package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Machine describes where the numbers were measured.
type Machine struct {
	CPU        string `json:"cpu"`
	Cores      int    `json:"cores"`
	MemoryGB   int    `json:"memory_gb"`
	OS         string `json:"os"`
	Kernel     string `json:"kernel"`
	Go         string `json:"go"`
	PostgreSQL string `json:"postgresql"`
}

func machine() Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version(), CPU: "unknown", OS: runtime.GOOS}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			m.MemoryGB = int(math.Round(float64(kb) / (1 << 20)))
		}
	}
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
				m.OS = strings.Trim(v, `"`)
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

func postgresVersion(ctx context.Context, pool *pgxpool.Pool) string {
	var v string
	if err := pool.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		return "unknown"
	}
	return v
}

// gitCommit is the checked-out commit, with "+dirty" when tracked files have changes.
func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		c += "+dirty"
	}
	return c
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// Target is one of the performance targets, measured.
type Target struct {
	What     string `json:"target"`
	Scenario string `json:"scenario,omitempty"`
	Measured string `json:"measured"`
	Met      bool   `json:"met"`
}

func (r Report) result(name string) (Result, bool) {
	for _, x := range r.Results {
		if x.Name == name {
			return x, true
		}
	}
	return Result{}, false
}

// evaluate checks the targets against the results.
func evaluate(r Report) []Target {
	var out []Target
	for _, kind := range []string{"cold", "returning"} {
		for _, c := range []string{"light", "median", "heavy"} {
			name := "first_" + kind + "_" + c
			if x, ok := r.result(name); ok {
				out = append(out, Target{What: "logged-in first page p50 ≤ 10 ms and p99 ≤ 40 ms", Scenario: name,
					Measured: fmt.Sprintf("p50 %s, p99 %s", fmtMs(x.P50), fmtMs(x.P99)), Met: x.Requests > 0 && x.P50 <= 10 && x.P99 <= 40})
			}
		}
	}
	for _, c := range []string{"light", "median", "heavy"} {
		if x, ok := r.result("next_page_" + c); ok {
			out = append(out, Target{What: "next page p50 ≤ 3 ms", Scenario: x.Name, Measured: "p50 " + fmtMs(x.P50), Met: x.Requests > 0 && x.P50 <= 3})
		}
	}
	for _, c := range []string{"light", "median", "heavy"} {
		if x, ok := r.result("live_" + c); ok {
			out = append(out, Target{What: "live path p50 ≤ 100 ms", Scenario: x.Name, Measured: "p50 " + fmtMs(x.P50), Met: x.Requests > 0 && x.P50 <= 100})
		}
	}
	for _, name := range []string{"anon_json_hit", "anon_html_hit"} {
		if x, ok := r.result(name); ok {
			out = append(out, Target{What: "cached anonymous page ≥ 10,000 requests/s", Scenario: name,
				Measured: fmt.Sprintf("%.0f req/s at concurrency %d", x.RPS, x.Concurrency), Met: x.RPS >= 10_000})
		}
	}
	out = append(out, Target{What: "snapshot refresh ≤ 20 s", Measured: fmt.Sprintf("%.1f s", r.Refresh.Seconds), Met: r.Refresh.Seconds > 0 && r.Refresh.Seconds <= 20})
	if naive, ok := r.result("baseline_naive_heavy"); ok {
		for _, name := range []string{"first_cold_heavy", "first_returning_heavy"} {
			if x, ok := r.result(name); ok && x.P50 > 0 {
				ratio := naive.P50 / x.P50
				out = append(out, Target{What: "heavy followers ≥ 5× faster than naive fanout on read at p50", Scenario: name,
					Measured: fmt.Sprintf("%.2f× (naive %s, ours %s)", ratio, fmtMs(naive.P50), fmtMs(x.P50)), Met: ratio >= 5})
			}
		}
	}
	errs := 0
	for _, x := range r.Results {
		errs += x.Errors
	}
	out = append(out, Target{What: "zero errors", Measured: fmt.Sprintf("%d errors", errs), Met: errs == 0})
	return out
}

// Ratio compares a baseline with the feed at p50: how many times slower the baseline is.
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
		if ok1 && ok2 && o.P50 > 0 && b.Requests > 0 {
			out = append(out, Ratio{Class: class, Baseline: base, Ours: ours, BaseP50: b.P50, OursP50: o.P50, Ratio: round3(b.P50 / o.P50)})
		}
	}
	for _, c := range []string{"light", "median", "heavy"} {
		for _, base := range []string{"baseline_naive_", "baseline_seed000_"} {
			for _, ours := range []string{"first_cold_", "first_returning_"} {
				add(c, base+c, ours+c)
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
	default:
		return fmt.Sprintf("%.2f ms", v)
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
	return os.WriteFile(filepath.Join(dir, "BENCHMARKS.md"), []byte(markdown(r)), 0o644)
}

// markdown renders the report as BENCHMARKS.md.
func markdown(r Report) string {
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
		} else {
			missed = append(missed, strings.TrimSpace(t.What+" "+paren(t.Scenario)))
		}
	}
	p("\n## Summary\n\n")
	p("- Targets met: %d of %d.", met, len(r.Targets))
	if len(missed) > 0 {
		p(" Missed: %s.", strings.Join(missed, "; "))
	}
	p("\n- Snapshot refresh: %.1f s (%s).\n", r.Refresh.Seconds, r.Refresh.Result)
	p("- Server peak RSS (VmHWM at the end of the run, the startup refresh included): %.0f MiB.\n", float64(r.PeakRSSBytes)/(1<<20))

	p("\n## Results\n\n")
	p("Latency is measured by the client, over loopback, from sending the request to reading the last byte of the answer; the load driver runs on the same machine, so it is an upper bound of the server-side figure. The throughput is measured requests over the measured wall-clock time (untimed preparation steps included). CPU per request (from /proc, over the measured phase, untimed preparation included): the server process, the PostgreSQL backends of the bench database, and the load driver itself.\n\n")
	p("| scenario | what | c | requests | p50 | p95 | p99 | req/s | errors | CPU/req: app | PostgreSQL | driver |\n")
	p("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, x := range r.Results {
		p("| `%s` | %s | %d | %d | %s | %s | %s | %.0f | %d | %s | %s | %s |\n", x.Name, x.Group, x.Concurrency, x.Requests,
			fmtMs(x.P50), fmtMs(x.P95), fmtMs(x.P99), x.RPS, x.Errors, cpuCell(x.AppCPUms), cpuCell(x.PgCPUms), cpuCell(x.DriverCPUms))
	}
	p("\n![Latency per scenario: p50, p95, p99 on a log scale](bench/latency.svg)\n")
	p("\nWhat each scenario does:\n\n")
	for _, x := range r.Results {
		if x.Note != "" {
			p("- `%s`: %s.\n", x.Name, x.Note)
		}
	}
	for _, x := range r.Results {
		for _, e := range x.ErrorSamples {
			p("- error in `%s`: `%s`\n", x.Name, strings.ReplaceAll(e, "`", "'"))
		}
	}

	p("\n## Baselines\n\n")
	p("Run on the same database with the same viewers and concurrency, as SQL alone through pgx (no HTTP, sessions, ranking in Go or JSON, which favours them). Ratio = baseline p50 / ours p50: above 1, ours is faster.\n\n")
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
	p("One request of each kind through the feed service in-process (no HTTP), with every query it ran timed by a pgx tracer; the files hold EXPLAIN (ANALYZE, BUFFERS) of each query with the arguments the ranker used.\n\n")
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
	p("\n\nPlan checks (EXPLAIN (FORMAT JSON) of the queries above):\n\n")
	for _, pc := range r.Plans {
		verdict := "uses"
		if !pc.Uses {
			verdict = "**does not use**"
		}
		p("- `%s` (%s) %s `%s`", pc.Query, pc.Case, verdict, pc.Index)
		if len(pc.Indexes) > 0 {
			p("; indexes in the plan: %s", strings.Join(pc.Indexes, ", "))
		}
		if pc.Err != "" {
			p(" (%s)", pc.Err)
		}
		p(".\n")
	}

	p("\n## Setup\n\n")
	m := r.Machine
	p("- Machine: %s, %d cores, %d GB RAM, %s (kernel %s); %s; PostgreSQL %s (the checkout's private cluster unless `--database-url`). Server, PostgreSQL and load driver share the cores.\n",
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
	p("- The server is the real binary: `tributary serve --addr 127.0.0.1:0 --poll-seconds -1` on the bench database; the snapshot refresh measured is the one its scheduler runs at startup, before any load.\n")

	p("\n## How to rerun\n\n```sh\n%s\n```\n\n", r.Rerun)
	p("`make bench` builds the binary, runs `tributary bench` (the dataset is seeded once into the database `tributary_bench` of the checkout's private cluster and reused while the seed parameters and migrations are unchanged; `--reseed` forces it), then checks with `go test ./bench` that the snapshot queries use their indexes. `tributary bench --quick` runs a small dataset in under a minute and writes to `bench/out/quick/`. `tributary bench --help` lists the flags (concurrency, duration, output directory, database).\n")
	return b.String()
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

func code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + s + "`"
}

func cpuCell(v float64) string {
	if v <= 0 {
		return "–"
	}
	return fmtMs(v)
}

// latencySVG draws p50, p95 and p99 of every scenario as overlaid horizontal bars on a
// logarithmic axis: ours in blue, the baselines in orange.
func latencySVG(results []Result) string {
	const (
		labelW = 230
		plotW  = 620
		rowH   = 20
		top    = 54
		right  = 30
	)
	lo, hi := 0.1, 10.0
	for _, r := range results {
		for hi < r.P99 {
			hi *= 10
		}
	}
	decades := math.Log10(hi / lo)
	x := func(v float64) float64 {
		v = math.Max(v, lo)
		return labelW + plotW*math.Log10(v/lo)/decades
	}
	h := top + rowH*len(results) + 30
	w := labelW + plotW + right
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", w, h, w, h)
	p(`<rect width="100%%" height="100%%" fill="#fff"/>` + "\n")
	p(`<text x="10" y="18" font-size="14" font-weight="bold">Latency per scenario (client-side, log scale)</text>` + "\n")
	legend := []struct{ label, color string }{{"p50", "#1f5fa8"}, {"p95", "#6f9fd8"}, {"p99", "#c4d8f0"}, {"baseline p50 / p95 / p99", "#d9822b"}}
	lx := 10
	for _, l := range legend {
		p(`<rect x="%d" y="28" width="12" height="12" fill="%s"/><text x="%d" y="38">%s</text>`+"\n", lx, l.color, lx+16, l.label)
		lx += 30 + 7*len(l.label)
	}
	for e := -1; e <= int(math.Round(math.Log10(hi))); e++ {
		gx := x(math.Pow10(e))
		p(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", gx, top-4, gx, top+rowH*len(results))
		p(`<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s</text>`+"\n", gx, top+rowH*len(results)+16, axisLabel(e))
	}
	for i, r := range results {
		y := top + i*rowH
		p(`<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", labelW-8, y+14, r.Name)
		colors := []string{"#c4d8f0", "#6f9fd8", "#1f5fa8"}
		if r.Kind == "sql" {
			colors = []string{"#f6d5b3", "#eba867", "#d9822b"}
		}
		for j, v := range []float64{r.P99, r.P95, r.P50} {
			if v <= 0 {
				continue
			}
			p(`<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s %s: %s</title></rect>`+"\n",
				labelW, y+3, math.Max(1, x(v)-labelW), rowH-6, colors[j], r.Name, []string{"p99", "p95", "p50"}[j], fmtMs(v))
		}
		p(`<text x="%.1f" y="%d" fill="#333" font-size="10">%s</text>`+"\n", x(r.P99)+4, y+14, fmtMs(r.P50))
	}
	p("</svg>\n")
	return b.String()
}

// axisLabel names the gridline at 10^e ms.
func axisLabel(e int) string {
	switch {
	case e < 0:
		return "0.1 ms"
	case e < 3:
		return fmt.Sprintf("%d ms", int(math.Pow10(e)))
	default:
		return fmt.Sprintf("%d s", int(math.Pow10(e-3)))
	}
}
