package bench

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// summarizeSoak sums the samples up by kind; a 5xx other than a 503 while PostgreSQL was
// down, and any 5xx outside the restart, is unexpected.
func summarizeSoak(samples []soakSample, restart [2]time.Time) ([]SoakKindReport, []string) {
	by := map[string]*SoakKindReport{}
	lats := map[string][]time.Duration{}
	var unexpected []string
	grace := 3 * time.Second // requests in flight as PostgreSQL went down or came back
	for _, s := range samples {
		k := by[s.kind]
		if k == nil {
			k = &SoakKindReport{Kind: s.kind, ByStatus: map[string]int{}}
			by[s.kind] = k
		}
		k.Requests++
		status := strconv.Itoa(s.status)
		if s.status == 0 {
			status = "no answer"
		}
		k.ByStatus[status]++
		lats[s.kind] = append(lats[s.kind], s.dur)
		during := !restart[0].IsZero() && !s.at.Before(restart[0].Add(-grace)) && s.at.Before(restart[1].Add(grace))
		if during {
			k.DuringRestart++
			if s.status != http.StatusOK && s.status != http.StatusServiceUnavailable && s.status != http.StatusNoContent && s.status != http.StatusSeeOther {
				k.Not503++
				if len(unexpected) < 20 {
					unexpected = append(unexpected, fmt.Sprintf("%s during the restart: %s", s.kind, status))
				}
			}
		} else if s.status >= 500 || s.status == 0 {
			k.FiveXXOutsideRestart++
			if len(unexpected) < 20 {
				unexpected = append(unexpected, fmt.Sprintf("%s at %s: %s", s.kind, s.at.Format(time.TimeOnly), status))
			}
		}
	}
	var out []SoakKindReport
	for _, kd := range soakKinds {
		k := by[kd.name]
		if k == nil {
			continue
		}
		l := lats[kd.name]
		slices.Sort(l)
		k.P50, k.P99 = percentile(l, 50), percentile(l, 99)
		out = append(out, *k)
	}
	return out, unexpected
}

// summarizeSoakSite sums the site soak's samples up by kind; through the load balancer no
// fault may show but as a 503 with Retry-After: any other 5xx, and no answer, is unexpected.
func summarizeSoakSite(samples []soakSample) ([]SoakKindReport, []string) {
	by := map[string]*SoakKindReport{}
	lats := map[string][]time.Duration{}
	var unexpected []string
	for _, s := range samples {
		k := by[s.kind]
		if k == nil {
			k = &SoakKindReport{Kind: s.kind, ByStatus: map[string]int{}}
			by[s.kind] = k
		}
		k.Requests++
		status := strconv.Itoa(s.status)
		switch {
		case s.status == 0:
			status = "no answer"
		case s.status == http.StatusServiceUnavailable && s.retryAfter:
			status = "503 Retry-After"
		}
		k.ByStatus[status]++
		if s.dur > 0 {
			lats[s.kind] = append(lats[s.kind], s.dur)
		}
		if s.status == 0 || s.status >= 500 && !(s.status == http.StatusServiceUnavailable && s.retryAfter) {
			k.FiveXXOutsideRestart++
			if len(unexpected) < 20 {
				unexpected = append(unexpected, fmt.Sprintf("%s at %s: %s", s.kind, s.at.Format(time.TimeOnly), status))
			}
		}
	}
	var out []SoakKindReport
	for _, kd := range append(soakSiteKinds, soakKind{name: "own_page"}) {
		if k := by[kd.name]; k != nil {
			l := lats[kd.name]
			slices.Sort(l)
			k.P50, k.P99 = percentile(l, 50), percentile(l, 99)
			out = append(out, *k)
		}
	}
	return out, unexpected
}

// rss is a server's resident set size.
func rss(s *server) int64 { return rssOf(s.cmd.Process.Pid) }

