// Package seed is the data generator: it fills an empty database with a deterministic
// world of users, follows, posts, events, likes and comments, for the demo, the bench and
// tests. The bulk load is its own (COPY into every table, ids and sequences set here); of
// package db it uses the pool and what the store alone knows how to redo, the items' talk
// counts.
package seed

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"tributary/db"
)

// Window is how far back from Config.End the seeded posts reach.
const Window = 180 * 24 * time.Hour

// Config says what Fill generates. The same config gives byte-identical data.
type Config struct {
	Users    int   // members, at least 10; the first ones are the demo logins
	Posts    int   // shares
	Events   int   // card_seen events; 0 means 12 per post
	Likes    int   // likes; 0 means 5 per post (fewer when the world has too few users)
	Comments int   // comments; 0 means 1 per post
	Seed     int64 // picks one of many equally plausible worlds
	// End is the end of the seeded period (posts cover the Window before it); the zero
	// value means the start of the current UTC day.
	End time.Time
	// Progress, when set, is told how each stage advances ("plan", "users", "anchors",
	// "follows", "posts", "feed_posts", "events", "comments", "likes", "filter feeds",
	// "indexes"; some run at the same time): done runs from 0 to total. Calls never
	// overlap, but may come from any goroutine.
	Progress func(stage string, done, total int)
	// DemoPasswordHash is stored as every seeded user's password hash, so the demo logins
	// and every other seeded handle log in with the same password.
	DemoPasswordHash string
	// DemoPassword is the password behind DemoPasswordHash, reported with the demo logins.
	DemoPassword string
}

// DemoLogin is a seeded account worth logging in as.
type DemoLogin struct {
	Handle, Password, Note string
}

// Result counts what Fill wrote.
type Result struct {
	Users, Follows, Posts, Anchors, Events int
	Likes, Comments                        int
	Logins                                 []DemoLogin
	Note                                   string
}

// ErrNotEmpty is returned when Fill is asked to fill a database that has data.
var ErrNotEmpty = errors.New("seed: the database already has users or anchors; seed only an empty, migrated database")

// Fill fills an empty database with a deterministic world: users and their posts feeds,
// power-law follows, posts of papers, models, repositories, blogs and tweets (each derived
// by tributary.Prepare, as the app would), their anchors and feed entries, card_seen
// events, and likes and comments with the bumps the comments made. Ids are allocated here
// and the sequences advanced past them, so the app can insert afterwards. It fails with
// ErrNotEmpty unless the database is empty, and writes nothing when it fails (see load for
// the one exception).
func Fill(ctx context.Context, s *db.Store, cfg Config) (Result, error) {
	switch {
	case cfg.Users < 10:
		return Result{}, fmt.Errorf("seed: need at least 10 users, got %d", cfg.Users)
	case cfg.Posts < 0 || cfg.Events < 0 || cfg.Likes < 0 || cfg.Comments < 0:
		return Result{}, fmt.Errorf("seed: posts, events, likes and comments must not be negative")
	}
	if cfg.Events == 0 {
		cfg.Events = 12 * cfg.Posts
	}
	if cfg.Likes == 0 {
		cfg.Likes = 5 * cfg.Posts
	}
	if cfg.Comments == 0 {
		cfg.Comments = cfg.Posts
	}
	if cfg.End.IsZero() {
		cfg.End = time.Now().UTC().Truncate(24 * time.Hour)
	}
	if cfg.Progress == nil {
		cfg.Progress = func(string, int, int) {}
	}
	var mu sync.Mutex // stages run concurrently; the callback never does
	progress := cfg.Progress
	cfg.Progress = func(stage string, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		progress(stage, done, total)
	}
	w := newSeedWorld(cfg)
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		<-w.planned // no drawing goes on after Fill returns
	}()
	w.plan(ctx)
	res, err := load(ctx, s.Pool, w)
	if err != nil {
		return Result{}, err
	}
	if err := vacuum(ctx, s.Pool); err != nil {
		return Result{}, err
	}
	for i, d := range seedDemos {
		res.Logins = append(res.Logins, DemoLogin{Handle: d.handle, Password: cfg.DemoPassword,
			Note: fmt.Sprintf(d.note, w.outOff[i+1]-w.outOff[i])})
	}
	res.Note = "Every seeded user has the demo password, so any seeded handle can log in too."
	return res, nil
}

