package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// PlanCheck says whether a request's reads of feed_snapshot use an index the snapshot path
// was designed around.
type PlanCheck struct {
	Query    string   `json:"queries"` // the request's reads of feed_snapshot
	Case     string   `json:"case"`
	Want     []string `json:"want_any_of"`
	Uses     bool     `json:"uses"`
	Indexes  []string `json:"indexes_used"` // every index the plan touches
	SeqScans []string `json:"seq_scanned"`  // tables the plan reads whole
	Err      string   `json:"error,omitempty"`
}

// wantIndexes are the indexes the snapshot path is built around. A logged-in viewer is
// ranked on the server's copy of the snapshot and reads only the rows a page shows, by key,
// or none when the server keeps them for the copy's version (feed/cards.go: keptRows).
// Until the copy is made, PostgreSQL ranks: the GIN index on sharer_user_ids for a light
// followed set, rows in score order (stopping early) for a heavy one. Anonymous viewers read
// the partial index on score. Either way no read of the request scans feed_snapshot whole.
var wantIndexes = []struct {
	Case string
	Any  []string
	Kept bool // on the copy: reading nothing is the rows kept
}{
	{"first_cold_light", []string{"feed_snapshot_pkey"}, true},
	{"first_cold_heavy", []string{"feed_snapshot_pkey"}, true},
	{"first_cold_light" + sqlRanked, []string{"feed_snapshot_sharers_idx"}, false},
	{"first_cold_heavy" + sqlRanked, []string{"feed_snapshot_sharers_idx", "feed_snapshot_score_idx"}, false},
	{"anon_miss", []string{"feed_snapshot_vip_score_idx"}, false},
}

var snapshotRe = regexp.MustCompile(`(?i)\bfeed_snapshot\b`)

// checkPlans looks at EXPLAIN (FORMAT JSON) of every read of feed_snapshot the cases ran,
// whatever the queries are called.
func checkPlans(ctx context.Context, pool *pgxpool.Pool, cases []planCase) []PlanCheck {
	var out []PlanCheck
	for _, w := range wantIndexes {
		pc := PlanCheck{Case: w.Case, Want: w.Any}
		var queries []string
		for _, c := range cases {
			if c.Name != w.Case {
				continue
			}
			for _, call := range c.Calls {
				if !readOnly(call.SQL) || !snapshotRe.MatchString(stripComments(nameRe.ReplaceAllString(call.SQL, ""))) ||
					slices.Contains(queries, call.Name) {
					continue
				}
				queries = append(queries, call.Name)
				js, err := explain(ctx, pool, "FORMAT JSON", call.SQL, call.Args)
				if err != nil {
					pc.Err = err.Error()
					continue
				}
				idx, seq, err := planScans([]byte(js))
				if err != nil {
					pc.Err = err.Error()
				}
				for _, i := range idx {
					if !slices.Contains(pc.Indexes, i) {
						pc.Indexes = append(pc.Indexes, i)
					}
				}
				for _, t := range seq {
					if !slices.Contains(pc.SeqScans, t) {
						pc.SeqScans = append(pc.SeqScans, t)
					}
				}
			}
		}
		pc.Query = strings.Join(queries, ", ")
		if len(queries) == 0 && w.Kept && pc.Err == "" {
			pc.Query, pc.Uses = "none (rows kept for the copy's version)", true
			out = append(out, pc)
			continue
		}
		if len(queries) == 0 && pc.Err == "" {
			pc.Err = fmt.Sprintf("the %s request read nothing from feed_snapshot (is the snapshot fresh?)", w.Case)
		}
		for _, idx := range w.Any {
			pc.Uses = pc.Uses || slices.Contains(pc.Indexes, idx)
		}
		pc.Uses = pc.Uses && !slices.Contains(pc.SeqScans, "feed_snapshot") && pc.Err == ""
		out = append(out, pc)
	}
	return out
}

// planScans lists the index names an EXPLAIN (FORMAT JSON) plan uses and the tables it
// scans sequentially, in plan order.
func planScans(js []byte) (indexes, seqScans []string, err error) {
	var doc []struct {
		Plan map[string]any `json:"Plan"`
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		return nil, nil, fmt.Errorf("bench: plan JSON: %w", err)
	}
	add := func(list *[]string, v any) {
		if name, ok := v.(string); ok && !slices.Contains(*list, name) {
			*list = append(*list, name)
		}
	}
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		add(&indexes, n["Index Name"])
		if n["Node Type"] == "Seq Scan" {
			add(&seqScans, n["Relation Name"])
		}
		if kids, ok := n["Plans"].([]any); ok {
			for _, k := range kids {
				if m, ok := k.(map[string]any); ok {
					walk(m)
				}
			}
		}
	}
	for _, d := range doc {
		walk(d.Plan)
	}
	return indexes, seqScans, nil
}
