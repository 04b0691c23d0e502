package db

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"tributary"
)

// SeedWindow is how far back from SeedConfig.End the seeded posts reach.
const SeedWindow = 180 * 24 * time.Hour

// SeedConfig says what Seed generates. The same config gives byte-identical data.
type SeedConfig struct {
	Users  int   // members, at least 10; the first ones are the demo logins
	Posts  int   // shares
	Events int   // card_seen events; 0 means 12 per post
	Seed   int64 // picks one of many equally plausible worlds
	// End is the end of the seeded period (posts cover the SeedWindow before it); the zero
	// value means the start of the current UTC day.
	End time.Time
	// Progress, when set, is told how each stage advances ("plan", "users", "follows",
	// "posts", "feed_posts", "events"): done runs from 0 to total. It is called from one
	// goroutine at a time, not necessarily the caller's.
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

// SeedResult counts what Seed wrote.
type SeedResult struct {
	Users, Follows, Posts, Anchors, Events int
	Logins                                 []DemoLogin
	Note                                   string
}

// ErrSeedNotEmpty is returned when Seed is asked to fill a database that has data.
var ErrSeedNotEmpty = errors.New("db: seed: the database already has users or anchors; seed only an empty, migrated database")

// Seed fills an empty database with a deterministic world: users and their posts feeds,
// power-law follows, posts of papers, models, repositories, blogs and tweets (each derived
// by tributary.Prepare, as the app would), their anchors and feed entries, and card_seen
// events. Ids are allocated here and the sequences advanced past them, so the app can
// insert afterwards. Everything is written in one transaction.
func (s *Store) Seed(ctx context.Context, cfg SeedConfig) (SeedResult, error) {
	switch {
	case cfg.Users < 10:
		return SeedResult{}, fmt.Errorf("db: seed: need at least 10 users, got %d", cfg.Users)
	case cfg.Posts < 0 || cfg.Events < 0:
		return SeedResult{}, fmt.Errorf("db: seed: posts and events must not be negative")
	}
	if cfg.Events == 0 {
		cfg.Events = 12 * cfg.Posts
	}
	if cfg.End.IsZero() {
		cfg.End = time.Now().UTC().Truncate(24 * time.Hour)
	}
	if cfg.Progress == nil {
		cfg.Progress = func(string, int, int) {}
	}
	w := newSeedWorld(cfg)
	cfg.Progress("plan", 0, 4)
	w.genUsers()
	cfg.Progress("plan", 1, 4)
	w.genFollows()
	cfg.Progress("plan", 2, 4)
	w.genResources()
	cfg.Progress("plan", 3, 4)
	w.genShares()
	cfg.Progress("plan", 4, 4)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the generators when a COPY fails
	tx, err := s.Pool.Begin(ctx)
	if err != nil {
		return SeedResult{}, fmt.Errorf("db: seed: begin: %w", err)
	}
	defer tx.Rollback(ctx)
	// Block concurrent writers so that "empty" stays true until we commit.
	if _, err := tx.Exec(ctx, "LOCK TABLE users, anchors IN SHARE ROW EXCLUSIVE MODE"); err != nil {
		return SeedResult{}, fmt.Errorf("db: seed: lock: %w", err)
	}
	var busy bool
	err = tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM users) OR EXISTS (SELECT 1 FROM anchors)").Scan(&busy)
	if err != nil {
		return SeedResult{}, fmt.Errorf("db: seed: check empty: %w", err)
	}
	if busy {
		return SeedResult{}, ErrSeedNotEmpty
	}
	bulk, err := seedSkipTriggers(ctx, tx)
	if err != nil {
		return SeedResult{}, err
	}
	res := SeedResult{Users: len(w.users), Follows: len(w.outDst), Posts: len(w.shares)}
	steps := []func(context.Context, pgx.Tx) error{w.copyUsers, w.copyFollows, w.copyPosts, w.copyFeedPosts, w.copyEvents}
	for _, step := range steps {
		if err := step(ctx, tx); err != nil {
			return SeedResult{}, err
		}
	}
	res.Anchors, res.Events = len(w.anchors), w.events
	if bulk {
		if err := seedCheckReferences(ctx, tx, res); err != nil {
			return SeedResult{}, err
		}
	}
	if err := seedSetSequences(ctx, tx, res); err != nil {
		return SeedResult{}, err
	}
	if err := tx.Commit(ctx); err != nil {
		return SeedResult{}, fmt.Errorf("db: seed: commit: %w", err)
	}
	// Fresh statistics, so the first queries on the new data plan well.
	if _, err := s.Pool.Exec(ctx, "ANALYZE "+strings.Join(seedTables, ", ")); err != nil {
		return SeedResult{}, fmt.Errorf("db: seed: analyze: %w", err)
	}
	for i, d := range seedDemos {
		res.Logins = append(res.Logins, DemoLogin{Handle: d.handle, Password: cfg.DemoPassword,
			Note: fmt.Sprintf(d.note, w.outOff[i+1]-w.outOff[i])})
	}
	res.Note = "Every seeded user has the demo password, so any seeded handle can log in too."
	return res, nil
}

