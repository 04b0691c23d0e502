package bench

import "time"

// What a run measured: the report BENCHMARKS.md and BENCHMARKS.json are made from.

// Report is everything a run measured; BENCHMARKS.md and BENCHMARKS.json are made from it.
type Report struct {
	Date     time.Time     `json:"date"`
	Commit   string        `json:"commit"`
	Machine  Machine       `json:"machine"`
	Dataset  DatasetInfo   `json:"dataset"`
	Settings Settings      `json:"settings"`
	Results  []Result      `json:"scenarios"`
	Refresh  RefreshReport `json:"snapshot_refresh"`
	// PeakRSS is the server process's peak resident set size (VmHWM) at the end of the run.
	PeakRSSBytes int64 `json:"server_peak_rss_bytes"`
	// DatabaseBytes is the bench database's size at the end of the run.
	DatabaseBytes int64            `json:"database_bytes"`
	Viewers       []ClassInfo      `json:"viewers"`
	Targets       []Target         `json:"targets"`
	Ratios        []Ratio          `json:"baseline_ratios"`
	Plans         []PlanCheck      `json:"plan_checks"`
	PlanCache     []PlanCacheCheck `json:"plan_cache"`
	Explains      []explainFile    `json:"explains,omitempty"`
	Breakdown     []CaseTiming     `json:"query_breakdown"`
	Rerun         string           `json:"rerun"`
	// The machine's load averages (/proc/loadavg) before and after: other work on the
	// machine shows here.
	LoadBefore string `json:"loadavg_before"`
	LoadAfter  string `json:"loadavg_after"`
	// Live notices (seed 002's tier 1), when measured.
	Live *LiveReport `json:"live_notices,omitempty"`
	// Tables are the rows and bytes of the tables the capacity model states bytes per row of.
	Tables []TableSize `json:"table_sizes,omitempty"`
}

// Settings are how the load was applied.
type Settings struct {
	Concurrency           int     `json:"concurrency"`
	ThroughputConcurrency int     `json:"throughput_concurrency"`
	UnloadedConcurrency   int     `json:"unloaded_concurrency,omitempty"`
	WarmupSeconds         float64 `json:"warmup_seconds"`
	DurationSeconds       float64 `json:"duration_seconds"`
	PageSize              int     `json:"page_size"`
	Quick                 bool    `json:"quick"`
	// PlanCacheMode is plan_cache_mode in the server's database sessions (db.Open's settings).
	PlanCacheMode string `json:"plan_cache_mode"`
	// Rivers: the server ran with TRIBUTARY_RIVERS=on (its environment is the bench's).
	Rivers bool `json:"rivers,omitempty"`
}

// RefreshReport is the startup snapshot refresh of the server (a full rebuild), and an
// incremental refresh over the last hour, made after the scenarios while the server serves.
type RefreshReport struct {
	Seconds     float64 `json:"seconds"`
	Result      string  `json:"result"`
	HourSeconds float64 `json:"hour_seconds"`
	HourRedone  int     `json:"hour_redone"`
}

// ClassInfo describes the viewers of a follower class.
type ClassInfo struct {
	Class        string `json:"class"`
	Target       int    `json:"target_followees"`
	Viewers      int    `json:"viewers"`
	MinFollowees int    `json:"min_followees"`
	MaxFollowees int    `json:"max_followees"`
}

// CaseTiming is one in-process request of a plan case: wall time and database time.
type CaseTiming struct {
	Case     string  `json:"case"`
	WallMs   float64 `json:"wall_ms"`
	DBMs     float64 `json:"db_ms"`
	Queries  int     `json:"queries"`
	Slowest  string  `json:"slowest_query"`
	SlowedMs float64 `json:"slowest_query_ms"`
}
