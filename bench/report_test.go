package bench

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(vs ...int) []time.Duration {
		out := make([]time.Duration, len(vs))
		for i, v := range vs {
			out[i] = time.Duration(v) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one value is every percentile", ms(7), 99, 7 * time.Millisecond},
		{"p50 of 1..100 is 50", ms(hundred...), 50, 50 * time.Millisecond},
		{"p95 of 1..100 is 95", ms(hundred...), 95, 95 * time.Millisecond},
		{"p99 of 1..100 is 99", ms(hundred...), 99, 99 * time.Millisecond},
		{"p100 is the maximum", ms(hundred...), 100, 100 * time.Millisecond},
		{"nearest rank rounds up", ms(1, 2, 3), 50, 2 * time.Millisecond},
		{"p99 of few values is the maximum", ms(1, 2, 3, 4, 5), 99, 5 * time.Millisecond},
		{"p0 is the minimum", ms(3, 4), 0, 3 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentile(tt.sorted, tt.p); got != tt.want {
				t.Errorf("percentile(%v, %v) = %v, want %v", tt.sorted, tt.p, got, tt.want)
			}
		})
	}
}

func TestSummarizeSortsAndDoesNotModify(t *testing.T) {
	lat := []time.Duration{4 * time.Millisecond, 1 * time.Millisecond, 3 * time.Millisecond, 2 * time.Millisecond}
	orig := slices.Clone(lat)
	s := summarize(lat)
	if s.N != 4 || s.P50 != 2 || s.P99 != 4 || s.Max != 4 || s.Mean != 2.5 {
		t.Errorf("summarize = %+v, want N 4, p50 2, p99 4, max 4, mean 2.5", s)
	}
	if !slices.Equal(lat, orig) {
		t.Errorf("summarize reordered its input: %v", lat)
	}
	if got := summarize(nil); got != (stats{}) {
		t.Errorf("summarize(nil) = %+v, want zero", got)
	}
}

func TestRunLoadCountsErrorsAndStopsAtMaxRequests(t *testing.T) {
	var n atomic.Int64
	sc := scenario{Name: "fake", Concurrency: 3, worker: func(int) step {
		return func(context.Context) (latency, error) {
			if n.Add(1)%3 == 0 {
				return latency{}, errors.New("boom")
			}
			return latency{client: time.Millisecond, server: 800 * time.Microsecond}, nil
		}
	}}
	measuring := false
	res := runLoad(context.Background(), sc, loadLimits{Duration: time.Minute, MaxRequests: 90}, func() { measuring = true })
	if !measuring {
		t.Error("the measuring hook was not called")
	}
	if got := res.Requests + res.Errors; got != 90 {
		t.Errorf("requests + errors = %d, want exactly MaxRequests 90", got)
	}
	if res.Errors != 30 || len(res.ErrorSamples) != 1 || res.ErrorSamples[0] != "boom" {
		t.Errorf("errors = %d, samples %q; want 30 errors and one distinct sample \"boom\"", res.Errors, res.ErrorSamples)
	}
	if res.P50 != 1 || res.ServerP50 != 0.8 || res.Concurrency != 3 || res.Name != "fake" {
		t.Errorf("result = %+v, want p50 1 ms (server-side 0.8 ms), concurrency 3, name fake", res)
	}
}

func TestPlanScans(t *testing.T) {
	plan := `[{"Plan": {"Node Type": "Limit", "Plans": [
		{"Node Type": "Bitmap Heap Scan", "Plans": [{"Node Type": "Bitmap Index Scan", "Index Name": "feed_snapshot_sharers_idx"}]},
		{"Node Type": "Index Scan", "Index Name": "posts_pkey", "Plans": [{"Node Type": "Index Scan", "Index Name": "feed_snapshot_sharers_idx"}]},
		{"Node Type": "Seq Scan", "Relation Name": "users"}]}}]`
	got, seq, err := planScans([]byte(plan))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"feed_snapshot_sharers_idx", "posts_pkey"}; !slices.Equal(got, want) {
		t.Errorf("planScans indexes = %q, want %q", got, want)
	}
	if want := []string{"users"}; !slices.Equal(seq, want) {
		t.Errorf("planScans seq scans = %q, want %q", seq, want)
	}
	if _, _, err := planScans([]byte("not json")); err == nil {
		t.Error("planScans accepted malformed JSON")
	}
}

