package bench

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tributary"
	"tributary/db"
	"tributary/feed"
)

// The EXPLAIN files and the plan checks use the SQL the ranker really sends: the feed service
// runs in-process on a pool whose tracer records every query with its arguments, and each
// recorded SELECT is explained again with the same arguments. So they follow the queries as
// they change, with no copy of the SQL here.

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
	Light     int64   // a light follower (0: none)
	Median    int64   // a median follower (0: none)
	Heavy     int64   // a heavy follower
	Followees []int64 // the heavy follower's followees: one shares ShareURL again (returning page)
	ShareURL  string
}

// capturePlans runs the feed service in-process for the main kinds of request and returns
// the queries each ran. It drops the heavy viewer's fences and adds one share by a followee.
func capturePlans(ctx context.Context, dsn string, t planTarget) ([]planCase, error) {
	pcfg, err := poolConfig(ctx, dsn)
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
	c := &capture{ctx: ctx, t: t, pool: pool, rec: rec, store: db.NewStore(pool)}
	c.svc = feed.New(c.store, feed.DefaultConfig(), time.Now)
	if err := c.svc.Warm(ctx); err != nil { // as the server does after each refresh
		return nil, fmt.Errorf("bench: plans: %w", err)
	}
	sqlCfg := feed.DefaultConfig()
	sqlCfg.CopyFrom = 0
	c.sqlSvc = feed.New(c.store, sqlCfg, time.Now)
	// The first pass warms the connections (each statement prepared once, as on a server
	// that has been up a while); the second is recorded.
	for _, record := range []bool{false, true} {
		c.record, c.cases = record, nil
		if err := c.pass(); err != nil {
			return nil, err
		}
	}
	return c.cases, c.reset(t.Heavy)
}

// capture is one run of the plan cases through an in-process feed service.
type capture struct {
	ctx    context.Context
	t      planTarget
	pool   *pgxpool.Pool
	rec    *recorder
	store  *db.Store
	svc    *feed.Service
	sqlSvc *feed.Service // ranks in PostgreSQL, as a server does until its copy of the snapshot is made
	record bool
	cases  []planCase
	misses int64
}

func (c *capture) reset(viewer int64) error {
	_, err := c.pool.Exec(c.ctx, `WITH gone AS (DELETE FROM fences WHERE viewer_id = $1)
		DELETE FROM fenceposts WHERE viewer_id = $1`, viewer)
	if err != nil {
		return fmt.Errorf("bench: plans: %w", err)
	}
	return nil
}

// sqlRanked ends the names of the cases ranked in PostgreSQL rather than on the copy.
const sqlRanked = "_sql"

// run serves one page and, when recording and name is set, keeps its queries as a case.
func (c *capture) run(name, title string, viewer *tributary.User, params url.Values) (tributary.Timeline, error) {
	q, err := tributary.ParseFeedQuery(params)
	if err != nil {
		return tributary.Timeline{}, err
	}
	c.rec.take()
	start := time.Now()
	svc := c.svc
	if strings.HasSuffix(name, sqlRanked) {
		svc = c.sqlSvc
	}
	tl, err := svc.Timeline(c.ctx, viewer, q)
	wall := time.Since(start)
	if err != nil {
		return tl, fmt.Errorf("bench: plans: %s: %w", name, err)
	}
	if calls := c.rec.take(); c.record && name != "" {
		c.cases = append(c.cases, planCase{Name: name, Title: title, Wall: wall, Calls: calls})
	}
	return tl, nil
}

