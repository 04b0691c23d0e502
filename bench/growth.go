package bench

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The cost-growth table (issue 17): the same scenarios at each scale the bench has run
// (--scale 40k, 400k, 4m), side by side, from their BENCHMARKS.json where they are written
// by default: BENCHMARKS.json for 400k, bench/out/<scale>/BENCHMARKS.json for the others
// (this run stands for its own scale).

// growthFiles are where the full runs of each scale leave their reports.
var growthFiles = []string{"BENCHMARKS.json", "bench/out/40k/BENCHMARKS.json", "bench/out/400k/BENCHMARKS.json", "bench/out/4m/BENCHMARKS.json"}

// growthRuns returns this run and the newest full run of every other scale found, by size.
// Quick runs and --only runs (a few scenarios) are left out.
func growthRuns(r Report) []Report {
	full := func(x Report) bool { return !x.Settings.Quick && len(x.Results) >= 40 }
	runs := map[int]Report{}
	if full(r) {
		runs[r.Dataset.Posts] = r
	}
	for _, f := range growthFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var x Report
		if json.Unmarshal(b, &x) != nil || !full(x) || x.Dataset.Posts == r.Dataset.Posts {
			continue
		}
		if old, ok := runs[x.Dataset.Posts]; !ok || x.Date.After(old.Date) {
			runs[x.Dataset.Posts] = x
		}
	}
	out := make([]Report, 0, len(runs))
	for _, x := range runs {
		out = append(out, x)
	}
	slices.SortFunc(out, func(a, b Report) int { return cmp.Compare(a.Dataset.Posts, b.Dataset.Posts) })
	return out
}

// growthRow is one line of the table: a scenario's server-side p50, or a measure of the run.
type growthRow struct {
	label string
	value func(Report) (float64, bool)
	unit  string // "ms", "s", "MiB"
}

func scenarioP50(name string) func(Report) (float64, bool) {
	return func(r Report) (float64, bool) {
		x, ok := r.result(name)
		return x.ServerP50, ok && x.ServerP50 > 0
	}
}

var growthRows = []growthRow{
	{"first page, cold, median follower (c=4)", scenarioP50("first_cold_median"), "ms"},
	{"first page, cold, median follower (c=1)", scenarioP50("first_cold_median_c1"), "ms"},
	{"first page, cold, heavy follower (c=1)", scenarioP50("first_cold_heavy_c1"), "ms"},
	{"first page, returning, median (c=4)", scenarioP50("first_returning_median"), "ms"},
	{"next page, median (c=4)", scenarioP50("next_page_median"), "ms"},
	{"next page, median (c=1)", scenarioP50("next_page_median_c1"), "ms"},
	{"next page, heavy (c=1)", scenarioP50("next_page_heavy_c1"), "ms"},
	{"live path, median (c=4)", scenarioP50("live_median"), "ms"},
	{"filter feed: a tag, first page (c=4)", scenarioP50("filter_tag_light_first"), "ms"},
	{"filter feed: liked by, first page (c=4)", scenarioP50("filter_likes_light_first"), "ms"},
	{"search, two words, first page (c=4)", scenarioP50("search_terms_first"), "ms"},
	{"a like (c=4)", scenarioP50("like"), "ms"},
	{"a comment that bumps (c=4)", scenarioP50("comment_bump"), "ms"},
	{"a share (live notice run, p50)", func(r Report) (float64, bool) {
		return liveField(r, func(l *LiveReport) float64 { return l.ShareP50ms })
	}, "ms"},
	{"snapshot rebuilt in full", func(r Report) (float64, bool) { return r.Refresh.Seconds, r.Refresh.Seconds > 0 }, "s"},
	{"snapshot refresh of an hour (incremental)", func(r Report) (float64, bool) { return r.Refresh.HourSeconds, r.Refresh.HourSeconds > 0 }, "s"},
	{"server peak RSS", func(r Report) (float64, bool) { return float64(r.PeakRSSBytes) / (1 << 20), r.PeakRSSBytes > 0 }, "MiB"},
	{"database size", func(r Report) (float64, bool) { return float64(r.DatabaseBytes) / (1 << 20), r.DatabaseBytes > 0 }, "MiB"},
	{"seeding (and VACUUM ANALYZE)", func(r Report) (float64, bool) { return r.Dataset.SeedSeconds, r.Dataset.SeedSeconds > 0 }, "s"},
}

func liveField(r Report, f func(*LiveReport) float64) (float64, bool) {
	if r.Live == nil {
		return 0, false
	}
	v := f(r.Live)
	return v, v > 0
}