func TestQueryNameAndReadOnly(t *testing.T) {
	tests := []struct {
		sql      string
		name     string
		readOnly bool
	}{
		{"-- name: SnapshotFeed :many\nWITH v AS (SELECT 1) SELECT s.deleted_at FROM feed_snapshot s", "SnapshotFeed", true},
		{"-- name: ResetFences :exec\nWITH gone AS (DELETE FROM fences) DELETE FROM fenceposts", "ResetFences", false},
		{"-- name: InsertFencepost :exec\nINSERT INTO fenceposts VALUES (1)", "InsertFencepost", false},
		{"SELECT offset_x, updated FROM t -- update me", "SELECT offset_x, updated FROM t -- updat...", true},
		{"begin", "begin", false},
		{"-- name: SnapshotMeta :one\nSELECT refreshed_at FROM snapshot_meta", "SnapshotMeta", true},
	}
	for _, tt := range tests {
		if got := queryName(tt.sql); got != tt.name {
			t.Errorf("queryName(%q) = %q, want %q", tt.sql, got, tt.name)
		}
		if got := readOnly(tt.sql); got != tt.readOnly {
			t.Errorf("readOnly(%q) = %v, want %v", tt.sql, got, tt.readOnly)
		}
	}
}

func TestShortenArrays(t *testing.T) {
	ids := make([]string, 300)
	for i := range ids {
		ids[i] = "1234"
	}
	plan := "Filter: (sharer_user_ids && '{" + strings.Join(ids, ",") + "}'::bigint[]) AND (anchor_id <> ALL ('{1,2}'::bigint[]))"
	got := shortenArrays(plan)
	want := "Filter: (sharer_user_ids && '{…300 ids…}'::bigint[]) AND (anchor_id <> ALL ('{1,2}'::bigint[]))"
	if got != want {
		t.Errorf("shortenArrays = %q, want %q", got, want)
	}
}

func TestLoopbackOnly(t *testing.T) {
	for _, u := range []string{"http://127.0.0.1:4000", "http://[::1]:80", "http://localhost:8080"} {
		if err := loopbackOnly(u); err != nil {
			t.Errorf("loopbackOnly(%q) = %v, want nil", u, err)
		}
	}
	for _, u := range []string{"http://10.0.0.1:80", "http://example.org", "http://0.0.0.0:80"} {
		if err := loopbackOnly(u); err == nil {
			t.Errorf("loopbackOnly(%q) = nil, want an error", u)
		}
	}
}

func TestRefreshLogLine(t *testing.T) {
	line := `time=2026-01-02T03:04:05Z level=INFO msg="job ran" job=snapshot-refresh dur=12.5s result="116079 rows in 12.4s"`
	m := refreshRe.FindStringSubmatch(line)
	if m == nil || m[1] != "ran" || m[2] != "12.5s" || m[3] != "116079 rows in 12.4s" {
		t.Errorf("refresh line parsed as %q", m)
	}
	failed := `time=2026-01-02T03:04:05Z level=ERROR msg="job failed" job=snapshot-refresh dur=3ms err="db: refresh: boom"`
	if m := refreshRe.FindStringSubmatch(failed); m == nil || m[1] != "failed" || m[4] != "db: refresh: boom" {
		t.Errorf("failed refresh line parsed as %q", m)
	}
}

// sampleReport is a small report with every section filled.
func sampleReport() Report {
	// p50 and p99 are server-side; through HTTP the client sees 1.5 times as much (targets
	// are judged server-side), a SQL baseline the same.
	res := func(name, kind string, p50, p99, rps float64, errs int) Result {
		client := 1.0
		if kind == "http" {
			client = 1.5
		}
		return Result{Name: name, Group: "group of " + name, Kind: kind, Concurrency: 4, Requests: 100, Errors: errs,
			P50: p50 * client, P95: p99 * 0.9 * client, P99: p99 * client, ServerP50: p50, ServerP95: p99 * 0.9, ServerP99: p99,
			RPS: rps, Note: "note of " + name, AppCPUms: 1.5}
	}
	r := Report{
		Date: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), Commit: "abc123", Rerun: "make bench",
		Machine:  Machine{CPU: "Test CPU", Cores: 2, MemoryGB: 8, OS: "Debian", Go: "go1.26", PostgreSQL: "15"},
		Dataset:  DatasetInfo{Dataset: FullDataset, UserCount: 50000, PostCount: 400000},
		Settings: Settings{Concurrency: 4, ThroughputConcurrency: 16, UnloadedConcurrency: 1, DurationSeconds: 8, PageSize: 20},
		Refresh:  RefreshReport{Seconds: 12.5, Result: "116079 rows in 12.4s"},
		Results: []Result{
			res("anon_json_hit", "http", 0.4, 2, 12000, 0),
			res("first_cold_heavy", "http", 8, 30, 400, 0),
			res("first_returning_heavy", "http", 12, 50, 300, 0),
			res("next_page_heavy", "http", 2, 5, 900, 1),
			res("live_heavy", "http", 90, 200, 40, 0),
			res("baseline_naive_heavy", "sql", 48, 90, 80, 0),
			res("first_cold_heavy_c1", "http", 11, 20, 90, 0),
			res("baseline_naive_heavy_c1", "sql", 33, 40, 30, 0),
			res("peer_freefeed_p1_heavy", "sql", 7, 20, 300, 0),
			res("peer_freefeed_p10_heavy", "sql", 9, 20, 300, 0),
		},
		PeakRSSBytes: 300 << 20,
		Plans: []PlanCheck{{Query: "SnapshotFeed", Case: "first_cold_heavy", Want: []string{"feed_snapshot_sharers_idx"}, Uses: true,
			Indexes: []string{"feed_snapshot_sharers_idx"}}},
		Breakdown: []CaseTiming{{Case: "first_cold_heavy", WallMs: 7, DBMs: 5, Queries: 9, Slowest: "SnapshotFeed", SlowedMs: 4}},
	}
	r.Results[3].ErrorSamples = []string{"GET /api/timeline: status 500"}
	r.Targets = evaluate(r)
	r.Ratios = ratios(r)
	return r
}

