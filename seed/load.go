package seed

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"tributary"
)

// How Fill writes the world: one COPY per table, ids allocated here, rows generated on
// all CPUs while PostgreSQL ingests the previous ones.

// seedTables are the tables Fill writes.
var seedTables = []string{"users", "feeds", "follows", "anchors", "posts", "feed_posts", "events", "likes", "comments", "post_bumps", "filter_posts"}

// nonNil is s, or an empty list for nil (a NOT NULL array column).
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
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
		return fmt.Errorf("seed: copy users: %w", err)
	}
	// Every user's public posts feed has the user's id.
	_, err = tx.CopyFrom(ctx, pgx.Identifier{"feeds"},
		[]string{"id", "kind", "owner_id", "name", "access", "created_at"},
		pgx.CopyFromSlice(n, func(i int) ([]any, error) {
			return []any{int64(i + 1), "posts", int64(i + 1), "", "public", seedTime(w.users[i].created)}, nil
		}))
	if err != nil {
		return fmt.Errorf("seed: copy feeds: %w", err)
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
		return fmt.Errorf("seed: copy follows: %w", err)
	}
	w.cfg.Progress("follows", total, total)
	return nil
}

// seedAnchor is one anchors row: anchor i+1 is w.anchors[i].
type seedAnchor struct {
	url  string
	kind tributary.Kind
	res  int32 // the resource of its first share
}

const seedPostChunk = 4096

// seedPostRow is a post prepared for writing.
type seedPostRow struct {
	p     tributary.Prepared
	links []byte
	err   error
}

// preparePosts builds and prepares posts [c·seedPostChunk, …) as the share form would.
func (w *seedWorld) preparePosts(c int) []seedPostRow {
	first := c * seedPostChunk
	rows := make([]seedPostRow, min(seedPostChunk, len(w.shares)-first))
	for k := range rows {
		np := w.seedPost(first + k)
		p, err := tributary.Prepare(np)
		if err != nil {
			rows[k].err = fmt.Errorf("seed: post %d (%s): %w", first+k+1, np.URL, err)
			continue
		}
		links := p.Links
		if links == nil {
			links = []tributary.Link{}
		}
		rows[k].p = p
		rows[k].links, rows[k].err = json.Marshal(links)
	}
	return rows
}

// planAnchors prepares every post once to learn its anchor, numbering anchors in order of
// first share, and what it tags and mentions (w.refs, for the filter feeds). Events need
// the anchor ids before the posts are written; preparing the posts again then is cheaper
// than holding them all in memory.
func (w *seedWorld) planAnchors(ctx context.Context) error {
	total := len(w.shares)
	w.cfg.Progress("anchors", 0, total)
	w.postAnchor = make([]int32, total)
	w.refs = w.newPostRefs()
	ids := map[string]int32{}
	done := 0
	for rows := range seedOrdered(ctx, (total+seedPostChunk-1)/seedPostChunk, w.preparePosts) {
		for _, r := range rows {
			if r.err != nil {
				return r.err
			}
			id, ok := ids[r.p.AnchorURL]
			if !ok {
				w.anchors = append(w.anchors, seedAnchor{r.p.AnchorURL, r.p.AnchorKind, w.shares[done].res})
				id = int32(len(w.anchors))
				ids[r.p.AnchorURL] = id
			}
			w.postAnchor[done] = id
			w.refs.add(&r.p)
			done++
		}
		w.cfg.Progress("anchors", done, total)
	}
	if done < total {
		return fmt.Errorf("seed: plan anchors: %w", context.Cause(ctx))
	}
	return nil
}

// copyPosts writes the anchors, then the posts, prepared again on all CPUs.
func (w *seedWorld) copyPosts(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"anchors"}, []string{"id", "url", "kind"},
		pgx.CopyFromSlice(len(w.anchors), func(i int) ([]any, error) {
			return []any{int64(i + 1), w.anchors[i].url, string(w.anchors[i].kind)}, nil
		}))
	if err != nil {
		return fmt.Errorf("seed: copy anchors: %w", err)
	}
	total := len(w.shares)
	w.cfg.Progress("posts", 0, total)
	id := 0
	src := newSeedSource(ctx, seedOrdered(ctx, (total+seedPostChunk-1)/seedPostChunk, w.preparePosts), 22,
		func(r *seedPostRow, vals []any) error {
			id++
			p, anchor := &r.p, w.postAnchor[id-1]
			if r.err != nil {
				return r.err
			}
			if p.AnchorURL != w.anchors[anchor-1].url { // Prepare is deterministic; this is a seeder bug
				return fmt.Errorf("seed: post %d anchors to %s, planned %s", id, p.AnchorURL, w.anchors[anchor-1].url)
			}
			talk := &w.talk[id-1]
			copy(vals, []any{int64(id), p.AuthorID, int64(anchor), p.NewPost.URL, p.Title, p.Body,
				p.CanonicalURL, p.AnchorURL, string(p.Kind), string(p.AnchorKind), p.Host, p.LinkHosts, r.links,
				int32(p.ImageCount), int32(p.URLCount), int16(p.SciScore), p.Tags, nonNil(p.Mentions), p.CreatedAt,
				talk.likes, talk.comments, seedTime(talk.bumped)})
			return nil
		}, func(done int) { w.cfg.Progress("posts", done, total) })
	n, err := tx.CopyFrom(ctx, pgx.Identifier{"posts"},
		[]string{"id", "author_id", "anchor_id", "url", "title", "body", "canonical_url", "anchor_url", "kind", "anchor_kind",
			"host", "link_hosts", "linked_urls", "image_count", "url_count", "sci_score", "tags", "mentions", "created_at",
			"like_count", "comment_count", "bumped_at"}, src)
	if err == nil && int(n) != total {
		err = fmt.Errorf("wrote %d of %d posts", n, total)
	}
	if err != nil {
		return fmt.Errorf("seed: copy posts: %w", err)
	}
	w.cfg.Progress("posts", total, total)
	return nil
}

