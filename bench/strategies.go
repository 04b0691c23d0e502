package bench

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Seed 004's ways to materialize a home feed, side by side on the same data (issue 15): a
// page is a reader's 30 newest posts by themselves and their followees that they may read.
//   - fanout on read: the posts of the followed set, by time (what Tributary does, and what
//     its rivers add to);
//   - fanout on write to a capped cache (Tributary's rivers): a reader's newest L post ids,
//     linked (the posts are read by id) or embedded (each row carries what a card shows and
//     the post's access columns, so the read touches no post);
//   - time buckets: one row per reader and day holding that day's ids, newest first;
//   - sized buckets: rows of at most 100 ids per reader, the newest filled first.
// The caches are made once per dataset (untimed) for the bench's viewers and for the active
// readers: the first 2,000 followers of the most followed author, whose share is the write
// measured (its fanout into the 2,000 caches, in a transaction rolled back so the data stays
// the same). Storage is each structure's bytes (table and indexes) as built, over its readers.

// strategyDepth is the cache depth L (seed 003's depth cap; rivers default to 1,000).
const strategyDepth = 1000

// strategyActive is how many of the author's followers read actively.
const strategyActive = 2000

// strategyBuild makes the strategies' tables for the readers in strat_readers, each holding
// a reader's strategyDepth newest posts of the dataset (post ids up to maxPost: the posts a
// bench run makes are removed by the next one's restore, and tables kept across runs must
// not point at them). Those are the newest of each followed author's newest strategyDepth,
// read on the posts' author index: one scan of the posts by time per reader, filtered by
// author, ran for more than 20 minutes at 4M posts.
func strategyBuild(maxPost int64) string {
	return fmt.Sprintf(`
DROP TABLE IF EXISTS strat_inbox, strat_inbox_embed, strat_time_buckets, strat_sized_buckets, strat_sizes;
CREATE TEMP TABLE strat_fill AS
SELECT reader_id, post_id, created_at FROM (
       SELECT r.reader_id, x.id AS post_id, x.created_at,
              row_number() OVER (PARTITION BY r.reader_id ORDER BY x.created_at DESC, x.id DESC) AS n
         FROM strat_readers r
        CROSS JOIN LATERAL (
              SELECT r.reader_id AS author_id
              UNION
              SELECT f.followed_id FROM follows f WHERE f.follower_id = r.reader_id AND f.state = 'active') a
        CROSS JOIN LATERAL (
              SELECT p.id, p.created_at FROM posts p
               WHERE p.author_id = a.author_id AND p.deleted_at IS NULL AND p.id <= %[1]d
               ORDER BY p.created_at DESC, p.id DESC
               LIMIT %[2]d) x) t
 WHERE n <= %[2]d;
CREATE TABLE strat_inbox AS
SELECT reader_id, created_at AS arrival, post_id FROM strat_fill;
ALTER TABLE strat_inbox ADD PRIMARY KEY (reader_id, arrival, post_id);
CREATE TABLE strat_inbox_embed AS
SELECT f.reader_id, f.created_at AS arrival, p.id AS post_id, p.author_id, p.anchor_id, p.url, p.title,
       p.is_public, p.protected_owner_ids, p.private_feed_ids
  FROM strat_fill f JOIN posts p ON p.id = f.post_id;
ALTER TABLE strat_inbox_embed ADD PRIMARY KEY (reader_id, arrival, post_id);
CREATE TABLE strat_time_buckets AS
SELECT reader_id, floor(extract(epoch FROM created_at) / 86400)::int AS day,
       array_agg(post_id ORDER BY created_at DESC, post_id DESC) AS post_ids
  FROM strat_fill GROUP BY 1, 2;
ALTER TABLE strat_time_buckets ADD PRIMARY KEY (reader_id, day);
CREATE TABLE strat_sized_buckets AS
SELECT reader_id, bucket, array_agg(post_id ORDER BY created_at DESC, post_id DESC) AS post_ids
  FROM (SELECT reader_id, post_id, created_at,
               ((row_number() OVER (PARTITION BY reader_id ORDER BY created_at, post_id) - 1) / 100)::int AS bucket
          FROM strat_fill) t
 GROUP BY 1, 2;
ALTER TABLE strat_sized_buckets ADD PRIMARY KEY (reader_id, bucket);
DROP TABLE strat_fill;
ANALYZE strat_inbox, strat_inbox_embed, strat_time_buckets, strat_sized_buckets`, maxPost, strategyDepth)
}

