package bench

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"tributary/db"
)

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

// nameRe is the line that names a sqlc query.
var nameRe = regexp.MustCompile(`^\s*-- name: (\w+)[^\n]*\n?`)

// queryName is sqlc's name of a query, or the start of its text.
func queryName(sql string) string {
	if name := db.QueryName(sql); name != "" {
		return name
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