// copyFeedPosts puts every post in its author's posts feed; ord follows created_at, except
// that a bumped post has the ord of its last bump.
func (w *seedWorld) copyFeedPosts(ctx context.Context, tx pgx.Tx) error {
	total := len(w.shares)
	w.cfg.Progress("feed_posts", 0, total)
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"feed_posts"}, []string{"feed_id", "post_id", "ord", "time_ord"},
		pgx.CopyFromSlice(total, func(i int) ([]any, error) {
			if i%(1<<16) == 0 {
				w.cfg.Progress("feed_posts", i, total)
			}
			s := &w.shares[i]
			return []any{int64(s.author) + 1, int64(i + 1), w.talk[i].ord, seedTime(s.t)}, nil
		}))
	if err != nil {
		return fmt.Errorf("seed: copy feed posts: %w", err)
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
	src := newSeedSource(ctx, gen, 6, func(e *seedEvent, vals []any) error {
		id++
		vals[0], vals[1], vals[2], vals[3], vals[4], vals[5] =
			id, int64(e.viewer)+1, int16(seedCardSeen), int64(e.anchor), e.dwell, seedTime(e.t)
		return nil
	}, func(done int) { w.cfg.Progress("events", done, total) })
	n, err := tx.CopyFrom(ctx, pgx.Identifier{"events"},
		[]string{"id", "viewer_id", "type", "anchor_id", "dwell_ms", "created_at"}, src)
	if err == nil && int(n) != total {
		err = fmt.Errorf("wrote %d of %d events", n, total)
	}
	if err != nil {
		return fmt.Errorf("seed: copy events: %w", err)
	}
	w.events = int(n)
	w.cfg.Progress("events", total, total)
	return nil
}

// seedSkipTriggers stops PostgreSQL from checking foreign keys row by row in this
// transaction, when the role may (a superuser, as in the private cluster). One-by-one
// checks of ~50M generated references would take most of the load time; checkReferences
// checks them in bulk instead. Other roles load the same data, more slowly.
func seedSkipTriggers(ctx context.Context, tx pgx.Tx) (bool, error) {
	var super bool
	if err := tx.QueryRow(ctx, "SELECT current_setting('is_superuser') = 'on'").Scan(&super); err != nil {
		return false, fmt.Errorf("seed: check role: %w", err)
	}
	if !super {
		return false, nil
	}
	if _, err := tx.Exec(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
		return false, fmt.Errorf("seed: skip triggers: %w", err)
	}
	return true, nil
}

// seedTrigger is a trigger of a seeded table that fires while foreign keys are skipped.
type seedTrigger struct{ table, name string }

// keepTriggers makes the seeded tables' own insert triggers (follows': the followed set's
// version) fire while seedSkipTriggers skips the foreign-key checks, as they would for any
// other writer: each is enabled ALWAYS in tx until restoreTriggers, before tx commits (a
// rollback restores them too). It returns the tables they are on and the triggers.
// Switching the whole transaction back to the origin role for such a table instead
// checked its foreign keys row by row: 20M follows took 577 s of the 4M seed.
func keepTriggers(ctx context.Context, tx pgx.Tx) (map[string]bool, []seedTrigger, error) {
	rows, err := tx.Query(ctx, `SELECT tgrelid::regclass::text, tgname::text FROM pg_trigger
		WHERE NOT tgisinternal AND tgtype & 4 <> 0 -- TRIGGER_TYPE_INSERT
		  AND tgenabled = 'O' -- fires in the origin role only
		  AND tgname NOT LIKE 'filter\_feeds\_%' -- derived tables the seeder fills itself (fillFilterFeeds)
		  AND tgname NOT LIKE 'live\_changes\_%' -- what open pages hear of: nothing is open
		  AND tgname NOT LIKE 'link\_cards\_%' -- the seeder writes the cards itself (copyLinkCards)
		  AND tgname NOT LIKE '%\_notify\_%' -- a dataset's history tells nobody (the bench seeds a reader's own)
		  AND tgname <> 'feed_posts_group_feeds' -- the seeder's feeds are its users' own: no post is in a group
		  AND tgrelid = ANY ($1::text[]::regclass[])
		ORDER BY 1, 2`, seedTables)
	if err != nil {
		return nil, nil, fmt.Errorf("seed: check triggers: %w", err)
	}
	triggers, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (seedTrigger, error) {
		var t seedTrigger
		return t, r.Scan(&t.table, &t.name)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("seed: check triggers: %w", err)
	}
	firing := map[string]bool{}
	for _, t := range triggers {
		firing[t.table] = true
		if _, err := tx.Exec(ctx, "ALTER TABLE "+pgx.Identifier{t.table}.Sanitize()+" ENABLE ALWAYS TRIGGER "+pgx.Identifier{t.name}.Sanitize()); err != nil {
			return nil, nil, fmt.Errorf("seed: keep trigger %s: %w", t.name, err)
		}
	}
	return firing, triggers, nil
}