// rssOf is a process's resident set size (VmRSS), in bytes.
func rssOf(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			if f := strings.Fields(rest); len(f) == 2 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// goroutines reads go_goroutines from the server's /metrics.
func goroutines(s *server) int { return int(metric(s, "go_goroutines")) }

// heldMemory is the memory the server holds for live data: its heap's live objects as a
// collection finds them (go_gc_heap_live_bytes, read after a GET of its heap profile with gc=1
// has forced one) and its goroutines' stacks. Unlike the resident size, it does not move with
// when the garbage was last collected. 0 when it cannot be read.
func heldMemory(s *server) int64 {
	if s.Profiles == "" {
		return 0
	}
	resp, err := http.Get(s.Profiles + "heap?gc=1")
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return int64(metric(s, "go_gc_heap_live_bytes") + metric(s, "go_memstats_stack_inuse_bytes"))
}

// saveCPUProfile writes the server's CPU profile over the next d into file.
func saveCPUProfile(s *server, d time.Duration, file string) error {
	if s.Profiles == "" {
		return fmt.Errorf("no profiles listener")
	}
	resp, err := http.Get(fmt.Sprintf("%sprofile?seconds=%d", s.Profiles, int(d.Seconds())))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return os.WriteFile(file, b, 0o644)
}

// metric reads one unlabelled metric from the server's metrics listener (0 when it cannot).
func metric(s *server, name string) float64 {
	s.mu.Lock()
	u := s.Metrics
	s.mu.Unlock()
	if u == "" {
		return 0
	}
	resp, err := http.Get(u)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			n, _ := strconv.ParseFloat(v, 64)
			return n
		}
	}
	return 0
}

func writeSoak(path string, rep SoakReport) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	if rep.Site {
		writeSoakSite(&b, rep)
		return replaceSoakPart(path, b.String())
	}
	p("# Soak\n\n")
	p("Two instances of the real server on one database (the bench dataset: %d posts, %d users), %d clients of mixed traffic for %s",
		rep.Dataset.PostCount, rep.Dataset.UserCount, rep.Conns, rep.Duration)
	if !rep.Restart[0].IsZero() {
		p(", PostgreSQL stopped and started again in the middle (down %s)", rep.Restart[1].Sub(rep.Restart[0]).Round(time.Millisecond))
	}
	p(". Every client sends one kind of request again and again, to either instance in turn: cursors made by one instance are used on the other. Run on %s at commit %s; rerun with `make soak`.\n\n",
		rep.Date.Format("2006-01-02 15:04 UTC"), rep.Commit)
	p("Goals: no 5xx but 503s while PostgreSQL is down; RSS and goroutines flat after warm-up.\n\n")
	p("| kind | requests | by status | p50 | p99 | during the restart | not 200/503 then | 5xx otherwise |\n|---|---:|---|---:|---:|---:|---:|---:|\n")
	total, bad := 0, 0
	for _, k := range rep.Kinds {
		var st []string
		for s, n := range k.ByStatus {
			st = append(st, fmt.Sprintf("%s: %d", s, n))
		}
		slices.Sort(st)
		p("| %s | %d | %s | %.2f ms | %.2f ms | %d | %d | %d |\n", k.Kind, k.Requests, strings.Join(st, ", "), ms(k.P50), ms(k.P99),
			k.DuringRestart, k.Not503, k.FiveXXOutsideRestart)
		total += k.Requests
		bad += k.Not503 + k.FiveXXOutsideRestart
	}
	p("\n%d requests, %d unexpected answers.\n\n", total, bad)
	p("| instance | RSS after warm-up | RSS at the end | goroutines after warm-up | goroutines at the end |\n|---|---:|---:|---:|---:|\n")
	for _, in := range rep.Instances {
		p("| %s | %.1f MiB | %.1f MiB | %d | %d |\n", in.Name, float64(in.RSSStart)/(1<<20), float64(in.RSSEnd)/(1<<20), in.GoroutinesStart, in.GoroutinesEnd)
	}
	if len(rep.Unexpected) > 0 {
		p("\nUnexpected answers (the first %d):\n\n", len(rep.Unexpected))
		for _, u := range rep.Unexpected {
			p("- %s\n", u)
		}
	}
	return replaceSoakPart(path, b.String())
}

// replaceSoakPart writes part into the file at path in place of the part with the same
// heading (its first line, up to the next top-level heading), or after the others: the
// two soaks share SOAK.md and each keeps the other's figures.
func replaceSoakPart(path, part string) error {
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	heading, _, _ := strings.Cut(part, "\n")
	var parts []string
	replaced := false
	for _, p := range splitSoakParts(string(old)) {
		if h, _, _ := strings.Cut(p, "\n"); h == heading {
			p, replaced = part, true
		}
		parts = append(parts, strings.TrimRight(p, "\n")+"\n")
	}
	if !replaced {
		parts = append(parts, part)
	}
	return os.WriteFile(path, []byte(strings.Join(parts, "\n")), 0o644)
}