// seedWorld is the generated dataset: users, the follow graph and the shares live in
// memory; posts and events are derived from them while they are written.
type seedWorld struct {
	cfg              SeedConfig
	start, last, end int64 // the window in Unix ms; shares happen before last

	users []seedUser
	// The follow graph as CSR arrays: user i follows outDst[outOff[i]:outOff[i+1]]
	// (ascending, followed at outAt[...]); user j is followed by inSrc[inOff[j]:inOff[j+1]].
	outOff, outDst []int32
	outAt          []int64
	inOff, inSrc   []int32

	resources []seedResource
	shares    []seedShare // post i+1, in time order
	// Each author's posts in time order: authorPosts[authorOff[a]:authorOff[a+1]].
	authorOff, authorPosts []int32

	anchors    []string // anchor i+1's URL, in order of first share
	postAnchor []int32  // anchor id of post i+1
	events     int
}

func newSeedWorld(cfg SeedConfig) *seedWorld {
	end := cfg.End.UnixMilli()
	return &seedWorld{cfg: cfg, end: end, last: end - 10*seedMinute, start: end - SeedWindow.Milliseconds()}
}

func seedTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

func (w *seedWorld) copyUsers(ctx context.Context, tx pgx.Tx) error {
	n := len(w.users)
	w.cfg.Progress("users", 0, n)
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"users"},
		[]string{"id", "handle", "display_name", "password_hash", "vip", "notability", "created_at"},
		pgx.CopyFromSlice(n, func(i int) ([]any, error) {
			u := &w.users[i]
			return []any{int64(i + 1), u.handle, u.name, w.cfg.DemoPasswordHash, u.vip, u.notability, seedTime(u.created)}, nil
		}))
	if err != nil {
		return fmt.Errorf("db: seed: copy users: %w", err)
	}
	// Every user's public posts feed has the user's id.
	_, err = tx.CopyFrom(ctx, pgx.Identifier{"feeds"},
		[]string{"id", "kind", "owner_id", "name", "access", "created_at"},
		pgx.CopyFromSlice(n, func(i int) ([]any, error) {
			return []any{int64(i + 1), "posts", int64(i + 1), "", "public", seedTime(w.users[i].created)}, nil
		}))
	if err != nil {
		return fmt.Errorf("db: seed: copy feeds: %w", err)
	}
	w.cfg.Progress("users", n, n)
	return nil
}

func (w *seedWorld) copyFollows(ctx context.Context, tx pgx.Tx) error {
	total := len(w.outDst)
	w.cfg.Progress("follows", 0, total)
	follower := 0
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"follows"},
		[]string{"follower_id", "followed_id", "state", "created_at"},
		pgx.CopyFromSlice(total, func(e int) ([]any, error) {
			for int(w.outOff[follower+1]) <= e {
				follower++
			}
			if e%(1<<16) == 0 {
				w.cfg.Progress("follows", e, total)
			}
			return []any{int64(follower + 1), int64(w.outDst[e]) + 1, "active", seedTime(w.outAt[e])}, nil
		}))
	if err != nil {
		return fmt.Errorf("db: seed: copy follows: %w", err)
	}
	w.cfg.Progress("follows", total, total)
	return nil
}

// seedPostChunk is a run of prepared posts, starting at post first+1.
type seedPostChunk struct {
	first int
	posts []tributary.Prepared
	links [][]byte
	err   error
}

const seedPostChunkSize = 4096