func TestEvaluateTargets(t *testing.T) {
	r := sampleReport()
	got := map[string]bool{}
	for _, tg := range r.Targets {
		got[tg.What+" "+tg.Scenario] = tg.Met
	}
	want := map[string]bool{
		"logged-in first page p50 ≤ 10 ms and p99 ≤ 40 ms first_cold_heavy":                             true,
		"logged-in first page p50 ≤ 10 ms and p99 ≤ 40 ms first_returning_heavy":                        false,
		"next page p50 ≤ 3 ms next_page_heavy":                                                          true,
		"live path p50 ≤ 100 ms live_heavy":                                                             true,
		"cached anonymous page ≥ 10,000 requests/s anon_json_hit":                                       true,
		"snapshot refresh ≤ 20 s ":                                                                      true,
		"a next page ≥ 3× faster than FreeFeed's home query alone at page 10 (p50) next_page_heavy":     true,
		"a cold first page no slower than FreeFeed's home query alone at page 1 (p50) first_cold_heavy": false,
		"zero errors ": false,
		"logged-in first page p50 ≤ 10 ms and p99 ≤ 40 ms first_cold_heavy_c1": false,
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("target %q: met = %v (present %v), want %v", k, g, ok, w)
		}
	}
	if len(r.Ratios) != 3 || r.Ratios[0].Ratio != 6 || r.Ratios[1].Ratio != 4 || r.Ratios[2].Ratio != 3 {
		t.Errorf("ratios = %+v, want naive/cold 6×, naive/returning 4×, and 3× unloaded", r.Ratios)
	}
}

