package bench

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// The capacity model (issue 48, point 7): what one app core, one primary core and one
// instance hold, and when a deployment needs its next piece, computed from a run's measured
// figures and the stated assumptions below. docs/capacity.md explains it.

// Assumptions of the model: what a deployment plans for, not what the bench measured.
const (
	capUtilisation      = 0.7  // a core is planned busy at most this share of the time
	capStreamMiB        = 1024 // memory an instance gives its open streams
	capNoticesPerSecond = 0.1  // how often a stream tells its notice, on average (one share it hears every 10 s)
	capReadsPerWrite    = 20   // page reads per write (share, like or comment) of the site
	capPrimaryCores     = 8    // the primary the thresholds are stated for
	capPrimaryRAMGiB    = 64   // its memory
	capLargestCores     = 64   // the largest single machine a primary is bought as
	capHotRAMShare      = 0.5  // posts and events may take this share of the primary's memory
)

// mixPart is a scenario and its share of a mix.
type mixPart struct {
	Scenario string
	Weight   float64
}

// readMix is the page mix of a logged-in reader's visit (the front page's cache hits for
// the anonymous visitors among them).
var readMix = []mixPart{
	{"first_cold_median", 30},
	{"first_reload_median", 20},
	{"next_page_median", 20},
	{"post_page_200", 10},
	{"filter_tag_light_first", 5},
	{"search_terms_first", 5},
	{"anon_html_hit", 10},
}

// writeMix is the site's writes: a share is ten likes' worth of traffic.
var writeMix = []mixPart{{"share", 10}, {"like", 60}, {"comment_bump", 30}}

// mixCost is a mix's CPU per request, weighted over the parts measured.
type mixCost struct {
	AppMs, PgMs float64
	Used        []mixPart // the parts measured, with their CPU
	Missing     []string  // the parts this run did not measure
}

// cpuOf is a scenario's app and PostgreSQL CPU per request; "share" is the live run's
// shares with no stream open (a share is no scenario of its own).
func (r Report) cpuOf(name string) (app, pg float64, ok bool) {
	if name == "share" {
		if r.Live == nil || r.Live.SharePgCPUms <= 0 {
			return 0, 0, false
		}
		return r.Live.ShareAppCPUms, r.Live.SharePgCPUms, true
	}
	x, found := r.result(name)
	// A scenario with no app CPU is SQL alone: not a page of the app.
	return x.AppCPUms, x.PgCPUms, found && x.AppCPUms > 0
}

// weigh is the mix's CPU per request: the weighted mean over the parts r measured.
func weigh(r Report, mix []mixPart) mixCost {
	var c mixCost
	var total float64
	for _, m := range mix {
		app, pg, ok := r.cpuOf(m.Scenario)
		if !ok {
			c.Missing = append(c.Missing, m.Scenario)
			continue
		}
		c.Used = append(c.Used, m)
		c.AppMs += m.Weight * app
		c.PgMs += m.Weight * pg
		total += m.Weight
	}
	if total > 0 {
		c.AppMs, c.PgMs = c.AppMs/total, c.PgMs/total
	}
	return c
}

// perCore is how many requests a second one core serves at cpuMs of CPU each, fully busy.
func perCore(cpuMs float64) float64 {
	if cpuMs <= 0 {
		return 0
	}
	return 1000 / cpuMs
}

// rowBytes is what a kind of row takes on disk, its indexes and TOAST included.
type rowBytes struct {
	Kind, Table string
	Rows, Bytes int64
}

func (b rowBytes) per() float64 {
	if b.Rows <= 0 {
		return 0
	}
	return float64(b.Bytes) / float64(b.Rows)
}

// capacityTables are the tables whose bytes per row the model states, and the kind of
// row each holds.
var capacityTables = []struct{ Kind, Table string }{
	{"post", "posts"}, {"post's destination", "feed_posts"}, {"like", "likes"}, {"comment", "comments"},
	{"notification", "notifications"}, {"event", "events"},
}

// TableSize is a table's rows and its total size (indexes and TOAST included).
type TableSize struct {
	Table string `json:"table"`
	Rows  int64  `json:"rows"`
	Bytes int64  `json:"bytes"`
}