// copyPosts prepares posts on all CPUs and writes them chunk by chunk, each chunk's new
// anchors first (posts reference them), numbering anchors in order of first share.
func (w *seedWorld) copyPosts(ctx context.Context, tx pgx.Tx) error {
	total := len(w.shares)
	w.cfg.Progress("posts", 0, total)
	w.postAnchor = make([]int32, total)
	ids := map[string]int32{}
	chunks := (total + seedPostChunkSize - 1) / seedPostChunkSize
	for c := range seedOrdered(ctx, chunks, w.preparePosts) {
		if c.err != nil {
			return c.err
		}
		var fresh [][]any
		for k, p := range c.posts {
			id, ok := ids[p.AnchorURL]
			if !ok {
				w.anchors = append(w.anchors, p.AnchorURL)
				id = int32(len(w.anchors))
				ids[p.AnchorURL] = id
				fresh = append(fresh, []any{int64(id), p.AnchorURL, string(p.AnchorKind)})
			}
			w.postAnchor[c.first+k] = id
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"anchors"}, []string{"id", "url", "kind"}, pgx.CopyFromRows(fresh)); err != nil {
			return fmt.Errorf("db: seed: copy anchors: %w", err)
		}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"posts"},
			[]string{"id", "author_id", "anchor_id", "url", "title", "body", "canonical_url", "anchor_url", "kind",
				"host", "link_hosts", "linked_urls", "image_count", "url_count", "sci_score", "tags", "created_at"},
			pgx.CopyFromSlice(len(c.posts), func(k int) ([]any, error) {
				p, i := &c.posts[k], c.first+k
				return []any{int64(i + 1), p.AuthorID, int64(w.postAnchor[i]), p.NewPost.URL, p.Title, p.Body,
					p.CanonicalURL, p.AnchorURL, string(p.Kind), p.Host, p.LinkHosts, c.links[k],
					int32(p.ImageCount), int32(p.URLCount), int16(p.SciScore), p.Tags, p.CreatedAt}, nil
			}))
		if err != nil {
			return fmt.Errorf("db: seed: copy posts: %w", err)
		}
		w.cfg.Progress("posts", c.first+len(c.posts), total)
	}
	return ctx.Err()
}

// preparePosts builds and prepares chunk c of the posts.
func (w *seedWorld) preparePosts(c int) seedPostChunk {
	first := c * seedPostChunkSize
	n := min(seedPostChunkSize, len(w.shares)-first)
	out := seedPostChunk{first: first, posts: make([]tributary.Prepared, n), links: make([][]byte, n)}
	for k := range n {
		np := w.seedPost(first + k)
		p, err := tributary.Prepare(np)
		if err != nil {
			out.err = fmt.Errorf("db: seed: post %d (%s): %w", first+k+1, np.URL, err)
			return out
		}
		links := p.Links
		if links == nil {
			links = []tributary.Link{}
		}
		if out.links[k], err = json.Marshal(links); err != nil {
			out.err = fmt.Errorf("db: seed: post %d links: %w", first+k+1, err)
			return out
		}
		out.posts[k] = p
	}
	return out
}

// copyFeedPosts puts every post in its author's posts feed; ord follows created_at.
func (w *seedWorld) copyFeedPosts(ctx context.Context, tx pgx.Tx) error {
	total := len(w.shares)
	w.cfg.Progress("feed_posts", 0, total)
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"feed_posts"}, []string{"feed_id", "post_id", "ord", "time_ord"},
		pgx.CopyFromSlice(total, func(i int) ([]any, error) {
			s := &w.shares[i]
			return []any{int64(s.author) + 1, int64(i + 1), int64(i + 1), seedTime(s.t)}, nil
		}))
	if err != nil {
		return fmt.Errorf("db: seed: copy feed posts: %w", err)
	}
	w.cfg.Progress("feed_posts", total, total)
	return nil
}

// copyEvents streams the card_seen events, generated viewer by viewer on all CPUs.
func (w *seedWorld) copyEvents(ctx context.Context, tx pgx.Tx) error {
	budgets := w.eventBudgets(w.cfg.Events)
	total := 0
	for _, b := range budgets {
		total += b
	}
	w.cfg.Progress("events", 0, total)
	batches := seedEventBatches(budgets)
	gen := seedOrdered(ctx, len(batches), func(b int) []seedEvent {
		var evs []seedEvent
		for v := batches[b][0]; v < batches[b][1]; v++ {
			evs = append(evs, w.viewerEvents(v, budgets[v])...)
		}
		return evs
	})
	id := int64(0)
	src := newSeedSource(ctx, gen, 6, func(e *seedEvent, vals []any) {
		id++
		vals[0], vals[1], vals[2], vals[3], vals[4], vals[5] =
			id, int64(e.viewer)+1, int16(seedCardSeen), int64(e.anchor), e.dwell, seedTime(e.t)
	}, func(done int) { w.cfg.Progress("events", done, total) })
	n, err := tx.CopyFrom(ctx, pgx.Identifier{"events"},
		[]string{"id", "viewer_id", "type", "anchor_id", "dwell_ms", "created_at"}, src)
	if err != nil {
		return fmt.Errorf("db: seed: copy events: %w", err)
	}
	w.events = int(n)
	w.cfg.Progress("events", total, total)
	return nil
}

