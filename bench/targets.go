package bench

import (
	"fmt"
	"strings"
)

// Target is one of the performance targets, measured.
type Target struct {
	What     string `json:"target"`
	Scenario string `json:"scenario,omitempty"`
	Measured string `json:"measured"`
	Met      bool   `json:"met"`
}

// evaluate checks the targets against the results. Latency targets are server-side
// (the words): the server's Server-Timing figures; the client's are shown beside.
func evaluate(r Report) []Target {
	var out []Target
	lat := func(x Result, p50, p99 bool) string {
		var parts []string
		if p50 {
			parts = append(parts, fmt.Sprintf("p50 %s", fmtMs(x.ServerP50)))
		}
		if p99 {
			parts = append(parts, fmt.Sprintf("p99 %s", fmtMs(x.ServerP99)))
		}
		m := strings.Join(parts, ", ") + " (client-side p50 " + fmtMs(x.P50)
		if p99 {
			m += ", p99 " + fmtMs(x.P99)
		}
		return m + ")"
	}
	for _, sfx := range r.loads() {
		for _, prefix := range []string{"first_cold_", "first_returning_", "first_reload_", "list_first_"} { // a list's first page is judged as the home's
			for _, c := range []string{"light", "median", "heavy"} {
				name := prefix + c + sfx
				if x, ok := r.result(name); ok {
					out = append(out, Target{What: "logged-in first page p50 ≤ 10 ms and p99 ≤ 40 ms", Scenario: name,
						Measured: lat(x, true, true), Met: x.Requests > 0 && x.ServerP50 <= 10 && x.ServerP99 <= 40})
				}
			}
		}
		// Issue 15: an active reader's home first page, at one client, and at four no slower
		// than a first page ranked afresh.
		for _, c := range []string{"light", "median", "heavy"} {
			x, ok := r.result("first_reload_" + c + sfx)
			if !ok {
				continue
			}
			if sfx != "" && r.Settings.UnloadedConcurrency == 1 {
				arrivals := "arrivals read by fanout on read"
				if r.Settings.Rivers {
					arrivals = "arrivals read from the reader's river"
				}
				out = append(out, Target{What: "an active reader's home first page p50 ≤ 1.0 ms at 1 client", Scenario: x.Name,
					Measured: lat(x, true, false) + "; " + arrivals, Met: x.Requests > 0 && x.ServerP50 <= 1.0})
			}
			if cold, ok := r.result("first_cold_" + c + sfx); ok && sfx == "" {
				out = append(out, Target{What: "an active reader's home first page no slower than a cold first page at 4 clients (p50)", Scenario: x.Name,
					Measured: fmt.Sprintf("%s against %s", fmtMs(x.ServerP50), fmtMs(cold.ServerP50)), Met: x.Requests > 0 && x.ServerP50 <= cold.ServerP50})
			}
		}
		for _, c := range []string{"light", "median", "heavy"} {
			if x, ok := r.result("next_page_" + c + sfx); ok {
				out = append(out, Target{What: "next page p50 ≤ 3 ms", Scenario: x.Name, Measured: lat(x, true, false), Met: x.Requests > 0 && x.ServerP50 <= 3})
			}
		}
		for _, c := range []string{"light", "median", "heavy"} {
			if x, ok := r.result("live_" + c + sfx); ok {
				out = append(out, Target{What: "live path p50 ≤ 100 ms", Scenario: x.Name, Measured: lat(x, true, false), Met: x.Requests > 0 && x.ServerP50 <= 100})
			}
		}
	}
	for _, name := range []string{"anon_json_hit", "anon_html_hit", "anon_html_gzip_hit"} {
		if x, ok := r.result(name); ok {
			m := fmt.Sprintf("%.0f req/s at concurrency %d", x.RPS, x.Concurrency)
			if x.AppCPUms > 0 {
				// What the server alone could do with every core: the driver shares them here.
				m += fmt.Sprintf(" (server CPU %s per request: at most ~%.0f req/s on %d cores)",
					fmtMs(x.AppCPUms), float64(max(r.Machine.Cores, 1))*1000/x.AppCPUms, r.Machine.Cores)
			}
			what, floor := "cached anonymous page ≥ 10,000 requests/s", 10_000.0
			if name == "anon_html_gzip_hit" { // as browsers ask for it: compressed once, served as bytes
				what, floor = "cached anonymous page, gzip, ≥ 20,000 requests/s at 16 clients", 20_000
			}
			out = append(out, Target{What: what, Scenario: name, Measured: m, Met: x.RPS >= floor})
		}
	}
	for _, k := range filterKinds {
		for _, weight := range []string{"light", "heavy"} {
			name := "filter_" + k.name + "_" + weight
			if x, ok := r.result(name + "_first"); ok {
				out = append(out, Target{What: "filter feed first page p50 ≤ 5 ms", Scenario: x.Name, Measured: lat(x, true, false), Met: x.Requests > 0 && x.ServerP50 <= 5})
			}
			if x, ok := r.result(name + "_next"); ok {
				out = append(out, Target{What: "filter feed next page p50 ≤ 3 ms", Scenario: x.Name, Measured: lat(x, true, false), Met: x.Requests > 0 && x.ServerP50 <= 3})
			}
		}
	}
	if x, ok := r.result("directs_first"); ok {
		out = append(out, Target{What: "directs page first page p50 ≤ 5 ms", Scenario: x.Name, Measured: lat(x, true, false), Met: x.Requests > 0 && x.ServerP50 <= 5})
	}
	for _, kind := range []string{"terms", "operator"} {
		if x, ok := r.result("search_" + kind + "_first"); ok {
			out = append(out, Target{What: "search first page p50 ≤ 20 ms", Scenario: x.Name, Measured: lat(x, true, false), Met: x.Requests > 0 && x.ServerP50 <= 20})
		}
		if x, ok := r.result("search_" + kind + "_next"); ok {
			out = append(out, Target{What: "search next page p50 ≤ 5 ms", Scenario: x.Name, Measured: lat(x, true, false), Met: x.Requests > 0 && x.ServerP50 <= 5})
		}
	}
	for _, t := range []struct {
		name, what string
		ms         float64
	}{{"like", "like p50 ≤ 3 ms", 3}, {"comment_bump", "comment with its bump p50 ≤ 5 ms", 5}, {"post_page_200", "post page with 200 comments p50 ≤ 5 ms", 5}} {
		if x, ok := r.result(t.name); ok {
			out = append(out, Target{What: t.what, Scenario: x.Name, Measured: lat(x, true, false), Met: x.Requests > 0 && x.ServerP50 <= t.ms})
		}
	}
	out = append(out, pairTargets(r)...)
	out = append(out, pooledTargets(r)...)
	out = append(out, notifyTargets(r)...)
	out = append(out, Target{What: "snapshot refresh ≤ 20 s", Measured: fmt.Sprintf("%.1f s", r.Refresh.Seconds), Met: r.Refresh.Seconds > 0 && r.Refresh.Seconds <= 20})
	// The peer (issue 17): the whole page against FreeFeed's home-feed query alone, at pages
	// 10 and 1. The naive baseline stays as a reference row (unranked, undeduplicated: a
	// ratio to it measured the wrong thing).
	for _, c := range []string{"light", "median", "heavy"} {
		if peer, ok := r.result("peer_freefeed_p10_" + c); ok && peer.ServerP50 > 0 {
			if x, ok := r.result("next_page_" + c); ok && x.ServerP50 > 0 {
				ratio := peer.ServerP50 / x.ServerP50
				out = append(out, Target{What: "a next page ≥ 3× faster than FreeFeed's home query alone at page 10 (p50)", Scenario: x.Name,
					Measured: fmt.Sprintf("%.2f× (FreeFeed's query %s, ours %s server-side)", ratio, fmtMs(peer.ServerP50), fmtMs(x.ServerP50)), Met: ratio >= 3})
			}
		}
		if peer, ok := r.result("peer_freefeed_p1_" + c); ok && peer.ServerP50 > 0 {
			if x, ok := r.result("first_cold_" + c); ok && x.ServerP50 > 0 {
				out = append(out, Target{What: "a cold first page no slower than FreeFeed's home query alone at page 1 (p50)", Scenario: x.Name,
					Measured: fmt.Sprintf("%.2f× (FreeFeed's query %s, ours %s server-side)", peer.ServerP50/x.ServerP50, fmtMs(peer.ServerP50), fmtMs(x.ServerP50)),
					Met:      x.ServerP50 <= peer.ServerP50})
			}
		}
	}
	errs := 0
	for _, x := range r.Results {
		errs += x.Errors
	}
	out = append(out, Target{What: "zero errors", Measured: fmt.Sprintf("%d errors", errs), Met: errs == 0})
	if l := r.Live; l != nil {
		// Issue 15 asked p99 ≤ 500 ms of 1,000 streams; issue 48 asks 250 ms of 10,000.
		limit := 500.0
		if l.Streams >= 10_000 {
			limit = 250
		}
		out = append(out,
			Target{What: fmt.Sprintf("a share → the notice on every open follower's page, p99 ≤ %.0f ms (%d streams, %d instances)", limit, l.Streams, l.Instances),
				Measured: fmt.Sprintf("p50 %s, p99 %s; %d of %d notices arrived", fmtMs(l.P50ms), fmtMs(l.P99ms), l.Delivered, l.Due),
				Met:      l.Due > 0 && l.Delivered == l.Due && l.P99ms <= limit},
			// Issue 15 asks it of an author of 20,000 followers, 2,000 of them active; the
			// bench's most followed author has fewer, all with their pages open.
			Target{What: fmt.Sprintf("a share by the most followed author answered in ≤ 10 ms p50 (client-side; %d of its followers' streams open)", l.Streams),
				Measured: fmtMs(l.ShareP50ms) + shareAlone(l), Met: l.ShareP50ms > 0 && l.ShareP50ms <= 10},
			Target{What: "memory per open stream ≤ 20 KiB", Measured: streamMemory(l), Met: streamKiB(l) <= 20},
			Target{What: "no stream, goroutine or connection left after the streams close",
				Measured: fmt.Sprintf("goroutines %d before, %d open, %d after; %d streams counted open", l.GoroutinesBefore, l.GoroutinesOpen, l.GoroutinesAfter, l.OpenAfter),
				Met:      l.OpenAfter == 0 && l.GoroutinesAfter <= l.GoroutinesBefore+10})
	}
	return append(append(out, cardTargets(r)...), shareAckTarget(r)...)
}

// streamKiB is the memory per open stream a run judges: live in the heap and stacks, or
// resident in runs from before that was measured.
func streamKiB(l *LiveReport) float64 {
	if l.HeldKiBPerStream > 0 {
		return l.HeldKiBPerStream
	}
	return l.KiBPerStream
}