// strategyViewer is the access the reads check: the reader's bans (both ways) and private
// feeds, as the app's own reads do.
const strategyViewer = `viewer AS MATERIALIZED (
    SELECT ARRAY(SELECT b.banned_id FROM bans b WHERE b.user_id = $1
                 UNION SELECT b.user_id FROM bans b WHERE b.banned_id = $1) AS blocked,
           ARRAY(SELECT r.feed_id FROM feed_readers r WHERE r.user_id = $1) AS private_feeds)`

// A strategy: its page read, its fanout of post $1 (a share) into the active readers' caches
// (none for fanout on read), and its tables.
type strategy struct {
	name, what string
	read       string
	write      string
	tables     []string
}

var strategies = []strategy{
	{name: "fanout_read", what: "fanout on read: the followed set's posts by time",
		read: `WITH ` + strategyViewer + `
SELECT p.id, p.author_id, p.url, p.title, p.created_at FROM posts p, viewer
 WHERE (p.author_id = $1 OR p.author_id IN (SELECT f.followed_id FROM follows f WHERE f.follower_id = $1 AND f.state = 'active'))
   AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, $1, viewer.blocked, viewer.private_feeds)
 ORDER BY p.created_at DESC, p.id DESC LIMIT 30`},
	{name: "inbox", what: "fanout on write to a capped cache, linking (the rivers' shape): newest ids, posts read by id",
		read: `WITH ` + strategyViewer + `
SELECT p.id, p.author_id, p.url, p.title, i.arrival FROM strat_inbox i JOIN posts p ON p.id = i.post_id, viewer
 WHERE i.reader_id = $1 AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, $1, viewer.blocked, viewer.private_feeds)
 ORDER BY i.arrival DESC, i.post_id DESC LIMIT 30`,
		write: `WITH w AS (INSERT INTO strat_inbox (reader_id, arrival, post_id)
SELECT a.reader_id, now(), $1 FROM strat_active a RETURNING 1) SELECT count(*) FROM w`,
		tables: []string{"strat_inbox"}},
	{name: "inbox_embed", what: "fanout on write to a capped cache, embedding: each row carries the card's fields and the post's access",
		read: `WITH ` + strategyViewer + `
SELECT e.post_id, e.author_id, e.url, e.title, e.arrival FROM strat_inbox_embed e, viewer
 WHERE e.reader_id = $1
   AND can_read(e.is_public, e.protected_owner_ids, e.private_feed_ids, $1, viewer.blocked, viewer.private_feeds)
 ORDER BY e.arrival DESC, e.post_id DESC LIMIT 30`,
		write: `WITH w AS (INSERT INTO strat_inbox_embed (reader_id, arrival, post_id, author_id, anchor_id, url, title, is_public, protected_owner_ids, private_feed_ids)
SELECT a.reader_id, now(), p.id, p.author_id, p.anchor_id, p.url, p.title, p.is_public, p.protected_owner_ids, p.private_feed_ids
  FROM strat_active a, posts p WHERE p.id = $1 RETURNING 1) SELECT count(*) FROM w`,
		tables: []string{"strat_inbox_embed"}},
	{name: "time_buckets", what: "fanout on write to time buckets: a row per reader and day, ids newest first",
		read: `WITH ` + strategyViewer + `
SELECT p.id, p.author_id, p.url, p.title, p.created_at
  FROM strat_time_buckets b, unnest(b.post_ids) WITH ORDINALITY x(post_id, ord), posts p, viewer
 WHERE b.reader_id = $1 AND p.id = x.post_id AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, $1, viewer.blocked, viewer.private_feeds)
 ORDER BY b.day DESC, x.ord LIMIT 30`,
		write: `WITH w AS (INSERT INTO strat_time_buckets (reader_id, day, post_ids)
SELECT a.reader_id, floor(extract(epoch FROM now()) / 86400)::int, ARRAY[$1::bigint] FROM strat_active a
ON CONFLICT (reader_id, day) DO UPDATE SET post_ids = excluded.post_ids || strat_time_buckets.post_ids
RETURNING 1) SELECT count(*) FROM w`,
		tables: []string{"strat_time_buckets"}},
	{name: "sized_buckets", what: "fanout on write to sized buckets: rows of at most 100 ids per reader, the newest filled first",
		read: `WITH ` + strategyViewer + `
SELECT p.id, p.author_id, p.url, p.title, p.created_at
  FROM strat_sized_buckets b, unnest(b.post_ids) WITH ORDINALITY x(post_id, ord), posts p, viewer
 WHERE b.reader_id = $1 AND p.id = x.post_id AND p.deleted_at IS NULL
   AND can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, $1, viewer.blocked, viewer.private_feeds)
 ORDER BY b.bucket DESC, x.ord LIMIT 30`,
		write: `WITH newest AS (
    SELECT DISTINCT ON (b.reader_id) b.reader_id, b.bucket, cardinality(b.post_ids) AS n
      FROM strat_sized_buckets b JOIN strat_active a ON a.reader_id = b.reader_id
     ORDER BY b.reader_id, b.bucket DESC),
filled AS (
    UPDATE strat_sized_buckets b SET post_ids = $1::bigint || b.post_ids
      FROM newest n WHERE b.reader_id = n.reader_id AND b.bucket = n.bucket AND n.n < 100
    RETURNING b.reader_id),
opened AS (
    INSERT INTO strat_sized_buckets (reader_id, bucket, post_ids)
    SELECT a.reader_id, coalesce(n.bucket + 1, 0), ARRAY[$1::bigint]
      FROM strat_active a LEFT JOIN newest n ON n.reader_id = a.reader_id
     WHERE n.n IS NULL OR n.n >= 100
    RETURNING 1)
SELECT (SELECT count(*) FROM filled) + (SELECT count(*) FROM opened)`,
		tables: []string{"strat_sized_buckets"}},
}