// splitSoakParts splits text at its top-level headings ("# ").
func splitSoakParts(text string) []string {
	var parts []string
	for _, line := range strings.SplitAfter(text, "\n") {
		if strings.HasPrefix(line, "# ") || len(parts) == 0 {
			if strings.TrimSpace(line) == "" && len(parts) == 0 {
				continue
			}
			parts = append(parts, "")
		}
		parts[len(parts)-1] += line
	}
	return parts
}

// writeSoakSite is SOAK.md of a soak through the topology: requests by kind and status, the
// faults, the ledger and the instances.
func writeSoakSite(b *strings.Builder, rep SoakReport) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("# Soak through the topology\n\n")
	p("`tributary topology` (haproxy -> 3 instances -> PgBouncer -> primary, plus a streaming replica for feed reads) on the demo site (%d posts, %d users), %d clients of mixed traffic for %s through haproxy, with faults on a schedule. Writes carry unique text and are kept in a ledger, checked on the primary afterwards; after each share the writer's page the redirect names is read at once. Run on %s at commit %s; rerun with `make soak SOAK_FLAGS=--topology`.\n\n",
		rep.Dataset.PostCount, rep.Dataset.UserCount, rep.Conns, rep.Duration, rep.Date.Format("2006-01-02 15:04 UTC"), rep.Commit)
	p("Goals: no 5xx but 503 with Retry-After, no request unanswered; ledger losses 0; every share on its writer's page at once; RSS and goroutines flat after warm-up.\n\n")
	p("| fault | began | lasted | error |\n|---|---|---:|---|\n")
	for _, f := range rep.Faults {
		p("| %s | %s | %.1f s | %s |\n", f.Name, f.Start.UTC().Format(time.TimeOnly), f.End.Sub(f.Start).Seconds(), f.Err)
	}
	p("\n| kind | requests | by status | p50 | p99 | unexpected |\n|---|---:|---|---:|---:|---:|\n")
	total, bad := 0, 0
	for _, k := range rep.Kinds {
		var st []string
		for s, n := range k.ByStatus {
			st = append(st, fmt.Sprintf("%s: %d", s, n))
		}
		slices.Sort(st)
		p("| %s | %d | %s | %.2f ms | %.2f ms | %d |\n", k.Kind, k.Requests, strings.Join(st, ", "), ms(k.P50), ms(k.P99), k.FiveXXOutsideRestart)
		total += k.Requests
		bad += k.FiveXXOutsideRestart
	}
	p("\n%d requests, %d unexpected answers (5xx other than 503 with Retry-After, or none).\n\n", total, bad)
	l := rep.Ledger
	p("| ledger | acknowledged | missing afterwards |\n|---|---:|---:|\n")
	p("| shares | %d | %d |\n| likes (distinct) | %d | %d |\n| comments | %d | %d |\n", l.Shares, l.LostShares, l.Likes, l.LostLikes, l.Comments, l.LostComments)
	p("| share on the writer's page right after the redirect | %d | %d |\n\n", l.ReadYourWrites, l.ReadYourWritesMissed)
	for _, m := range l.FirstMissed {
		p("- read-your-own-write missed: %s\n", m)
	}
	p("| instance | RSS after warm-up | RSS at the end | goroutines after warm-up | goroutines at the end |\n|---|---:|---:|---:|---:|\n")
	for _, in := range rep.Instances {
		p("| %s | %.1f MiB | %.1f MiB | %d | %d |\n", in.Name, float64(in.RSSStart)/(1<<20), float64(in.RSSEnd)/(1<<20), in.GoroutinesStart, in.GoroutinesEnd)
	}
	p("\nAn instance killed during the run is a new process at the end: its figures are not comparable.\n")
	if len(rep.Unexpected) > 0 {
		p("\nUnexpected answers (the first %d):\n\n", len(rep.Unexpected))
		for _, u := range rep.Unexpected {
			p("- %s\n", u)
		}
	}
}
