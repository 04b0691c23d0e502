package db

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"tributary/db/internal/dbq"
)

// planned is the connection the queries run on, with a choice of plan per query. Feed
// queries take id arrays whose size decides the plan (10 followees or 2,000: the GIN or the
// score index, the author or the time index); a generic plan assumes one small size for all
// and was measured 1000x off for large followed sets, so these are planned with their
// arguments on every run (pgx's unnamed statement: QueryExecModeCacheDescribe). The small
// queries of every page and of every share, whose plan is the same whatever the arguments,
// run as named prepared statements that PostgreSQL plans once (plan_cache_mode auto):
// planning them each time was ~15 % of a next page's CPU and half of a share's time. Through a
// pooler in transaction mode nothing stays prepared: there the reads every feed page makes
// (SessionWithAccess, ViewerState, LikedOf) keep their plans as PL/pgSQL functions (00059).
type planned struct{ db dbq.DBTX }

// genericPlans are the queries that run as named prepared statements. PostgreSQL keeps the
// generic plan of one when that plan's estimate is no dearer than the plans made for the
// arguments; inside a pipedTx it always does.
var genericPlans = map[string]bool{
	// pages
	"ViewerState": true, "LatestFencepost": true, "FencepostsFrom": true, "CommitFencepost": true, "ResetFences": true,
	"SnapshotRowsByAnchors": true, "UserByID": true, "SnapshotMeta": true, "RecentArrivals": true, "LateCommitted": true,
	// shares and the snapshot rows they redo
	"PostsFeedOf": true, "InsertPost": true,
	"RecomputePostAccess": true, "LockAnchors": true, "PostFactsByAnchors": true,
	"ClearSnapshotRows": true,
	// conversations: cards' counts, post pages, likes and comments (index probes whatever the
	// arguments; AnchorTalk took 10 ms to plan and 1 ms to run)
	"AnchorTalk": true, "PublicTalk": true, "LikedOf": true, "PostTalk": true, "ReadablePostsByID": true, "ReadablePostsOfAnchor": true,
	"Thread": true, "Likers": true, "Like": true, "Unlike": true, "AddComment": true, "PostPage": true, "PostThread": true,
	"CommentForAction": true, "EditComment": true, "DeleteComment": true, "LivePosts": true,
	// filter feeds: one index range whatever the feed
	"FilterArrivals": true, "FilterArrivalPosts": true, "ActivityArrivals": true, "ActivityReasons": true,
	"ViewerAccessOf": true, "UserWithAccess": true, "UserByHandle": true,
	// sessions: read with their user on every signed-in request; every write's rate limit
	"SessionWithAccess": true, "SessionData": true, "CommitSession": true, "DeleteSession": true, "HitRateLimit": true,
	// the site's change log, read by every instance after each wake-up
	"SiteChangesFrom": true, "WakeSite": true, "WakeToken": true, "SiteXmin": true, "SiteInstanceSeen": true,
	// searches: a search's candidates checked for a reader, by id
	"SearchAmong": true,
	// rivers: one reader's inbox, whatever the reader
	"RiverArrivals": true,
	// notifications: one recipient's index range, whatever the recipient
	"Notifications": true, "UnreadNotifications": true, "ReadPostNotifications": true,
	// chronological feeds: a branch per scope, the others' one-time filters false
	"ChronoArrivals": true,
	// late arrivals: a walk of the xid index (or of one feed's minutes) from a fencepost's row
	"ChronoLate": true, "FilterLate": true, "LatePosts": true, "ActivityLate": true,
}

// forcedGeneric are queries in genericPlans that run on their generic plan outside
// transactions too. PostgreSQL's auto choice compares estimates: RecentArrivals over a return
// after a minute is estimated at one row, so auto planned it on every call (0.25-0.45 ms,
// 2,000 followees included) for a plan that is the same whatever the arguments; so did Like
// on the 400k bench data (0.5 ms of planning to a like's 0.5 ms of work), and Notifications
// (1.2 ms of planning a page of 30 lines to run in 0.6 ms: the same recipient-index walk),
// and ChronoArrivals (6-8 ms of planning for 0.5 ms of work), and the late arrivals' reads
// (0.6-1.2 ms of planning for 0.1 ms of work, the same plan whatever the fencepost).
var forcedGeneric = map[string]bool{"RecentArrivals": true, "AnchorTalk": true, "PublicTalk": true, "PostTalk": true, "Thread": true,
	"Like": true, "Unlike": true, "AddComment": true,
	"PostThread": true, "ReadablePostsByID": true, "Likers": true, "FilterArrivals": true, "FilterArrivalPosts": true, "ActivityArrivals": true, "ActivityReasons": true, "SearchAmong": true, "RiverArrivals": true,
	"Notifications": true, "ChronoArrivals": true, "ChronoLate": true, "FilterLate": true, "LatePosts": true, "ActivityLate": true}