// restoreTriggers enables the triggers keepTriggers changed as they were.
func restoreTriggers(ctx context.Context, tx pgx.Tx, triggers []seedTrigger) error {
	for _, t := range triggers {
		if _, err := tx.Exec(ctx, "ALTER TABLE "+pgx.Identifier{t.table}.Sanitize()+" ENABLE TRIGGER "+pgx.Identifier{t.name}.Sanitize()); err != nil {
			return fmt.Errorf("seed: restore trigger %s: %w", t.name, err)
		}
	}
	return nil
}

// checkReferences does the foreign-key checks that seedSkipTriggers skipped. The
// referenced tables were empty before, so their ids are exactly 1..count and a reference
// is valid when it lies in that range.
func (w *seedWorld) checkReferences(ctx context.Context, tx pgx.Tx, tables ...string) error {
	users, anchors, posts := len(w.users), len(w.anchors), len(w.shares)
	checks := map[string]struct {
		cond string
		args []any
	}{
		"feeds":        {"owner_id NOT BETWEEN 1 AND $1", []any{users}},
		"follows":      {"follower_id NOT BETWEEN 1 AND $1 OR followed_id NOT BETWEEN 1 AND $1", []any{users}},
		"posts":        {"author_id NOT BETWEEN 1 AND $1 OR anchor_id NOT BETWEEN 1 AND $2", []any{users, anchors}},
		"feed_posts":   {"feed_id NOT BETWEEN 1 AND $1 OR post_id NOT BETWEEN 1 AND $2", []any{users, posts}},
		"events":       {"viewer_id NOT BETWEEN 1 AND $1 OR anchor_id NOT BETWEEN 1 AND $2", []any{users, anchors}},
		"likes":        {"user_id NOT BETWEEN 1 AND $1 OR post_id NOT BETWEEN 1 AND $2", []any{users, posts}},
		"comments":     {"author_id NOT BETWEEN 1 AND $1 OR post_id NOT BETWEEN 1 AND $2", []any{users, posts}},
		"post_bumps":   {"post_id NOT BETWEEN 1 AND $1", []any{posts}},
		"filter_posts": {"post_id NOT BETWEEN 1 AND $1", []any{posts}},
	}
	for _, table := range tables {
		c := checks[table]
		var bad bool
		q := fmt.Sprintf("SELECT EXISTS (SELECT 1 FROM %s WHERE %s)", table, c.cond)
		if err := tx.QueryRow(ctx, q, c.args...).Scan(&bad); err != nil {
			return fmt.Errorf("seed: check %s references: %w", table, err)
		}
		if bad {
			return fmt.Errorf("seed: %s refers to a missing row (a bug in the seeder)", table)
		}
	}
	return nil
}

// seedSetSequences moves every id sequence past the ids Fill allocated, and the ord
// sequence past the ords it gave out.
func seedSetSequences(ctx context.Context, tx pgx.Tx, res Result, ords int64) error {
	seqs := []struct {
		seq string
		n   int64
	}{
		{"pg_get_serial_sequence('users', 'id')", int64(res.Users)},
		{"pg_get_serial_sequence('feeds', 'id')", int64(res.Users)},
		{"pg_get_serial_sequence('anchors', 'id')", int64(res.Anchors)},
		{"pg_get_serial_sequence('posts', 'id')", int64(res.Posts)},
		{"pg_get_serial_sequence('events', 'id')", int64(res.Events)},
		{"pg_get_serial_sequence('comments', 'id')", int64(res.Comments)},
		{"'feed_posts_ord_seq'", ords},
	}
	for _, s := range seqs {
		// An empty table leaves its sequence at 1, not yet called.
		q := fmt.Sprintf("SELECT setval(%s, greatest($1::bigint, 1), $1::bigint > 0)", s.seq)
		if _, err := tx.Exec(ctx, q, s.n); err != nil {
			return fmt.Errorf("seed: set sequence %s: %w", s.seq, err)
		}
	}
	return nil
}
