package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tributary"
	"tributary/db"
	"tributary/feed"
)

// The EXPLAIN files and the plan checks use the SQL the ranker really sends: the feed service
// runs in-process on a pool whose tracer records every query with its arguments, and each
// recorded SELECT is explained again with the same arguments. So they follow the queries as
// they change, with no copy of the SQL here.

// call is one query the feed service ran.
type call struct {
	Name string // sqlc's query name, from the "-- name:" comment
	SQL  string
	Args []any
	Dur  time.Duration
	Err  error

	start time.Time
}

// recorder is a pgx query tracer that keeps the calls.
type recorder struct {
	mu    sync.Mutex
	calls []call
}

type callKey struct{}

func (r *recorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	return context.WithValue(ctx, callKey{}, &call{Name: queryName(d.SQL), SQL: d.SQL, Args: d.Args, start: time.Now()})
}

func (r *recorder) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryEndData) {
	c, ok := ctx.Value(callKey{}).(*call)
	if !ok {
		return
	}
	c.Dur, c.Err = time.Since(c.start), d.Err
	r.mu.Lock()
	r.calls = append(r.calls, *c)
	r.mu.Unlock()
}

// take returns the calls recorded since the last take.
func (r *recorder) take() []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.calls
	r.calls = nil
	return out
}

var nameRe = regexp.MustCompile(`^\s*-- name: (\w+)[^\n]*\n?`)

func queryName(sql string) string {
	if m := nameRe.FindStringSubmatch(sql); m != nil {
		return m[1]
	}
	s := strings.Join(strings.Fields(sql), " ")
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return s
}

var writeRe = regexp.MustCompile(`(?i)\b(insert|update|delete|truncate|lock|set|copy)\b`)

// readOnly reports whether a recorded statement is a query that only reads: only those are
// explained with ANALYZE.
func readOnly(sql string) bool {
	body := strings.ToUpper(strings.TrimSpace(stripComments(nameRe.ReplaceAllString(sql, ""))))
	return (strings.HasPrefix(body, "SELECT") || strings.HasPrefix(body, "WITH")) && !writeRe.MatchString(body)
}

func stripComments(sql string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(sql, "\n") {
		if i := strings.Index(line, "--"); i >= 0 {
			line = line[:i]
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// planCase is one request of the feed service with the queries it ran.
type planCase struct {
	Name  string
	Title string
	Wall  time.Duration // the whole Timeline call
	Calls []call
}

// dbTime is the time spent waiting for the database, summed over the calls.
func (p planCase) dbTime() time.Duration {
	var d time.Duration
	for _, c := range p.Calls {
		d += c.Dur
	}
	return d
}

// planTarget names the viewers the plan cases use.
type planTarget struct {
	Heavy     int64   // a heavy follower
	Followees []int64 // some of the heavy follower's followees (for a new share)
}

// capturePlans runs the feed service in-process for the main kinds of request and returns
// the queries each ran. It drops the heavy viewer's fences and adds one share by a followee.
func capturePlans(ctx context.Context, dsn string, t planTarget) ([]planCase, error) {
	pcfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("bench: plans: %w", err)
	}
	rec := &recorder{}
	pcfg.ConnConfig.Tracer = rec
	pcfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("bench: plans: %w", err)
	}
	defer pool.Close()
	store := db.NewStore(pool)
	svc := feed.New(store, feed.DefaultConfig(), time.Now)
	heavy, err := store.UserByID(ctx, t.Heavy)
	if err != nil {
		return nil, fmt.Errorf("bench: plans: %w", err)
	}
	reset := func() error {
		_, err := pool.Exec(ctx, `WITH gone AS (DELETE FROM fences WHERE viewer_id = $1)
			DELETE FROM fenceposts WHERE viewer_id = $1`, t.Heavy)
		return err
	}
	var cases []planCase
	run := func(name, title string, viewer *tributary.User, params url.Values) (tributary.Timeline, error) {
		q, err := tributary.ParseFeedQuery(params)
		if err != nil {
			return tributary.Timeline{}, err
		}
		rec.take()
		start := time.Now()
		tl, err := svc.Timeline(ctx, viewer, q)
		wall := time.Since(start)
		if err != nil {
			return tl, fmt.Errorf("bench: plans: %s: %w", name, err)
		}
		if name != "" {
			cases = append(cases, planCase{Name: name, Title: title, Wall: wall, Calls: rec.take()})
		}
		return tl, nil
	}

	if err := reset(); err != nil {
		return nil, fmt.Errorf("bench: plans: %w", err)
	}
	first, err := run("first_cold_heavy", "logged-in first page, cold, heavy follower", &heavy, url.Values{})
	if err != nil {
		return nil, err
	}
	// Pages 2 and 3 come from the head; page 4 is all tail.
	cursor := first.NextCursor
	for page := 2; page <= 4 && cursor != ""; page++ {
		name, title := "", ""
		if page == 4 {
			name, title = "next_page_tail_heavy", "next page by cursor (tail of the first fencepost), heavy follower"
		}
		tl, err := run(name, title, &heavy, url.Values{"cursor": {cursor}})
		if err != nil {
			return nil, err
		}
		cursor = tl.NextCursor
	}
	if len(t.Followees) > 0 {
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: t.Followees[0], URL: fmt.Sprintf("https://bench.example.org/plans/%d", time.Now().UnixNano()),
			Title: "Benchmark share for the plans", CreatedAt: time.Now()})
		if err == nil {
			_, err = store.CreatePost(ctx, p)
		}
		if err != nil {
			return nil, fmt.Errorf("bench: plans: share: %w", err)
		}
		if _, err := run("first_returning_heavy", "logged-in first page, returning after a followee's share, heavy follower", &heavy, url.Values{}); err != nil {
			return nil, err
		}
	}
	if err := reset(); err != nil {
		return nil, fmt.Errorf("bench: plans: %w", err)
	}
	if _, err := run("live_heavy", "live path (source="+string(liveSource)+"), first page, heavy follower", &heavy,
		url.Values{"source": {string(liveSource)}}); err != nil {
		return nil, err
	}
	since := time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(time.Now().UnixNano() % int64(365*24*time.Hour)))
	if _, err := run("anon_miss", "anonymous front page, cache miss", nil, url.Values{"since": {since.Format(time.RFC3339)}}); err != nil {
		return nil, err
	}
	return cases, reset()
}

