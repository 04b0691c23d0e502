package bench

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tributary/db"
)

// The server runs its small per-page queries (db.KeepsPlan) through pgx's statement cache:
// each SQL text is prepared once per connection and executed again and again; its other
// queries are planned with their arguments on every run (db/plans.go). PostgreSQL plans the first five executions
// of a prepared statement with the actual arguments (custom plans), then may switch to one
// generic plan for every later execution when it looks no more expensive, and a generic
// plan cannot see how long an id array is or how wide a time range. A single EXPLAIN shows
// the first plan only; this shows the plan the server settles on.

// PlanCacheCheck is a query explained as the server runs it: once, and after five requests'
// worth of executions of the same prepared statement.
type PlanCacheCheck struct {
	Case     string  `json:"case"`
	Query    string  `json:"query"`
	Generic  bool    `json:"generic"`   // the plan cache switched to the generic plan
	FirstMs  float64 `json:"first_ms"`  // execution time of the first (custom) plan
	CachedMs float64 `json:"cached_ms"` // execution time of the plan the cache then uses
	Err      string  `json:"error,omitempty"`
	Plan     string  `json:"-"` // EXPLAIN (ANALYZE, BUFFERS) of that execution
}

var execTimeRe = regexp.MustCompile(`Execution Time: ([0-9.]+) ms`)

// executionMs reads the execution time off an EXPLAIN ANALYZE text.
func executionMs(plan string) float64 {
	if m := execTimeRe.FindStringSubmatch(plan); m != nil {
		f, _ := strconv.ParseFloat(m[1], 64)
		return f
	}
	return 0
}

// planCacheCase replays a request's reads on one connection as the server would over five
// requests: every statement prepared once, the calls executed in their order five times
// (so a statement called with different arguments, like a growing LIMIT, sees them all).
// Then it explains each query's slowest call as one more execution of its prepared
// statement, and asks pg_prepared_statements whether that used the generic plan. The
// result is keyed by query name.
func planCacheCase(ctx context.Context, pool *pgxpool.Pool, calls []call) map[string]PlanCacheCheck {
	out := map[string]PlanCacheCheck{}
	fail := func(err error) map[string]PlanCacheCheck {
		for _, c := range calls {
			if readOnly(c.SQL) {
				out[c.Name] = PlanCacheCheck{Query: c.Name, Err: err.Error()}
			}
		}
		return out
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fail(err)
	}
	defer conn.Release()
	stmts := map[string]string{} // SQL -> statement name
	slowest := map[string]call{} // query name -> its slowest call
	for _, c := range calls {
		if !readOnly(c.SQL) || !db.KeepsPlan(c.Name) { // the others are planned with their arguments every time
			continue
		}
		if _, ok := stmts[c.SQL]; !ok {
			name := fmt.Sprintf("bench_plan_cache_%d", len(stmts))
			if _, err := conn.Conn().Prepare(ctx, name, c.SQL); err != nil {
				return fail(err)
			}
			defer conn.Conn().Deallocate(context.WithoutCancel(ctx), name)
			stmts[c.SQL] = name
		}
		if prev, ok := slowest[c.Name]; !ok || c.Dur > prev.Dur {
			slowest[c.Name] = c
		}
	}
	for range 5 {
		for _, c := range calls {
			name, ok := stmts[c.SQL]
			if !ok {
				continue
			}
			if err := asServer(ctx, conn.Conn(), c.Name, func() error {
				rows, err := conn.Query(ctx, name, c.Args...)
				if err != nil {
					return err
				}
				for rows.Next() {
				}
				rows.Close()
				return rows.Err()
			}); err != nil {
				return fail(err)
			}
		}
	}
	for qname, c := range slowest {
		pc := PlanCacheCheck{Query: qname}
		var plan string
		var generic bool
		err := asServer(ctx, conn.Conn(), qname, func() (err error) {
			plan, generic, err = explainExecute(ctx, conn.Conn(), stmts[c.SQL], c.Args)
			return err
		})
		if err != nil {
			pc.Err = err.Error()
		}
		pc.Plan, pc.Generic, pc.CachedMs = plan, generic, executionMs(plan)
		out[qname] = pc
	}
	return out
}

// asServer runs fn in the plan mode the server runs the query named in: its generic plan
// for those it forces (db.ForcesGeneric), PostgreSQL's choice for the others.
func asServer(ctx context.Context, conn *pgx.Conn, name string, fn func() error) error {
	if !db.ForcesGeneric(name) {
		return fn()
	}
	if _, err := conn.Exec(ctx, "SET plan_cache_mode = force_generic_plan"); err != nil {
		return err
	}
	err := fn()
	if _, rerr := conn.Exec(context.WithoutCancel(ctx), "RESET plan_cache_mode"); err == nil {
		err = rerr
	}
	return err
}

// explainExecute explains one more execution of a prepared statement and says whether the
// statement has used a generic plan.
func explainExecute(ctx context.Context, conn *pgx.Conn, name string, args []any) (string, bool, error) {
	lits, err := literals(args)
	if err != nil {
		return "", false, err
	}
	exec := "EXECUTE " + name
	if len(lits) > 0 {
		exec += "(" + strings.Join(lits, ", ") + ")"
	}
	rows, err := conn.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+exec)
	if err != nil {
		return "", false, err
	}
	var b strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return "", false, err
		}
		b.WriteString(line + "\n")
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return "", false, err
	}
	var generic int64
	if err := conn.QueryRow(ctx, "SELECT generic_plans FROM pg_prepared_statements WHERE name = $1", name).Scan(&generic); err != nil {
		return "", false, err
	}
	return shortenArrays(b.String()), generic > 0, nil
}

// literals spells arguments as SQL literals for EXECUTE, which takes no bind parameters.
func literals(args []any) ([]string, error) {
	out := make([]string, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case nil:
			out[i] = "NULL"
		case bool:
			out[i] = strconv.FormatBool(v)
		case int:
			out[i] = strconv.Itoa(v)
		case int16:
			out[i] = strconv.FormatInt(int64(v), 10)
		case int32:
			out[i] = strconv.FormatInt(int64(v), 10)
		case int64:
			out[i] = strconv.FormatInt(v, 10)
		case float64:
			out[i] = strconv.FormatFloat(v, 'g', -1, 64)
		case string:
			out[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
		case time.Time:
			out[i] = "'" + v.UTC().Format(time.RFC3339Nano) + "'"
		case *time.Time:
			if v == nil {
				out[i] = "NULL"
			} else {
				out[i] = "'" + v.UTC().Format(time.RFC3339Nano) + "'"
			}
		case []int64:
			ids := make([]string, len(v))
			for j, id := range v {
				ids[j] = strconv.FormatInt(id, 10)
			}
			out[i] = "'{" + strings.Join(ids, ",") + "}'"
		case []string:
			q := make([]string, len(v))
			for j, s := range v {
				q[j] = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "'", "''").Replace(s) + `"`
			}
			out[i] = "'{" + strings.Join(q, ",") + "}'"
		default:
			return nil, fmt.Errorf("bench: no SQL literal for argument $%d of type %T", i+1, a)
		}
	}
	return out, nil
}