// ForcesGeneric reports whether the query named (by sqlc) always runs on its generic plan.
func ForcesGeneric(name string) bool { return forcedGeneric[name] }

// KeepsPlan reports whether the query named (by sqlc) runs as a prepared statement whose
// plan PostgreSQL may keep; the others are planned with their arguments on every run.
func KeepsPlan(name string) bool { return genericPlans[name] }

// args puts the execution mode before a query's arguments.
func (p planned) args(sql string, args []any) []any {
	if genericPlans[QueryName(sql)] {
		return args
	}
	return append([]any{pgx.QueryExecModeCacheDescribe}, args...)
}

// QueryName is the name sqlc gives a query ("-- name: X :kind" opens its text); "" for SQL
// sqlc did not write.
func QueryName(sql string) string {
	rest, ok := strings.CutPrefix(sql, "-- name: ")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, " ")
	return name
}

func (p planned) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return p.db.Exec(ctx, sql, p.args(sql, args)...)
}

// genericKey marks a context whose queries run on their generic plan (withGenericPlans).
type genericKey struct{}

// withGenericPlans makes the queries run with ctx take their generic plan, whatever their
// name: for a caller whose arguments always call for the plan the generic one is (a search
// over the last few minutes walks the time index, whatever its words).
func withGenericPlans(ctx context.Context) context.Context {
	return context.WithValue(ctx, genericKey{}, true)
}

// genericSettings runs the rest of a batch (one implicit transaction) on generic plans, and
// without JIT compilation: PostgreSQL chooses to compile from a plan's estimated cost, which a
// generic plan states for any arguments. At 4M posts a search's last minutes (an index walk
// of 0.4 ms) were estimated at 820,000 and compiled for 600-800 ms on every call.
const genericSettings = "SELECT set_config('plan_cache_mode', 'force_generic_plan', true), set_config('jit', 'off', true)"

// generic says whether a query runs on its generic plan outside transactions.
func generic(ctx context.Context, sql string) bool {
	return forcedGeneric[QueryName(sql)] || ctx.Value(genericKey{}) != nil
}

func (p planned) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if pool, ok := p.db.(*pgxpool.Pool); ok && generic(ctx, sql) {
		return queryGeneric(ctx, pool, sql, args)
	}
	return p.db.Query(ctx, sql, p.args(sql, args)...)
}

// queryGeneric runs a query on its generic plan, in one round trip: a batch is one implicit
// transaction (a single Sync), so the plan mode set local to it by its first statement holds
// for the query and ends with it. (Inside a transaction it would outlast the query: there,
// pipedTx sets it for the whole transaction.)
func queryGeneric(ctx context.Context, pool *pgxpool.Pool, sql string, args []any) (pgx.Rows, error) {
	b := &pgx.Batch{}
	b.Queue(genericSettings)
	b.Queue(sql, args...)
	return lastRows(pool.SendBatch(ctx, b), b.Len())
}

// lastRows reads the answers of a sent batch of n statements up to its last one's, and
// returns that one's rows: closing them closes the batch.
func lastRows(br pgx.BatchResults, n int) (pgx.Rows, error) {
	for range n - 1 {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return nil, err
		}
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	return batchRows{Rows: rows, batch: br}, nil
}

// batchRows are the rows of a batch's last query: closing them ends the batch (and gives its
// connection back to the pool).
type batchRows struct {
	pgx.Rows
	batch pgx.BatchResults
}

func (r batchRows) Close() {
	r.Rows.Close()
	r.batch.Close()
}

func (p planned) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if pool, ok := p.db.(*pgxpool.Pool); ok && generic(ctx, sql) {
		rows, err := queryGeneric(ctx, pool, sql, args)
		return genericRow{rows, err}
	}
	return p.db.QueryRow(ctx, sql, p.args(sql, args)...)
}

// genericRow is the row of a query run on its generic plan (queryGeneric), read as pgx reads
// QueryRow's: no row is pgx.ErrNoRows, and the rows are closed after the first.
type genericRow struct {
	rows pgx.Rows
	err  error
}

func (r genericRow) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
}

func (p planned) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	return p.db.CopyFrom(ctx, table, columns, src)
}

// queries runs sqlc's queries on db with the plan choice above.
func queries(db dbq.DBTX) *dbq.Queries { return dbq.New(planned{db}) }