// tableSizes measures capacityTables in the bench database.
func tableSizes(ctx context.Context, pool *pgxpool.Pool) ([]TableSize, error) {
	var out []TableSize
	for _, t := range capacityTables {
		s := TableSize{Table: t.Table}
		// The table names are this file's constants, not input.
		if err := pool.QueryRow(ctx, fmt.Sprintf(`SELECT count(*), pg_total_relation_size('%s') FROM %s`, t.Table, t.Table)).Scan(&s.Rows, &s.Bytes); err != nil {
			return nil, fmt.Errorf("bench: size of %s: %w", t.Table, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// Capacity is the model's figures for a run (0 where the run did not measure an input).
type Capacity struct {
	Reads, Writes   mixCost
	ReadsPerAppCore float64 // 1000 / app ms per read
	ReadsPerPgCore  float64 // 1000 / PostgreSQL ms per read (a replica's core)
	WritesPerCore   map[string]float64
	WriteMixPerCore float64 // 1000 / PostgreSQL ms per write of the mix
	// Streams per instance: by memory (capStreamMiB / held KiB per stream) and by CPU
	// (one core at capUtilisation over the asks a stream costs a second).
	StreamsByMemory, StreamsByCPU float64
	Bytes                         []rowBytes
	// Thresholds: reads a second past which an capPrimaryCores primary needs a replica
	// (with its share of writes), writes a second past which the largest primary needs a
	// second one, and posts past which posts and events want partitioning by time.
	ReplicaReads, SecondPrimaryWrites, PartitionPosts float64
	EventsPerPost, BytesPerPostWithEvents             float64
}

// capacity computes the model from r.
func capacity(r Report) Capacity {
	c := Capacity{Reads: weigh(r, readMix), Writes: weigh(r, writeMix), WritesPerCore: map[string]float64{}}
	c.ReadsPerAppCore = perCore(c.Reads.AppMs)
	c.ReadsPerPgCore = perCore(c.Reads.PgMs)
	for _, m := range writeMix {
		if _, pg, ok := r.cpuOf(m.Scenario); ok {
			c.WritesPerCore[m.Scenario] = perCore(pg)
		}
	}
	c.WriteMixPerCore = perCore(c.Writes.PgMs)
	if l := r.Live; l != nil {
		if l.HeldKiBPerStream > 0 {
			c.StreamsByMemory = capStreamMiB * 1024 / l.HeldKiBPerStream
		}
		if l.CPUusPerNotice > 0 {
			c.StreamsByCPU = capUtilisation * 1e6 / (l.CPUusPerNotice * capNoticesPerSecond)
		}
	}
	for _, t := range capacityTables {
		for _, s := range r.Tables {
			if s.Table == t.Table {
				c.Bytes = append(c.Bytes, rowBytes{Kind: t.Kind, Table: t.Table, Rows: s.Rows, Bytes: s.Bytes})
			}
		}
	}
	// A primary's CPU a second: R reads × read ms + R/capReadsPerWrite writes × write ms.
	if perRead := c.Reads.PgMs + c.Writes.PgMs/capReadsPerWrite; c.Reads.PgMs > 0 && c.Writes.PgMs > 0 {
		c.ReplicaReads = capUtilisation * capPrimaryCores * 1000 / perRead
	}
	if c.Writes.PgMs > 0 {
		c.SecondPrimaryWrites = capUtilisation * capLargestCores * 1000 / c.Writes.PgMs
	}
	var post, event rowBytes
	for _, b := range c.Bytes {
		switch b.Table {
		case "posts":
			post = b
		case "events":
			event = b
		}
	}
	switch {
	case post.Rows > 0 && post.per() > 0:
		c.EventsPerPost = float64(event.Rows) / float64(post.Rows)
		c.BytesPerPostWithEvents = post.per() + c.EventsPerPost*event.per()
	case r.DatabaseBytes > 0 && r.Dataset.PostCount > 0:
		// Runs before the tables were measured: the whole database's bytes per post, an
		// upper bound of what a post and its events take.
		c.BytesPerPostWithEvents = float64(r.DatabaseBytes) / float64(r.Dataset.PostCount)
	}
	if c.BytesPerPostWithEvents > 0 {
		c.PartitionPosts = capHotRAMShare * capPrimaryRAMGiB * (1 << 30) / c.BytesPerPostWithEvents
	}
	return c
}

// capacityMarkdown renders the model's section of BENCHMARKS.md: each figure with its
// formula and inputs; growth are the runs of the cost-growth table.
func capacityMarkdown(r Report, growth []Report) string {
	c := capacity(r)
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	notMeasured := "not measured in this run"
	p("What one core and one instance hold, from this run's figures (docs/capacity.md explains the model). CPU per request is the Results table's (app: the server process; PostgreSQL: the backends of the bench database), measured at 4 clients on a shared %d-core machine, so it includes the cost of contention. Assumptions: a core is planned %.0f%% busy; a primary of %d cores and %d GiB; the largest primary %d cores; %d page reads per write.\n\n",
		r.Machine.Cores, 100*capUtilisation, capPrimaryCores, capPrimaryRAMGiB, capLargestCores, capReadsPerWrite)

	p("Page mix (weight, app CPU, PostgreSQL CPU per request):")
	for _, m := range c.Reads.Used {
		app, pg, _ := r.cpuOf(m.Scenario)
		p(" `%s` %.0f%% (%s, %s);", m.Scenario, m.Weight, fmtMs(app), fmtMs(pg))
	}
	if len(c.Reads.Missing) > 0 {
		p(" %s: %s (weights renormalised);", notMeasured, strings.Join(codes(c.Reads.Missing), ", "))
	}
	p(" weighted: app %.3f ms, PostgreSQL %.3f ms a read.\n\n", c.Reads.AppMs, c.Reads.PgMs)

	p("| figure | formula (inputs) | value |\n|---|---|--:|\n")
	row := func(what, formula string, v float64, unit string) {
		if v <= 0 {
			p("| %s | %s | %s |\n", what, formula, notMeasured)
			return
		}
		p("| %s | %s | %s%s |\n", what, formula, figure(v), unit)
	}
	row("readers per second per app core", fmt.Sprintf("1000 / app ms per read (%.3f)", c.Reads.AppMs), c.ReadsPerAppCore, "/s")
	row("readers per second per PostgreSQL core (primary or replica)", fmt.Sprintf("1000 / PostgreSQL ms per read (%.3f)", c.Reads.PgMs), c.ReadsPerPgCore, "/s")
	for _, m := range writeMix {
		_, pg, ok := r.cpuOf(m.Scenario)
		formula := "1000 / PostgreSQL ms per write"
		if ok {
			formula += fmt.Sprintf(" (%.3f)", pg)
		}
		row(fmt.Sprintf("writes per second per primary core: %s", writeName(m.Scenario)), formula, c.WritesPerCore[m.Scenario], "/s")
	}
	mixNote := ""
	if len(c.Writes.Missing) > 0 {
		var missing []string
		for _, m := range c.Writes.Missing {
			missing = append(missing, writeName(m))
		}
		mixNote = fmt.Sprintf("; %s %s, the rest renormalised", strings.Join(missing, ", "), notMeasured)
	}
	row("writes per second per primary core, the write mix", fmt.Sprintf("1000 / weighted PostgreSQL ms (%.3f; %s%s)", c.Writes.PgMs, mixWeights(writeMix), mixNote), c.WriteMixPerCore, "/s")
	heldKiB, noticeUs := 0.0, 0.0
	if r.Live != nil {
		heldKiB, noticeUs = r.Live.HeldKiBPerStream, r.Live.CPUusPerNotice
	}
	row("live streams per instance, memory-bound", fmt.Sprintf("%d MiB × 1024 / held KiB per stream (%.3f)", capStreamMiB, heldKiB), c.StreamsByMemory, "")
	formula := fmt.Sprintf("%.1f × 10⁶ µs / (µs per notice × notices per stream a second (%g))", capUtilisation, capNoticesPerSecond)
	if noticeUs > 0 {
		formula = fmt.Sprintf("%.1f × 10⁶ µs / (µs per notice (%.1f) × notices per stream a second (%g))", capUtilisation, noticeUs, capNoticesPerSecond)
	}
	row("live streams per instance core, CPU-bound (each share tells every stream of a follower its notice once)", formula, c.StreamsByCPU, "")
	for _, k := range capacityTables {
		formula, v := fmt.Sprintf("pg_total_relation_size('%s') / rows", k.Table), 0.0
		for _, x := range c.Bytes {
			if x.Table == k.Table {
				formula, v = fmt.Sprintf("pg_total_relation_size('%s') (%s) / rows (%d)", x.Table, mib(x.Bytes), x.Rows), x.per()
			}
		}
		row("bytes per "+k.Kind, formula, v, " B")
	}
	if r.DatabaseBytes > 0 && r.Dataset.PostCount > 0 {
		row("database bytes per post, everything included", fmt.Sprintf("database size (%s) / posts (%d)", mib(r.DatabaseBytes), r.Dataset.PostCount),
			float64(r.DatabaseBytes)/float64(r.Dataset.PostCount), " B")
	}
	p("\nThresholds:\n\n")
	threshold := func(what string, v float64, text string) {
		if v <= 0 {
			p("- %s: %s.\n", what, notMeasured)
			return
		}
		p("- %s: %s.\n", what, text)
	}
	threshold("A read replica", c.ReplicaReads, fmt.Sprintf("past **%s page reads a second** on a %d-core primary: %.1f × %d cores × 1000 / (read ms %.3f + write ms %.3f / %d reads per write). Past it, feed reads go to replicas, each core of which serves %s reads a second",
		figure(c.ReplicaReads), capPrimaryCores, capUtilisation, capPrimaryCores, c.Reads.PgMs, c.Writes.PgMs, capReadsPerWrite, figure(c.ReadsPerPgCore*capUtilisation)))
	perPost := fmt.Sprintf("bytes per post %.0f + events per post %.1f × bytes per event %.0f = %.0f B", bytesOf(c.Bytes, "posts"), c.EventsPerPost, bytesOf(c.Bytes, "events"), c.BytesPerPostWithEvents)
	if bytesOf(c.Bytes, "posts") == 0 {
		perPost = fmt.Sprintf("the database's bytes per post, everything included, %.0f B: table sizes %s", c.BytesPerPostWithEvents, notMeasured)
	}
	threshold("Partitioning posts and events by time", c.PartitionPosts, fmt.Sprintf("past **%s posts**: when posts and their events outgrow %.0f%% of the primary's %d GiB: %.2f × %d GiB / (%s)",
		figure(c.PartitionPosts), 100*capHotRAMShare, capPrimaryRAMGiB, capHotRAMShare, capPrimaryRAMGiB, perPost))
	threshold("A second primary (inboxes sharded by recipient)", c.SecondPrimaryWrites, fmt.Sprintf("past **%s writes a second** (%s page reads a second at %d reads per write), when the largest primary's cores are busy with writes alone, reads on replicas: %.1f × %d cores × 1000 / write ms %.3f",
		figure(c.SecondPrimaryWrites), figure(c.SecondPrimaryWrites*capReadsPerWrite), capReadsPerWrite, capUtilisation, capLargestCores, c.Writes.PgMs))
	p("\n%s", growthTenfold(r, growth))
	return b.String()
}

// growthTenfold renders the ×10 rows: each measure's ratio between consecutive scales of
// the cost-growth table, or a projection from this run's bytes when it has one scale.
func growthTenfold(r Report, growth []Report) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	if len(growth) < 2 {
		p("The ×10 growth rows: this rendering found the run of one scale only (runs at others, `make bench SCALE=40k|4m`, leave theirs in bench/out/<scale>/BENCHMARKS.json; where a report has a Cost growth table, its × against the 400k run is the ×10 row). Projected from this run's bytes alone, ×10 posts is a database of %s (10 × %s, rows growing with posts).\n", mib(10*r.DatabaseBytes), mib(r.DatabaseBytes))
		return b.String()
	}
	p("The ×10 growth rows (each measure at the larger scale over the smaller; from the cost-growth table):\n\n| measure |")
	for i := 1; i < len(growth); i++ {
		p(" %s → %s posts |", posts(growth[i-1].Dataset.Posts), posts(growth[i].Dataset.Posts))
	}
	p("\n|---|")
	for i := 1; i < len(growth); i++ {
		p("--:|")
	}
	p("\n")
	for _, row := range growthRows {
		p("| %s |", row.label)
		for i := 1; i < len(growth); i++ {
			lo, okLo := row.value(growth[i-1])
			hi, okHi := row.value(growth[i])
			if okLo && okHi && lo > 0 {
				p(" ×%.2f |", hi/lo)
			} else {
				p(" – |")
			}
		}
		p("\n")
	}
	return b.String()
}

// writeName is how the model names a write scenario.
func writeName(s string) string {
	switch s {
	case "comment_bump":
		return "comment"
	}
	return s
}

func mixWeights(mix []mixPart) string {
	var parts []string
	for _, m := range mix {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", writeName(m.Scenario), m.Weight))
	}
	return strings.Join(parts, ", ")
}

func bytesOf(bs []rowBytes, table string) float64 {
	for _, b := range bs {
		if b.Table == table {
			return b.per()
		}
	}
	return 0
}

// figure renders a figure to three significant digits, with thousands separated.
func figure(v float64) string {
	if v > 0 {
		v = roundSig(v, 3)
	}
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.3g billion", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.3g million", v/1e6)
	case v >= 1000:
		s := fmt.Sprintf("%.0f", v)
		return s[:len(s)-3] + "," + s[len(s)-3:]
	case v >= 10:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2g", v)
}

// roundSig rounds v to its first digits significant digits.
func roundSig(v float64, digits int) float64 {
	scale := math.Pow10(digits - 1 - int(math.Floor(math.Log10(v))))
	return math.Round(v*scale) / scale
}

func mib(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}