// seedTables are the tables Seed writes.
var seedTables = []string{"users", "feeds", "follows", "anchors", "posts", "feed_posts", "events"}

// seedSkipTriggers stops PostgreSQL from checking foreign keys row by row in this
// transaction, when the role may (a superuser, as in the private cluster) and the seeded
// tables have no triggers of their own that must fire. One-by-one checks of ~10M generated
// references would take most of the load time; seedCheckReferences checks them in bulk
// instead. Other roles load the same data, more slowly.
func seedSkipTriggers(ctx context.Context, tx pgx.Tx) (bool, error) {
	var ok bool
	err := tx.QueryRow(ctx, `SELECT current_setting('is_superuser') = 'on' AND NOT EXISTS (
		SELECT 1 FROM pg_trigger WHERE NOT tgisinternal AND tgrelid = ANY ($1::text[]::regclass[]))`, seedTables).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("db: seed: check triggers: %w", err)
	}
	if !ok {
		return false, nil
	}
	if _, err := tx.Exec(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
		return false, fmt.Errorf("db: seed: skip triggers: %w", err)
	}
	return true, nil
}

// seedCheckReferences does the foreign-key checks that seedSkipTriggers skipped. The
// referenced tables were empty before, so their ids are exactly 1..count and a reference
// is valid when it lies in that range.
func seedCheckReferences(ctx context.Context, tx pgx.Tx, res SeedResult) error {
	checks := []struct {
		table, cond string
		args        []any
	}{
		{"feeds", "owner_id NOT BETWEEN 1 AND $1", []any{res.Users}},
		{"follows", "follower_id NOT BETWEEN 1 AND $1 OR followed_id NOT BETWEEN 1 AND $1", []any{res.Users}},
		{"posts", "author_id NOT BETWEEN 1 AND $1 OR anchor_id NOT BETWEEN 1 AND $2", []any{res.Users, res.Anchors}},
		{"feed_posts", "feed_id NOT BETWEEN 1 AND $1 OR post_id NOT BETWEEN 1 AND $2", []any{res.Users, res.Posts}},
		{"events", "viewer_id NOT BETWEEN 1 AND $1 OR anchor_id NOT BETWEEN 1 AND $2", []any{res.Users, res.Anchors}},
	}
	for _, c := range checks {
		var bad bool
		q := fmt.Sprintf("SELECT EXISTS (SELECT 1 FROM %s WHERE %s)", c.table, c.cond)
		if err := tx.QueryRow(ctx, q, c.args...).Scan(&bad); err != nil {
			return fmt.Errorf("db: seed: check %s references: %w", c.table, err)
		}
		if bad {
			return fmt.Errorf("db: seed: %s refers to a missing row (a bug in the seeder)", c.table)
		}
	}
	return nil
}

// seedSetSequences moves every id sequence past the ids Seed allocated.
func seedSetSequences(ctx context.Context, tx pgx.Tx, res SeedResult) error {
	seqs := []struct {
		seq string
		n   int
	}{
		{"pg_get_serial_sequence('users', 'id')", res.Users},
		{"pg_get_serial_sequence('feeds', 'id')", res.Users},
		{"pg_get_serial_sequence('anchors', 'id')", res.Anchors},
		{"pg_get_serial_sequence('posts', 'id')", res.Posts},
		{"pg_get_serial_sequence('events', 'id')", res.Events},
		{"'feed_posts_ord_seq'", res.Posts},
	}
	for _, s := range seqs {
		// An empty table leaves its sequence at 1, not yet called.
		q := fmt.Sprintf("SELECT setval(%s, greatest($1::bigint, 1), $1::bigint > 0)", s.seq)
		if _, err := tx.Exec(ctx, q, s.n); err != nil {
			return fmt.Errorf("db: seed: set sequence %s: %w", s.seq, err)
		}
	}
	return nil
}