// load writes the world in one transaction. When per-row foreign-key checks can be
// skipped (seedSkipTriggers) and the pool has a second connection, the events (most of
// the rows), the feed entries, comments, likes and filter feeds go through a second
// transaction at the same time, committed right after the first: PostgreSQL spends most
// of a load on indexes, one core per connection. Each transaction then builds the indexes
// of its tables after their rows (dropIndexes).
func load(ctx context.Context, pool *pgxpool.Pool, w *seedWorld) (Result, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil) // stops the generators when a step fails
	fail := func(err error) (Result, error) {
		cancel(err)
		return Result{}, context.Cause(ctx) // the first failure, not its echo elsewhere
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fail(fmt.Errorf("seed: begin: %w", err))
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	// Block concurrent writers so that "empty" stays true until we commit.
	if _, err := tx.Exec(ctx, "LOCK TABLE users, anchors IN SHARE ROW EXCLUSIVE MODE"); err != nil {
		return fail(fmt.Errorf("seed: lock: %w", err))
	}
	var busy bool
	err = tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM users) OR EXISTS (SELECT 1 FROM anchors)").Scan(&busy)
	if err != nil {
		return fail(fmt.Errorf("seed: check empty: %w", err))
	}
	if busy {
		return Result{}, ErrNotEmpty
	}
	bulk, err := seedSkipTriggers(ctx, tx)
	if err != nil {
		return fail(err)
	}
	var firing map[string]bool
	var kept []seedTrigger
	if bulk {
		if firing, kept, err = keepTriggers(ctx, tx); err != nil {
			return fail(err)
		}
	}
	// Tables are written before their indexes are built (dropIndexes) when foreign keys are
	// not checked row by row (bulk). The triggers that still fire (follows') run once per
	// statement on their transition tables and look rows up by id, whose indexes stay.
	mainTables := seedTables

	// The side transaction needs the anchor ids, which the main one needs only later. Its
	// rows refer to rows it cannot see, so its tables must be written with triggers off.
	anchorsReady := make(chan struct{})
	var side pgx.Tx
	var sideDone chan error
	sideTables := []string{"events", "feed_posts", "comments", "post_bumps", "likes", "filter_posts"}
	if bulk && pool.Config().MaxConns >= 2 && !slices.ContainsFunc(sideTables, func(t string) bool { return firing[t] }) {
		if side, err = pool.Begin(ctx); err != nil {
			return fail(fmt.Errorf("seed: begin: %w", err))
		}
		defer side.Rollback(context.WithoutCancel(ctx))
		if ok, err := seedSkipTriggers(ctx, side); err != nil || !ok {
			return fail(cmp.Or(err, errors.New("seed: the second connection may not skip triggers")))
		}
		mainTables = slices.DeleteFunc(slices.Clone(seedTables), func(t string) bool { return slices.Contains(sideTables, t) })
		var sideIndexes []seedIndex
		if bulk {
			if sideIndexes, err = dropIndexes(ctx, side, sideTables...); err != nil {
				return fail(err)
			}
		}
		sideDone = make(chan error, 1)
		go func() {
			err := w.waitPlan(ctx)
			if err == nil {
				err = w.planAnchors(ctx)
			}
			if err == nil {
				close(anchorsReady)
				err = w.copyEvents(ctx, side)
			}
			if err == nil {
				err = w.copyFeedPosts(ctx, side)
			}
			if err == nil {
				err = w.copyComments(ctx, side)
			}
			if err == nil {
				err = w.copyLikes(ctx, side)
			}
			if err == nil {
				err = w.copyFilterPosts(ctx, side)
			}
			if err == nil {
				err = w.checkReferences(ctx, side, sideTables...)
			}
			if err == nil {
				err = buildIndexes(ctx, side, sideIndexes, func(done, total int) { w.cfg.Progress("indexes (2nd connection)", done, total) })
			}
			if err != nil {
				cancel(err)
			}
			sideDone <- err
		}()
		// On any early return the goroutine stops, and is done with side before it rolls back.
		defer func() {
			cancel(nil)
			if sideDone != nil {
				<-sideDone
			}
		}()
	} else {
		if err := w.waitPlan(ctx); err != nil {
			return fail(err)
		}
		if err := w.planAnchors(ctx); err != nil {
			return fail(err)
		}
		close(anchorsReady)
	}

	var mainIndexes []seedIndex
	if bulk {
		if mainIndexes, err = dropIndexes(ctx, tx, mainTables...); err != nil {
			return fail(err)
		}
	}
	for _, step := range []func(context.Context, pgx.Tx) error{w.copyUsers, w.copyFollows} {
		if err := step(ctx, tx); err != nil {
			return fail(err)
		}
	}
	select {
	case <-anchorsReady:
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	steps := []func(context.Context, pgx.Tx) error{w.copyPosts, w.copyLinkCards, w.countAnchorTalk}
	checks := []string{"feeds", "follows", "posts"}
	if side == nil {
		steps = append(steps, w.copyFeedPosts, w.copyEvents, w.copyComments, w.copyLikes)
		checks = append(checks, sideTables...)
		if bulk { // else the tables' triggers fill them, and fillFilterFeeds after the commit
			steps = append(steps, w.copyFilterPosts)
		}
	}
	for _, step := range steps {
		if err := step(ctx, tx); err != nil {
			return fail(err)
		}
	}
	if bulk {
		if err := w.checkReferences(ctx, tx, checks...); err != nil {
			return fail(err)
		}
	}
	if err := buildIndexes(ctx, tx, mainIndexes, func(done, total int) { w.cfg.Progress("indexes", done, total) }); err != nil {
		return fail(err)
	}
	if side != nil {
		err := <-sideDone
		sideDone = nil
		if err != nil {
			return fail(err)
		}
	}
	res := Result{Users: len(w.users), Follows: len(w.outDst), Posts: len(w.shares), Anchors: len(w.anchors), Events: w.events,
		Likes: len(w.likes), Comments: len(w.comments)}
	if err := seedSetSequences(ctx, tx, res, w.ords); err != nil {
		return fail(err)
	}
	if err := restoreTriggers(ctx, tx, kept); err != nil {
		return fail(err)
	}
	// Rows written here redo no item of the snapshot: the next refresh rebuilds it in full.
	if _, err := tx.Exec(ctx, "DELETE FROM snapshot_meta"); err != nil {
		return fail(fmt.Errorf("seed: forget the snapshot's state: %w", err))
	}
	if err := tx.Commit(ctx); err != nil {
		return fail(fmt.Errorf("seed: commit: %w", err))
	}
	if side != nil {
		if err := side.Commit(ctx); err != nil {
			return fail(fmt.Errorf("seed: commit events, feed entries, comments and likes (all else is committed; seed a fresh database instead): %w", err))
		}
	}
	if !bulk {
		w.cfg.Progress("filter feeds", 0, 1)
		if err := fillFilterFeeds(ctx, pool); err != nil {
			return fail(err)
		}
		w.cfg.Progress("filter feeds", 1, 1)
	}
	return res, nil
}

// vacuum gives the seeded tables fresh statistics, so the first queries on the new data
// plan well, and their visibility maps, so index-only scans are index-only at once instead
// of after autovacuum: VACUUM (ANALYZE), a table per connection at a time, the largest
// first (one table at a time took 52 s of the 4M seed).
func vacuum(ctx context.Context, pool *pgxpool.Pool) error {
	rows, err := pool.Query(ctx, `SELECT t FROM unnest($1::text[]) t ORDER BY pg_table_size(t::regclass) DESC`, seedTables)
	if err != nil {
		return fmt.Errorf("seed: vacuum: %w", err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("seed: vacuum: %w", err)
	}
	queue := make(chan string, len(tables))
	for _, t := range tables {
		queue <- t
	}
	close(queue)
	g, ctx := errgroup.WithContext(ctx)
	for range min(int(pool.Config().MaxConns), runtime.NumCPU(), len(tables)) {
		g.Go(func() error {
			for t := range queue {
				if _, err := pool.Exec(ctx, "VACUUM (ANALYZE) "+pgx.Identifier{t}.Sanitize()); err != nil {
					return fmt.Errorf("seed: vacuum %s: %w", t, err)
				}
			}
			return nil
		})
	}
	return g.Wait()
}
