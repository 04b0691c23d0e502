package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tributary/db"
)

// Baselines run straight against the database through pgx, with the same viewers and the
// same concurrency as the feed scenarios, so that the results read as ratios. They leave
// out everything around the query (HTTP, sessions, ranking in Go, JSON), which favours them.

// naiveSQL is fanout on read as Socialite's FanoutOnRead does it: the newest posts of the
// accounts the viewer follows. No ranking, no deduplication, no hide-seen.
const naiveSQL = `SELECT p.*
  FROM posts p
 WHERE p.author_id IN (SELECT followed_id FROM follows WHERE follower_id = $1 AND state = 'active')
   AND p.deleted_at IS NULL
 ORDER BY p.created_at DESC
 LIMIT $2`

// seed000SQL is seed 000's snapshot-path query written literally: the followed CTE, the
// correlated followee-share count and hide-seen sum evaluated per row. Adapted to this schema:
// events.viewer_id / type / anchor_id for viewer_user_id / event_type / doc_url, and typed
// parameters ($1 viewer or NULL for anonymous, $2 include_seen, $3 horizon in days,
// $4 min_seen_dwell_ms, $5 limit).
const seed000SQL = `WITH followed AS (
    SELECT followed_id AS user_id FROM follows WHERE follower_id = $1::bigint
    UNION
    SELECT $1::bigint WHERE $1::bigint IS NOT NULL
    UNION
    SELECT id FROM users WHERE vip = TRUE AND $1::bigint IS NULL
),
followed_ids AS (
    SELECT COALESCE(array_agg(user_id), '{}'::bigint[]) AS ids FROM followed
)
SELECT s.*,
       s.score
       + LEAST(3, GREATEST(0, (
             SELECT count(*) FROM unnest(s.sharer_user_ids) sid
              WHERE sid IN (SELECT user_id FROM followed)
         ) - 1)) * 1.5
       + CASE WHEN s.primary_user_id = $1::bigint
                   AND s.refreshed_at > now() - interval '1 hour'
              THEN 50 ELSE 0 END
       AS effective_score
  FROM feed_snapshot s
 WHERE ($1::bigint IS NULL
        OR s.sharer_user_ids && (SELECT ids FROM followed_ids LIMIT 1))
   AND ($1::bigint IS NOT NULL OR s.any_vip_sharer = TRUE)
   AND ($1::bigint IS NULL
        OR $2::bool = TRUE
        OR COALESCE((
            SELECT SUM(COALESCE(e.dwell_ms, 0))::bigint
              FROM events e
             WHERE e.viewer_id  = $1::bigint
               AND e.type       = 7
               AND e.anchor_id  = s.anchor_id
               AND e.created_at < now() - interval '10 minutes'
               AND e.created_at > now() - ($3::text || ' days')::interval
        ), 0) < $4::bigint)
 ORDER BY effective_score DESC, s.date DESC, s.url
 LIMIT $5::int * 2`

// The floor is what PostgreSQL must do for any logged-in first page while sessions, access
// state and fences live in PostgreSQL (DESIGN.md, Scale: stateless app instances), as three
// dependent round trips with nothing around them: find the session by its token (scs's
// query), read the viewer's access state (their bans and the private feeds they read: the
// access rules hold at every request, so these cannot be served from a cache that another
// instance does not invalidate), and commit the fencepost the page serves. It answers
// whether a target below it can be met at all.
const (
	floorSessionSQL = `SELECT data FROM sessions WHERE token_hash = $1 AND current_timestamp < expiry`
	floorAccessSQL  = `SELECT ARRAY(SELECT banned_id FROM bans WHERE user_id = $1
	                                UNION SELECT user_id FROM bans WHERE banned_id = $1),
	                          ARRAY(SELECT feed_id FROM feed_readers WHERE user_id = $1)`
)

// floorTemplate keeps the floor's fenceposts apart from the viewers' feeds.
const floorTemplate = "bench-floor"

// baselineArgs are the arguments of a baseline query for a viewer (0: anonymous).
func baselineArgs(name string, viewer int64, pageSize, headSize int) []any {
	if name == "naive" {
		return []any{viewer, pageSize}
	}
	var v any = viewer
	if viewer == 0 {
		v = nil
	}
	return []any{v, false, "30", 1500, headSize}
}