// growthMarkdown renders the table: a column per scale, each value with its ratio to the
// 400k run's where there is one.
func growthMarkdown(runs []Report) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	var base *Report
	for i := range runs {
		if runs[i].Dataset.Posts == FullDataset.Posts {
			base = &runs[i]
		}
	}
	p("| measure |")
	for _, r := range runs {
		p(" %s posts (%s) |", posts(r.Dataset.Posts), r.Date.Format("2006-01-02"))
	}
	p("\n|---|")
	for range runs {
		p("--:|")
	}
	p("\n")
	for _, row := range growthRows {
		p("| %s |", row.label)
		for _, r := range runs {
			v, ok := row.value(r)
			if !ok {
				p(" – |")
				continue
			}
			p(" %s", growthValue(v, row.unit))
			if bv, bok := row.value(deref(base)); base != nil && bok && bv > 0 && r.Dataset.Posts != base.Dataset.Posts {
				p(" (×%.2g)", v/bv)
			}
			p(" |")
		}
		p("\n")
	}
	// A run at 4M measures the pages at one client on both datasets in turn (pairs.go):
	// those ratios are of one hour of the machine.
	for _, r := range runs {
		var pairs []Target
		for _, t := range r.Targets {
			if strings.HasPrefix(t.Scenario, "growth_") {
				pairs = append(pairs, t)
			}
		}
		if len(pairs) == 0 {
			continue
		}
		p("\nMeasured in one run (%s posts, %s, commit %s): each page at one client on the %s posts dataset, then on the 400k one, scenario by scenario (`growth_*`, server-side p50; target ×1.5):\n\n",
			posts(r.Dataset.Posts), r.Date.Format("2006-01-02 15:04"), shortCommit(r.Commit), posts(r.Dataset.Posts))
		p("| page, reader | ratio (%s against 400k) | met |\n|---|--:|:-:|\n", posts(r.Dataset.Posts))
		for _, t := range pairs {
			met := "yes"
			if !t.Met {
				met = "**no**"
			}
			p("| `%s` | %s | %s |\n", strings.TrimPrefix(t.Scenario, "growth_"), t.Measured, met)
		}
	}
	return b.String()
}

// shortCommit is a commit's first 7 characters.
func shortCommit(c string) string { return c[:min(len(c), 7)] }

func deref(r *Report) Report {
	if r == nil {
		return Report{}
	}
	return *r
}

func posts(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func growthValue(v float64, unit string) string {
	switch unit {
	case "ms":
		return fmtMs(v)
	case "s":
		if v >= 10 {
			return fmt.Sprintf("%.0f s", v)
		}
		return fmt.Sprintf("%.2g s", v)
	}
	return fmt.Sprintf("%.0f %s", v, unit)
}

// growthSVG plots the latency rows of the table against the number of posts, both on
// logarithmic axes: a line per measure.
func growthSVG(runs []Report) string {
	const (
		left, top, plotW, plotH, legendW = 60, 40, 420, 300, 330
	)
	var rows []growthRow
	for _, row := range growthRows {
		if row.unit == "ms" {
			rows = append(rows, row)
		}
	}
	loP, hiP := float64(runs[0].Dataset.Posts), float64(runs[len(runs)-1].Dataset.Posts)
	if hiP <= loP {
		hiP = loP * 10
	}
	loV, hiV := 1.0, 10.0
	for _, row := range rows {
		for _, r := range runs {
			if v, ok := row.value(r); ok {
				for loV > v && loV > 0.01 {
					loV /= 10
				}
				for hiV < v {
					hiV *= 10
				}
			}
		}
	}
	x := func(n float64) float64 { return left + plotW*math.Log10(n/loP)/math.Log10(hiP/loP) }
	y := func(v float64) float64 {
		return top + plotH - plotH*math.Log10(math.Max(v, loV)/loV)/math.Log10(hiV/loV)
	}
	colors := []string{"#1f5fa8", "#6f9fd8", "#0b3d75", "#2a9d8f", "#8ab17d", "#e9c46a", "#f4a261", "#e76f51", "#9b5de5", "#f15bb5", "#00bbf9", "#555", "#d9822b", "#264653"}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w, h := left+plotW+legendW, top+plotH+50
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", w, h, w, h)
	p(`<rect width="100%%" height="100%%" fill="#fff"/>` + "\n")
	p(`<text x="10" y="18" font-size="14" font-weight="bold">Server-side p50 against the number of posts (log scales)</text>` + "\n")
	for e := int(math.Round(math.Log10(loV))); e <= int(math.Round(math.Log10(hiV))); e++ {
		gy := y(math.Pow10(e))
		p(`<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end" fill="#555">%s</text>`+"\n",
			left, gy, left+plotW, gy, left-6, gy+4, axisLabel(e))
	}
	for _, r := range runs {
		gx := x(float64(r.Dataset.Posts))
		p(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/><text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s posts</text>`+"\n",
			gx, top, gx, top+plotH, gx, top+plotH+16, posts(r.Dataset.Posts))
	}
	for i, row := range rows {
		color := colors[i%len(colors)]
		var pts []string
		for _, r := range runs {
			if v, ok := row.value(r); ok {
				px, py := x(float64(r.Dataset.Posts)), y(v)
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", px, py))
				p(`<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s at %s posts: %s</title></circle>`+"\n", px, py, color, row.label, posts(r.Dataset.Posts), fmtMs(v))
			}
		}
		if len(pts) > 1 {
			p(`<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`+"\n", strings.Join(pts, " "), color)
		}
		ly := top + 14*i
		p(`<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", left+plotW+20, ly, color, left+plotW+34, ly+9, row.label)
	}
	p("</svg>\n")
	return b.String()
}

// Render writes the report of a run again from its BENCHMARKS.json (after a run at another
// scale: the cost-growth table then has it).
func Render(jsonPath string) error {
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		return fmt.Errorf("bench: render: %w", err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("bench: render %s: %w", jsonPath, err)
	}
	r.Targets = evaluate(r) // as this version of the bench judges them
	return writeReport(filepath.Dir(jsonPath), r)
}