// strategyData makes the strategies' tables once per run and knows the author whose share is
// fanned out, and each structure's bytes per reader.
type strategyData struct {
	once    sync.Once
	err     error
	author  int64
	post    int64 // one of the author's posts, fanned out again as if new
	readers int64
	bytes   map[string]int64
}

func (d *strategyData) prepare(ctx context.Context, pool *pgxpool.Pool, viewers []int64, maxPost int64) error {
	d.once.Do(func() { d.err = d.build(ctx, pool, viewers, maxPost) })
	return d.err
}

func (d *strategyData) build(ctx context.Context, pool *pgxpool.Pool, viewers []int64, maxPost int64) error {
	if err := pool.QueryRow(ctx, `SELECT followed_id FROM follows WHERE state = 'active'
		GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`).Scan(&d.author); err != nil {
		return fmt.Errorf("bench: strategies: author: %w", err)
	}
	if err := pool.QueryRow(ctx, `SELECT id FROM posts WHERE author_id = $1 AND deleted_at IS NULL ORDER BY created_at DESC LIMIT 1`,
		d.author).Scan(&d.post); err != nil {
		return fmt.Errorf("bench: strategies: the author's post: %w", err)
	}
	// The readers: the active followers, and the bench's viewers. The tables are kept while
	// they are the same (a dataset's bench database is made again when it changes) and hold
	// the dataset's posts only.
	var same bool
	err := pool.QueryRow(ctx, `SELECT to_regclass('strat_sizes') IS NOT NULL AND to_regclass('strat_readers') IS NOT NULL`).Scan(&same)
	if err == nil && same {
		err = pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM strat_readers WHERE reader_id = ANY($1::bigint[])) = cardinality($1::bigint[])
			AND NOT EXISTS (SELECT 1 FROM strat_inbox WHERE post_id > $2)`, viewers, maxPost).Scan(&same)
	}
	if err != nil {
		return fmt.Errorf("bench: strategies: %w", err)
	}
	if !same {
		build := fmt.Sprintf(`DROP TABLE IF EXISTS strat_readers, strat_active;
CREATE TABLE strat_active AS
SELECT f.follower_id AS reader_id FROM follows f WHERE f.followed_id = %d AND f.state = 'active'
 ORDER BY f.follower_id LIMIT %d;
CREATE TABLE strat_readers AS
SELECT reader_id FROM strat_active UNION SELECT unnest('{%s}'::bigint[]);
`, d.author, strategyActive, joinIDs(viewers)) + strategyBuild(maxPost)
		if _, err := pool.Exec(ctx, build); err != nil {
			return fmt.Errorf("bench: strategies: build: %w", err)
		}
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM strat_readers`).Scan(&d.readers); err != nil {
		return fmt.Errorf("bench: strategies: %w", err)
	}
	// Sizes are taken as built and kept: the write scenarios' rolled-back rows leave their
	// space behind, and a later run would count it.
	if !same {
		if _, err := pool.Exec(ctx, `CREATE TABLE strat_sizes AS
			SELECT t AS name, pg_total_relation_size(t::regclass) AS bytes
			  FROM unnest(ARRAY['strat_inbox', 'strat_inbox_embed', 'strat_time_buckets', 'strat_sized_buckets']) t`); err != nil {
			return fmt.Errorf("bench: strategies: sizes: %w", err)
		}
	}
	d.bytes = map[string]int64{}
	for _, s := range strategies {
		for _, t := range s.tables {
			var b int64
			if err := pool.QueryRow(ctx, `SELECT bytes FROM strat_sizes WHERE name = $1`, t).Scan(&b); err != nil {
				return fmt.Errorf("bench: strategies: size of %s: %w", t, err)
			}
			d.bytes[s.name] += b
		}
	}
	return nil
}