// queryAll runs a query and reads every row, decoded, as the app would.
// sqlReads is the worker of an SQL-only scenario over a follower class: each request runs
// sql with args(v) for the worker's next viewer v, and check (when set) judges the number of
// rows it returned.
func sqlReads(pool *pgxpool.Pool, c class, conc int, sql string, args func(v *viewer) []any, check func(v *viewer, rows int) error) func(i int) step {
	return func(i int) step {
		mine, k := owned(c.Viewers, i, conc), 0
		return func(ctx context.Context) (latency, error) {
			v := mine[k%len(mine)]
			k++
			return timed(func() error {
				n, err := queryAll(ctx, pool, sql, args(v)...)
				if err == nil && check != nil {
					err = check(v, n)
				}
				return err
			})
		}
	}
}

func queryAll(ctx context.Context, pool *pgxpool.Pool, sql string, args ...any) (int, error) {
	rows, err := pool.Query(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		if _, err := rows.Values(); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

// baselines are the baseline scenarios: naive fanout on read and seed 000's SQL for each
// follower class, and seed 000's anonymous branch.
func (w *world) baselines(pool *pgxpool.Pool, conc, headSize int) []scenario {
	var out []scenario
	sqlOf := map[string]string{"naive": naiveSQL, "seed000": seed000SQL}
	for _, name := range []string{"naive", "seed000"} {
		for _, c := range w.classes {
			group := "baseline: naive fanout on read (SQL only)"
			note := fmt.Sprintf("newest %d posts of the followees (Socialite FanoutOnRead)", w.pageSize)
			if name == "seed000" {
				group = "baseline: seed 000 snapshot query, literal (SQL only)"
				note = fmt.Sprintf("seed 000's SQL with correlated sub-queries, LIMIT %d", 2*headSize)
			}
			out = append(out, scenario{Name: "baseline_" + name + "_" + c.Name, Group: group, Class: c.Name, Kind: "sql",
				Concurrency: conc, Note: note,
				worker: sqlReads(pool, c, conc, sqlOf[name], func(v *viewer) []any {
					return baselineArgs(name, v.ID, w.pageSize, headSize)
				}, nil)})
		}
	}
	c := w.classes[len(w.classes)-1]
	var token []byte // the session's token hash, as the table keys it
	head := make([]int64, w.pageSize)
	for i := range head {
		head[i] = int64(i + 1)
	}
	out = append(out, scenario{Name: "baseline_floor_" + c.Name, Group: "baseline: the floor of a logged-in first page (SQL only)", Class: c.Name,
		Kind: "sql", Concurrency: conc,
		Note: "three dependent round trips: the session by token, the viewer's bans and private feeds, the commit of a fencepost",
		setup: func(ctx context.Context) error {
			return pool.QueryRow(ctx, "SELECT token_hash FROM sessions ORDER BY expiry DESC LIMIT 1").Scan(&token)
		},
		teardown: func() {
			pool.Exec(context.Background(), "DELETE FROM fences WHERE template = $1", floorTemplate)
			pool.Exec(context.Background(), "DELETE FROM fenceposts WHERE template = $1", floorTemplate)
		},
		worker: func(i int) step {
			mine, k := owned(c.Viewers, i, conc), 0
			return func(ctx context.Context) (latency, error) {
				v := mine[k%len(mine)]
				k++
				return timed(func() error {
					var data []byte
					if err := pool.QueryRow(ctx, floorSessionSQL, token).Scan(&data); err != nil {
						return fmt.Errorf("floor: session: %w", err)
					}
					var blocked, private []int64
					if err := pool.QueryRow(ctx, floorAccessSQL, v.ID).Scan(&blocked, &private); err != nil {
						return fmt.Errorf("floor: access: %w", err)
					}
					now := time.Now()
					return w.store.CommitFencepost(ctx, v.ID, floorTemplate, db.FencepostRow{At: now, Head: head}, now)
				})
			}
		}})
	out = append(out, scenario{Name: "baseline_seed000_anon", Group: "baseline: seed 000 snapshot query, literal (SQL only)",
		Kind: "sql", Concurrency: conc, Note: "the anonymous branch ($me NULL): VIP shares by score",
		worker: func(int) step {
			return func(ctx context.Context) (latency, error) {
				return timed(func() error {
					_, err := queryAll(ctx, pool, seed000SQL, baselineArgs("seed000", 0, w.pageSize, headSize)...)
					return err
				})
			}
		}})
	return out
}