// pass runs every case once: cold first pages (light, median and heavy), the median and
// heavy followers' live paths, the heavy follower's scroll into the tail, a return after a
// followee's share, an anonymous miss.
func (c *capture) pass() error {
	t := c.t
	if t.Light != 0 {
		light, err := c.store.UserByID(c.ctx, t.Light)
		if err != nil {
			return fmt.Errorf("bench: plans: %w", err)
		}
		if err := c.reset(t.Light); err != nil {
			return err
		}
		for _, sfx := range []string{"", sqlRanked} {
			if err := c.reset(t.Light); err != nil {
				return err
			}
			if _, err := c.run("first_cold_light"+sfx, "logged-in first page, cold, light follower"+rankedIn(sfx), &light, url.Values{}); err != nil {
				return err
			}
		}
	}
	if t.Median != 0 {
		median, err := c.store.UserByID(c.ctx, t.Median)
		if err != nil {
			return fmt.Errorf("bench: plans: %w", err)
		}
		for _, src := range []string{"", string(liveSource)} {
			if err := c.reset(t.Median); err != nil {
				return err
			}
			name, title, q := "first_cold_median", "logged-in first page, cold, median follower", url.Values{}
			if src != "" {
				name, title, q = "live_median", "live path (source="+src+"), first page, median follower", url.Values{"source": {src}}
			}
			if _, err := c.run(name, title, &median, q); err != nil {
				return err
			}
		}
	}
	heavy, err := c.store.UserByID(c.ctx, t.Heavy)
	if err != nil {
		return fmt.Errorf("bench: plans: %w", err)
	}
	if err := c.reset(t.Heavy); err != nil {
		return err
	}
	if _, err := c.run("first_cold_heavy"+sqlRanked, "logged-in first page, cold, heavy follower"+rankedIn(sqlRanked), &heavy, url.Values{}); err != nil {
		return err
	}
	if err := c.reset(t.Heavy); err != nil {
		return err
	}
	first, err := c.run("first_cold_heavy", "logged-in first page, cold, heavy follower", &heavy, url.Values{})
	if err != nil {
		return err
	}
	// Pages 2 and 3 come from the head; page 4 is all tail.
	cursor := first.NextCursor
	for page := 2; page <= 4 && cursor != ""; page++ {
		name, title := "", ""
		if page == 4 {
			name, title = "next_page_tail_heavy", "next page by cursor (tail of the first fencepost), heavy follower"
		}
		tl, err := c.run(name, title, &heavy, url.Values{"cursor": {cursor}})
		if err != nil {
			return err
		}
		cursor = tl.NextCursor
	}
	if len(t.Followees) > 0 && t.ShareURL != "" {
		if err := share(c.ctx, c.store, t.Followees[0], t.ShareURL, 0); err != nil {
			return fmt.Errorf("bench: plans: %w", err)
		}
		if _, err := c.run("first_returning_heavy", "logged-in first page, returning after a followee's share, heavy follower", &heavy, url.Values{}); err != nil {
			return err
		}
	}
	if err := c.reset(t.Heavy); err != nil {
		return err
	}
	if _, err := c.run("live_heavy", "live path (source="+string(liveSource)+"), first page, heavy follower", &heavy,
		url.Values{"source": {string(liveSource)}}); err != nil {
		return err
	}
	// A since= of its own: a cache miss, in each pass.
	c.misses++
	since := time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(time.Now().Unix()%(365*24*3600)+c.misses) * time.Second)
	_, err = c.run("anon_miss", "anonymous front page, cache miss", nil, url.Values{"since": {since.Format(time.RFC3339)}})
	return err
}

// rankedIn says where a case ranks.
func rankedIn(sfx string) string {
	if sfx == sqlRanked {
		return ", ranked in PostgreSQL (before the server's copy of the snapshot is made)"
	}
	return ""
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
// took inside the request and EXPLAIN (ANALYZE, BUFFERS) of each read, once and as the
// plan cache runs it (planCacheCase), and one file per baseline query for the heavy viewer.
func writeExplains(ctx context.Context, pool *pgxpool.Pool, dir string, cases []planCase, heavy int64, pageSize, headSize int) ([]explainFile, []PlanCacheCheck, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	var files []explainFile
	var cached []PlanCacheCheck
	for _, pc := range cases {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\n\nOne in-process call of the feed service (feed.Service.Timeline) on the bench database, on warm\nconnections: %s wall, %s waiting for PostgreSQL (planning, execution, transfer) over %d\nqueries; the rest is Go (ranking, decoding).\n\n",
			pc.Title, pc.Wall.Round(time.Microsecond), pc.dbTime().Round(time.Microsecond), len(pc.Calls))
		fmt.Fprintf(&b, "%-28s %10s\n", "query (in call order)", "time")
		for _, c := range pc.Calls {
			fmt.Fprintf(&b, "%-28s %10s\n", c.Name, c.Dur.Round(time.Microsecond))
		}
		cache := planCacheCase(ctx, pool, pc.Calls)
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
			if !db.KeepsPlan(c.Name) {
				// Not a prepared statement: planned with its arguments on every run, as above.
				continue
			}
			pcc := cache[c.Name]
			pcc.Case, pcc.Query, pcc.FirstMs = pc.Name, c.Name, executionMs(plan)
			fmt.Fprintf(&b, "\n### %s after five requests' executions of its prepared statement (as the server's pgx statement cache runs it)\n\n", c.Name)
			switch {
			case pcc.Err != "":
				fmt.Fprintf(&b, "Not shown: %s\n", pcc.Err)
			case pcc.Generic:
				fmt.Fprintf(&b, "The plan cache switched to the GENERIC plan: %.3f ms (the first, custom plan: %.3f ms).\n\n%s", pcc.CachedMs, pcc.FirstMs, pcc.Plan)
			default:
				fmt.Fprintf(&b, "The plan cache keeps planning with the arguments (custom plan): %.3f ms.\n", pcc.CachedMs)
			}
			cached = append(cached, pcc)
		}
		name := pc.Name + ".txt"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			return nil, nil, err
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
			return nil, nil, err
		}
		files = append(files, explainFile{Name: bl.name + ".txt", Title: bl.title})
	}
	return files, cached, nil
}