func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ",")
}

// perReader says a strategy's storage.
func (d *strategyData) perReader(name string) string {
	if d.readers == 0 || d.bytes[name] == 0 {
		return "no storage beyond the posts"
	}
	return fmt.Sprintf("%.1f KB per reader (%d readers, %.1f MB)", float64(d.bytes[name])/float64(d.readers)/1000,
		d.readers, float64(d.bytes[name])/1e6)
}

// strategyScenarios are each strategy's page read for each follower class, and its fanout of
// one share to the active readers.
func (w *world) strategyScenarios(pool *pgxpool.Pool, conc int) []scenario {
	d := &strategyData{}
	var viewers []int64
	for _, c := range w.classes {
		for _, v := range c.Viewers {
			viewers = append(viewers, v.ID)
		}
	}
	setup := func(ctx context.Context) error { return d.prepare(ctx, pool, viewers, w.maxPost) }
	var out []scenario
	for _, s := range strategies {
		for _, c := range w.classes {
			out = append(out, scenario{Name: fmt.Sprintf("strategy_read_%s_%s", s.name, c.Name),
				Group: "seed 004: a home page's 30 newest posts (SQL only)", Class: c.Name, Kind: "sql", Concurrency: conc,
				note:  func() string { return s.what + "; " + d.perReader(s.name) },
				setup: setup,
				worker: sqlReads(pool, c, conc, s.read, func(v *viewer) []any { return []any{v.ID} },
					func(v *viewer, n int) error {
						if n == 0 {
							return fmt.Errorf("strategy %s: %d's home is empty", s.name, v.ID)
						}
						return nil
					})})
		}
		if s.write == "" {
			continue
		}
		out = append(out, scenario{Name: "strategy_write_" + s.name,
			Group: "seed 004: one share fanned out to 2,000 active followers (SQL only)", Kind: "sql", Concurrency: 1,
			note: func() string {
				return fmt.Sprintf("%s; the most followed author's share into %d caches, in a transaction rolled back", s.what, strategyActive)
			},
			setup: setup,
			worker: func(int) step {
				return func(ctx context.Context) (latency, error) {
					tx, err := pool.Begin(ctx)
					if err != nil {
						return latency{}, err
					}
					defer tx.Rollback(ctx)
					return timed(func() error {
						var n int64
						err := tx.QueryRow(ctx, s.write, d.post).Scan(&n)
						if err == nil && n < strategyActive/2 {
							err = fmt.Errorf("strategy %s: the share reached %d caches", s.name, n)
						}
						return err
					})
				}
			}})
	}
	return out
}