// longArray matches the literal of a long id array in a plan (a followed set of 2,000 ids).
var longArray = regexp.MustCompile(`'\{[0-9,]{120,}\}'`)

// shortenArrays replaces long id arrays in plan text by their length.
func shortenArrays(plan string) string {
	return longArray.ReplaceAllStringFunc(plan, func(m string) string {
		return fmt.Sprintf("'{…%d ids…}'", strings.Count(m, ",")+1)
	})
}

// explain runs EXPLAIN with options over a recorded query, with its arguments.
func explain(ctx context.Context, pool *pgxpool.Pool, opts, sql string, args []any) (string, error) {
	rows, err := pool.Query(ctx, "EXPLAIN ("+opts+") "+sql, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return "", err
		}
		b.WriteString(line + "\n")
	}
	return b.String(), rows.Err()
}

// describeArgs shows arguments briefly: long id arrays by their length.
func describeArgs(args []any) string {
	parts := make([]string, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case []int64:
			if len(v) > 8 {
				parts[i] = fmt.Sprintf("$%d = [%d ids]", i+1, len(v))
				continue
			}
			parts[i] = fmt.Sprintf("$%d = %v", i+1, v)
		case time.Time:
			parts[i] = fmt.Sprintf("$%d = %s", i+1, v.UTC().Format(time.RFC3339Nano))
		case string:
			parts[i] = fmt.Sprintf("$%d = %q", i+1, v)
		default:
			s := fmt.Sprintf("%v", v)
			if len(s) > 80 {
				s = s[:80] + "..."
			}
			parts[i] = fmt.Sprintf("$%d = %s", i+1, s)
		}
	}
	return strings.Join(parts, ", ")
}

// explainFile is one file written under the explain directory.
type explainFile struct {
	Name  string // file name
	Title string
	// Main is the query that dominates the request, with its execution time in the plan.
	Main string
}

