package bench

import (
	"context"
	"math"
	"strings"
	"testing"
)

// capacityReport is a run with round figures, so that each of the model's numbers can be
// worked out by hand.
func capacityReport() Report {
	r := Report{DatabaseBytes: 4000, Dataset: DatasetInfo{PostCount: 4}}
	// Every page of the read mix costs 0.5 ms of app CPU and 0.25 ms of PostgreSQL, except
	// the front page's cache hit (10% of the mix): 0.05 ms app, nothing in PostgreSQL.
	for _, m := range readMix {
		res := Result{Name: m.Scenario, AppCPUms: 0.5, PgCPUms: 0.25}
		if m.Scenario == "anon_html_hit" {
			res = Result{Name: m.Scenario, AppCPUms: 0.05}
		}
		r.Results = append(r.Results, res)
	}
	r.Results = append(r.Results,
		Result{Name: "like", AppCPUms: 0.3, PgCPUms: 0.5},
		Result{Name: "comment_bump", AppCPUms: 0.4, PgCPUms: 1},
		Result{Name: "baseline_naive_light", PgCPUms: 9}) // SQL alone: no page
	r.Live = &LiveReport{HeldKiBPerStream: 16, CPUusPerNotice: 50, ShareAppCPUms: 1, SharePgCPUms: 2}
	r.Tables = []TableSize{
		{Table: "posts", Rows: 1000, Bytes: 1_000_000},  // 1000 B a post
		{Table: "events", Rows: 10_000, Bytes: 500_000}, // 50 B an event, 10 a post
		{Table: "likes", Rows: 4, Bytes: 400},
	}
	return r
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestCapacityModel(t *testing.T) {
	full := capacity(capacityReport())
	noLive := capacityReport()
	noLive.Live, noLive.Tables = nil, nil
	partial := capacity(noLive)

	tests := []struct {
		name      string
		got, want float64
	}{
		// Reads: 90% at 0.5 ms and 10% at 0.05 ms of app CPU: 0.455 ms; PostgreSQL 0.225 ms.
		{"app ms per read, weighted", full.Reads.AppMs, 0.455},
		{"PostgreSQL ms per read, weighted", full.Reads.PgMs, 0.225},
		{"readers per app core", full.ReadsPerAppCore, 1000 / 0.455},
		{"readers per PostgreSQL core", full.ReadsPerPgCore, 1000 / 0.225},
		// Writes: share 10% at 2 ms, like 60% at 0.5 ms, comment 30% at 1 ms: 0.8 ms.
		{"PostgreSQL ms per write, weighted", full.Writes.PgMs, 0.8},
		{"shares per primary core", full.WritesPerCore["share"], 500},
		{"likes per primary core", full.WritesPerCore["like"], 2000},
		{"comments per primary core", full.WritesPerCore["comment_bump"], 1000},
		{"writes of the mix per primary core", full.WriteMixPerCore, 1250},
		// Without the share measured, like 60 and comment 30 renormalised: (30+30)/90 ms.
		{"write mix without shares", partial.Writes.PgMs, 60.0 / 90},
		// 1024 MiB over 16 KiB a stream.
		{"streams by memory", full.StreamsByMemory, 65536},
		// 0.7 s of a core's second over 50 µs an ask at 0.1 asks a stream a second.
		{"streams by CPU", full.StreamsByCPU, 0.7e6 / (50 * 0.1)},
		{"streams by CPU, not measured", partial.StreamsByCPU, 0},
		// 0.7 × 8 cores × 1000 / (0.225 + 0.8/20).
		{"reads needing a replica", full.ReplicaReads, 0.7 * 8 * 1000 / (0.225 + 0.04)},
		// 0.7 × 64 cores × 1000 / 0.8.
		{"writes needing a second primary", full.SecondPrimaryWrites, 56000},
		// A post is 1000 B with 10 events of 50 B: 1500 B; half of 64 GiB over it.
		{"events per post", full.EventsPerPost, 10},
		{"bytes per post with its events", full.BytesPerPostWithEvents, 1500},
		{"posts needing partitioning", full.PartitionPosts, 0.5 * 64 * (1 << 30) / 1500},
		// Without table sizes: the database's 4000 B over 4 posts.
		{"posts needing partitioning, from the database size", partial.PartitionPosts, 0.5 * 64 * (1 << 30) / 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !near(tt.got, tt.want) {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
	if got := bytesOf(full.Bytes, "likes"); got != 100 {
		t.Errorf("bytes per like: got %v, want 100", got)
	}
}

func TestCapacityMarkdown(t *testing.T) {
	old := capacityReport()
	old.Live, old.Tables = &LiveReport{HeldKiBPerStream: 16}, nil
	tests := []struct {
		name string
		r    Report
		want []string
	}{
		{"every input measured", capacityReport(), []string{
			"| readers per second per app core | 1000 / app ms per read (0.455) | 2,200/s |",
			"| writes per second per primary core: share | 1000 / PostgreSQL ms per write (2.000) | 500/s |",
			"| live streams per instance, memory-bound | 1024 MiB × 1024 / held KiB per stream (16.000) | 65,500 |",
			"| bytes per post | pg_total_relation_size('posts') (1.0 MiB) / rows (1000) | 1,000 B |",
			"past **56,000 writes a second**",
		}},
		{"an older run without the new figures", old, []string{
			"| writes per second per primary core: share | 1000 / PostgreSQL ms per write | not measured in this run |",
			"| bytes per notification | pg_total_relation_size('notifications') / rows | not measured in this run |",
			"(µs per notice × notices per stream a second (0.1)) | not measured in this run |",
			"share not measured in this run, the rest renormalised",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md := capacityMarkdown(tt.r, nil)
			for _, w := range tt.want {
				if !strings.Contains(md, w) {
					t.Errorf("missing %q in:\n%s", w, md)
				}
			}
		})
	}
}

func TestFigure(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0.5, "0.5"}, {12.4, "12"}, {1234, "1,230"}, {65536, "65,500"}, {999_999, "1 million"}, {2_620_000, "2.62 million"}, {3.1e9, "3.1 billion"},
	}
	for _, tt := range tests {
		if got := figure(tt.v); got != tt.want {
			t.Errorf("figure(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestGrowthTenfold(t *testing.T) {
	small := Report{Dataset: DatasetInfo{Dataset: Dataset{Posts: 400_000}}, PeakRSSBytes: 100 << 20, DatabaseBytes: 1 << 30,
		Results: []Result{{Name: "like", ServerP50: 2}}}
	large := Report{Dataset: DatasetInfo{Dataset: Dataset{Posts: 4_000_000}}, PeakRSSBytes: 300 << 20, DatabaseBytes: 7 << 30,
		Results: []Result{{Name: "like", ServerP50: 5}}}
	md := growthTenfold(large, []Report{small, large})
	for _, w := range []string{"| 400k → 4M posts |", "| server peak RSS | ×3.00 |", "| database size | ×7.00 |", "| a like (c=4) | ×2.50 |", "| live path, median (c=4) | – |"} {
		if !strings.Contains(md, w) {
			t.Errorf("missing %q in:\n%s", w, md)
		}
	}
	if md := growthTenfold(small, []Report{small}); !strings.Contains(md, "a database of 10.0 GiB (10 × 1.0 GiB") {
		t.Errorf("one scale: want the projection from the database's size, got:\n%s", md)
	}
}

// The bench measures each table's rows and its size on disk, indexes included.
func TestTableSizes(t *testing.T) {
	ctx := context.Background()
	pool := smallWorld(t)
	got, err := tableSizes(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(capacityTables) {
		t.Fatalf("got %d tables, want %d", len(got), len(capacityTables))
	}
	for _, s := range got {
		var rows, bytes int64
		if err := pool.QueryRow(ctx, "SELECT count(*), pg_total_relation_size('"+s.Table+"') FROM "+s.Table).Scan(&rows, &bytes); err != nil {
			t.Fatal(err)
		}
		if s.Rows != rows || s.Bytes != bytes {
			t.Errorf("%s: got %d rows in %d bytes, want %d in %d", s.Table, s.Rows, s.Bytes, rows, bytes)
		}
		if s.Table == "posts" && (s.Rows < 30 || s.Bytes <= 0) {
			t.Errorf("posts: got %d rows in %d bytes, want the 30 seeded", s.Rows, s.Bytes)
		}
	}
}