func TestWriteReport(t *testing.T) {
	dir := t.TempDir()
	r := sampleReport()
	if err := writeReport(dir, r); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "BENCHMARKS.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"commit `abc123`", "| `first_cold_heavy` |", "8.00 ms", "![Latency", "bench/latency.svg",
		"Test CPU, 2 cores", "make bench", "Missed:", "**no**", "status 500", "12.5 s", "300 MiB",
		"first_cold_heavy: the reads of feed_snapshot (`SnapshotFeed`) use `feed_snapshot_sharers_idx`", "bench/explain/first_cold_heavy.txt",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("BENCHMARKS.md lacks %q", want)
		}
	}
	var js struct {
		Scenarios []map[string]any `json:"scenarios"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "BENCHMARKS.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &js); err != nil {
		t.Fatal(err)
	}
	if len(js.Scenarios) != len(r.Results) {
		t.Fatalf("BENCHMARKS.json has %d scenarios, want %d", len(js.Scenarios), len(r.Results))
	}
	for _, key := range []string{"name", "concurrency", "p50_ms", "p95_ms", "p99_ms", "rps", "errors"} {
		if _, ok := js.Scenarios[0][key]; !ok {
			t.Errorf("BENCHMARKS.json scenario lacks %q: %v", key, js.Scenarios[0])
		}
	}
	svg, err := os.ReadFile(filepath.Join(dir, "bench", "latency.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "first_cold_heavy", "baseline_naive_heavy", "#d9822b", "</svg>"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("latency.svg lacks %q", want)
		}
	}
}

func TestSchemaCompatible(t *testing.T) {
	tests := []struct {
		seeded, current string
		want            bool
	}{
		{"v1 00001_init.sql:aa", "v1 00001_init.sql:aa", true},
		{"v1 00001_init.sql:aa", "v1 00001_init.sql:aa 00002_index.sql:bb", true},
		{"v1 00001_init.sql:aa", "v1 00001_init.sql:cc", false},
		{"v1 00001_init.sql:aa 00002_index.sql:bb", "v1 00001_init.sql:aa", false},
		{"v1 00001_init.sql:aa", "v2 00001_init.sql:aa", false},
		{"v1 00001_init.sql:a", "v1 00001_init.sql:aa", false},
	}
	for _, tt := range tests {
		if got := schemaCompatible(tt.seeded, tt.current); got != tt.want {
			t.Errorf("schemaCompatible(%q, %q) = %v, want %v", tt.seeded, tt.current, got, tt.want)
		}
	}
	if h := schemaHash(); !strings.Contains(h, "00001_init.sql:") {
		t.Errorf("schemaHash() = %q, want it to name the migrations", h)
	}
}

func TestLiterals(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	got, err := literals([]any{nil, true, int32(7), int64(-3), 1.5, "it's", at, []int64{1, 2}, []int64{}, []string{`a"b`}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"NULL", "true", "7", "-3", "1.5", "'it''s'", "'2026-01-02T03:04:05.0000006Z'", "'{1,2}'", "'{}'", `'{"a\"b"}'`}
	if !slices.Equal(got, want) {
		t.Errorf("literals = %q, want %q", got, want)
	}
	if _, err := literals([]any{struct{}{}}); err == nil {
		t.Error("literals accepted a struct")
	}
	if got := executionMs("Planning Time: 0.1 ms\nExecution Time: 12.345 ms\n"); got != 12.345 {
		t.Errorf("executionMs = %v, want 12.345", got)
	}
}

func TestLatencySVGAxisCoversSlowest(t *testing.T) {
	svg := latencySVG([]Result{{Name: "slow", Kind: "sql", P50: 1500, P95: 2500, P99: 3200}})
	if !strings.Contains(svg, ">10 s<") {
		t.Errorf("the axis of a 3.2 s p99 does not reach 10 s:\n%s", svg)
	}
}

// The cost-growth table puts each scale's run in a column, with its ratio to the 400k run's.
func TestGrowthTable(t *testing.T) {
	small, full := sampleReport(), sampleReport()
	small.Dataset.Posts, full.Dataset.Posts = 40_000, FullDataset.Posts
	for i := range small.Results {
		small.Results[i].ServerP50 = full.Results[i].ServerP50 / 2
	}
	full.Refresh.HourSeconds, small.Refresh.HourSeconds = 1.2, 0.3
	md := growthMarkdown([]Report{small, full})
	name := small.Results[0].Name
	for _, want := range []string{"| 40k posts", "| 400k posts", "(×0.5)", "| snapshot refresh of an hour (incremental) | 0.3 s (×0.25) | 1.2 s |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the growth table lacks %q:\n%s", want, md)
		}
	}
	if _, ok := small.result(name); !ok {
		t.Fatalf("sample has no %s", name)
	}
	if svg := growthSVG([]Report{small, full}); !strings.Contains(svg, "<polyline") || !strings.Contains(svg, "400k posts") {
		t.Errorf("growth.svg has no line across the scales:\n%s", svg)
	}
}

// Memory per open stream is judged on what the streams hold live (heap and stacks); runs from
// before that was measured are judged on the resident memory they measured.
func TestStreamMemoryTarget(t *testing.T) {
	tests := []struct {
		held, resident float64
		met            bool
	}{
		{held: 14, resident: 21, met: true},
		{held: 23, resident: 2, met: false},
		{held: 0, resident: 18, met: true},
		{held: 0, resident: 21, met: false},
	}
	for _, tc := range tests {
		r := Report{Live: &LiveReport{Streams: 1000, Instances: 2, HeldKiBPerStream: tc.held, KiBPerStream: tc.resident}}
		found := false
		for _, tg := range evaluate(r) {
			if strings.HasPrefix(tg.What, "memory per open stream") {
				found = true
				if tg.Met != tc.met {
					t.Errorf("held %v KiB, resident %v KiB: met = %v, want %v (%s)", tc.held, tc.resident, tg.Met, tc.met, tg.Measured)
				}
			}
		}
		if !found {
			t.Fatalf("no memory target in a report with live notices")
		}
	}
}