// writeExplains writes, per plan case, the queries it ran (slowest first) with the time each
// took inside the request and EXPLAIN (ANALYZE, BUFFERS) of each read, and one file per
// baseline query for the heavy viewer.
func writeExplains(ctx context.Context, pool *pgxpool.Pool, dir string, cases []planCase, heavy int64, pageSize, headSize int) ([]explainFile, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []explainFile
	for _, pc := range cases {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\n\nOne in-process call of the feed service (feed.Service.Timeline) on the bench database: %s\nwall, %s waiting for PostgreSQL over %d queries; the rest is Go (ranking, decoding).\n\n",
			pc.Title, pc.Wall.Round(time.Microsecond), pc.dbTime().Round(time.Microsecond), len(pc.Calls))
		fmt.Fprintf(&b, "%-28s %10s\n", "query (in call order)", "time")
		for _, c := range pc.Calls {
			fmt.Fprintf(&b, "%-28s %10s\n", c.Name, c.Dur.Round(time.Microsecond))
		}
		order := slices.Clone(pc.Calls)
		slices.SortStableFunc(order, func(a, b call) int { return int(b.Dur - a.Dur) })
		done := map[string]bool{}
		main := ""
		for _, c := range order {
			if done[c.Name] || !readOnly(c.SQL) {
				continue
			}
			done[c.Name] = true
			if main == "" {
				main = c.Name
			}
			plan, err := explain(ctx, pool, "ANALYZE, BUFFERS", c.SQL, c.Args)
			if err != nil {
				plan = "EXPLAIN failed: " + err.Error() + "\n"
			}
			plan = shortenArrays(plan)
			fmt.Fprintf(&b, "\n## %s (%s in the request)\n\n%s\n\nArguments: %s\n\n%s", c.Name, c.Dur.Round(time.Microsecond),
				strings.TrimSpace(nameRe.ReplaceAllString(c.SQL, "")), describeArgs(c.Args), plan)
		}
		name := pc.Name + ".txt"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			return nil, err
		}
		files = append(files, explainFile{Name: name, Title: pc.Title, Main: main})
	}
	for _, bl := range []struct{ name, title, sql string }{
		{"baseline_naive_heavy", "baseline: naive fanout on read, heavy follower", naiveSQL},
		{"baseline_seed000_heavy", "baseline: seed 000's snapshot query written literally, heavy follower", seed000SQL},
	} {
		args := baselineArgs(strings.Split(bl.name, "_")[1], heavy, pageSize, headSize)
		plan, err := explain(ctx, pool, "ANALYZE, BUFFERS", bl.sql, args)
		if err != nil {
			plan = "EXPLAIN failed: " + err.Error() + "\n"
		}
		plan = shortenArrays(plan)
		text := fmt.Sprintf("# %s\n\n%s\n\nArguments: %s\n\n%s", bl.title, bl.sql, describeArgs(args), plan)
		if err := os.WriteFile(filepath.Join(dir, bl.name+".txt"), []byte(text), 0o644); err != nil {
			return nil, err
		}
		files = append(files, explainFile{Name: bl.name + ".txt", Title: bl.title})
	}
	return files, nil
}

// PlanCheck says whether a feed query's plan uses the index it was designed around.
type PlanCheck struct {
	Query   string   `json:"query"`
	Case    string   `json:"case"`
	Index   string   `json:"index"`
	Uses    bool     `json:"uses"`
	Indexes []string `json:"indexes_used"` // every index the plan touches
	Err     string   `json:"error,omitempty"`
}

// wantIndexes are the indexes the snapshot path is built around.
var wantIndexes = []struct{ Case, Query, Index string }{
	{"first_cold_heavy", "SnapshotFeed", "feed_snapshot_sharers_idx"},
	{"anon_miss", "SnapshotFeedAnon", "feed_snapshot_vip_score_idx"},
}

// checkPlans looks at EXPLAIN (FORMAT JSON) of the snapshot queries the cases ran.
func checkPlans(ctx context.Context, pool *pgxpool.Pool, cases []planCase) []PlanCheck {
	var out []PlanCheck
	for _, w := range wantIndexes {
		pc := PlanCheck{Query: w.Query, Case: w.Case, Index: w.Index}
		var found *call
		for _, c := range cases {
			if c.Name != w.Case {
				continue
			}
			for i := range c.Calls {
				if c.Calls[i].Name == w.Query {
					found = &c.Calls[i]
				}
			}
		}
		if found == nil {
			pc.Err = fmt.Sprintf("the %s request did not run %s (is the snapshot fresh?)", w.Case, w.Query)
			out = append(out, pc)
			continue
		}
		js, err := explain(ctx, pool, "FORMAT JSON", found.SQL, found.Args)
		if err != nil {
			pc.Err = err.Error()
			out = append(out, pc)
			continue
		}
		pc.Indexes, err = planIndexes([]byte(js))
		if err != nil {
			pc.Err = err.Error()
		}
		pc.Uses = slices.Contains(pc.Indexes, w.Index)
		out = append(out, pc)
	}
	return out
}

// planIndexes lists the index names an EXPLAIN (FORMAT JSON) plan uses, in plan order.
func planIndexes(js []byte) ([]string, error) {
	var doc []struct {
		Plan map[string]any `json:"Plan"`
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		return nil, fmt.Errorf("bench: plan JSON: %w", err)
	}
	var out []string
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if name, ok := n["Index Name"].(string); ok && !slices.Contains(out, name) {
			out = append(out, name)
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
	return out, nil
}