// strategiesMarkdown is the report's side-by-side table of seed 004's strategies, with the
// default chosen from it; "" when the run had none of them.
func strategiesMarkdown(results []Result) string {
	byName := map[string]Result{}
	for _, x := range results {
		byName[x.Name] = x
	}
	var b strings.Builder
	for _, s := range strategies {
		row := []string{"`" + s.name + "`"}
		found := false
		for _, class := range []string{"light", "median", "heavy"} {
			x, ok := byName[fmt.Sprintf("strategy_read_%s_%s", s.name, class)]
			found = found || ok
			row = append(row, fmtMs(x.P50)+" / "+fmtMs(x.P99))
		}
		write, storage := "none (the share's own row)", "none beyond the posts"
		if x, ok := byName["strategy_write_"+s.name]; ok {
			write = fmtMs(x.P50)
		}
		if x, ok := byName[fmt.Sprintf("strategy_read_%s_median", s.name)]; ok {
			if _, per, ok := strings.Cut(x.Note, "; "); ok && strings.Contains(per, "KB") {
				storage = per
			}
		}
		if found {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", strings.Join(row, " | "), write, storage)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "| strategy | read p50 / p99, light | median | heavy | write: one share to 2,000 caches, p50 | storage |\n" +
		"|---|--:|--:|--:|--:|---|\n" + b.String() + "\n" + strategiesVerdict
}

// strategiesVerdict says which strategy Tributary uses, and why (from the table above and
// from the app-level comparison in the README).
const strategiesVerdict = `Reads are a home page's 30 newest readable posts at 4 clients (SQL alone, as the baselines);
a cache holds a reader's 1,000 newest posts. Fanout on read is slowest for light followers
(their followees' posts are sparse in time order) and costs nothing on write. Among the
fanout-on-write shapes the capped cache of linked ids (the rivers' shape) reads in about half
a millisecond for every class and writes a share into 2,000 caches in 5 to 7 ms; embedding
the card's fields reads faster again but takes about three times the storage, and every copy
must be rewritten when a post is edited, deleted or changes access (the linked cache reads
those from the post); time buckets are small but slow for heavy readers (a day holds many
posts, read and sorted whole), and both bucket shapes cost several times the cache's write
(an array rewritten per reader); sized buckets are the smallest.

**Default**: Tributary's home feed is not "the newest 30": the first page ranks the hourly
snapshot (a ranked copy of the window, so fanout on read of precomputed rows) and a return
ranks what arrived since its last fencepost. That arrival read is the only part a cache could
replace, and it is already a short range of the posts' time index (about 0.1 ms). Measured in
the app (README, "Rivers against fanout on read"), serving it from rivers changed a returning
page by -15 % to +10 % at one client and cost up to 40 % at four (every share's fanout competes
for the two cores), so rivers, built as the linked capped cache, stay off by default
(` + "`--rivers`" + ` turns them on); they are the shape to take if a feed ever reads the newest posts
of a large followed set directly.
`
