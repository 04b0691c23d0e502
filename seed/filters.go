package seed

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tributary"
)

// The filter feeds of the seeded world (filter_posts), computed here from the likes,
// comments, tags and mentions the seeder made, as post_filters computes them in SQL from the
// tables, and written by COPY in the load's transaction: the SQL statement over the written
// tables took 369 s of the 4M seed, on one core, after everything else. The seeded world
// has no bans, so no mention is dropped for one (post_filters' in_ban). The seed tests
// compare the two (TestSeedAsOrdinaryRole writes them through the tables' triggers and
// post_filters, TestSeedTalk checks filter_posts against post_filters).

// seedPostRefs is what post texts tag and mention: post i's tags are
// tags[tagOff[i]:tagOff[i+1]], the users its text mentions mentions[mentionOff[i]:…] (user
// indexes; handles no seeded user has are left out, as post_filters' join leaves them).
type seedPostRefs struct {
	tagOff, mentionOff []int32
	tags               []string
	mentions           []int32
	interned           map[string]string // one copy of each tag's text
	handles            map[string]int32  // lower-cased handle -> user index
}

func (w *seedWorld) newPostRefs() *seedPostRefs {
	refs := &seedPostRefs{tagOff: []int32{0}, mentionOff: []int32{0}, interned: map[string]string{},
		handles: make(map[string]int32, len(w.users))}
	for i, u := range w.users {
		refs.handles[strings.ToLower(u.handle)] = int32(i)
	}
	return refs
}

// add records the next post's tags and mentions.
func (refs *seedPostRefs) add(p *tributary.Prepared) {
	for _, t := range p.Tags {
		s, ok := refs.interned[t]
		if !ok {
			s = strings.Clone(t)
			refs.interned[s] = s
		}
		refs.tags = append(refs.tags, s)
	}
	refs.tagOff = append(refs.tagOff, int32(len(refs.tags)))
	for _, h := range p.Mentions {
		if u, ok := refs.handles[h]; ok {
			refs.mentions = append(refs.mentions, u)
		}
	}
	refs.mentionOff = append(refs.mentionOff, int32(len(refs.mentions)))
}

// seedFilterRow is one filter_posts row: the feed is kind and user ("l:<user id>") or, for
// a tag ('t'), the tag.
type seedFilterRow struct {
	kind byte
	user int32 // user index
	tag  string
	post int32 // post index
	at   int64
}

func (r *seedFilterRow) feed() string {
	if r.kind == 't' {
		return "t:" + r.tag
	}
	return string(r.kind) + ":" + strconv.Itoa(int(r.user)+1)
}

// postFilterRows appends post i's filter feed entries to out: each (feed, post) once, at
// the latest time that puts it there.
func (w *seedWorld) postFilterRows(i int, likes []seedLike, comments []int32, out []seedFilterRow) []seedFilterRow {
	s, bumped, refs := &w.shares[i], w.talk[i].bumped, w.refs
	first := len(out)
	add := func(kind byte, user int32, tag string, at int64) {
		out = append(out, seedFilterRow{kind: kind, user: user, tag: tag, post: int32(i), at: at})
	}
	add('d', s.author, "", bumped)
	for _, t := range refs.tags[refs.tagOff[i]:refs.tagOff[i+1]] {
		add('t', 0, t, s.t)
	}
	for _, u := range refs.mentions[refs.mentionOff[i]:refs.mentionOff[i+1]] {
		add('m', u, "", s.t)
	}
	for _, l := range likes {
		add('l', l.user, "", l.t)
		add('d', l.user, "", max(l.t, bumped))
	}
	for _, k := range comments {
		c := &w.comments[k]
		add('c', c.author, "", c.t)
		add('d', c.author, "", max(c.t, bumped))
		for _, t := range tributary.Tags(c.body) {
			add('t', 0, t, c.t)
		}
		for _, h := range tributary.Mentions(c.body) {
			if u, ok := refs.handles[h]; ok {
				add('m', u, "", c.t)
			}
		}
	}
	rows := out[first:]
	slices.SortFunc(rows, func(a, b seedFilterRow) int {
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.user, b.user), cmp.Compare(a.tag, b.tag), cmp.Compare(b.at, a.at))
	})
	// The latest of each feed comes first: keep it.
	rows = slices.CompactFunc(rows, func(a, b seedFilterRow) bool { return a.kind == b.kind && a.user == b.user && a.tag == b.tag })
	return out[:first+len(rows)]
}

// copyFilterPosts writes every filter feed entry, computed post by post on all CPUs.
func (w *seedWorld) copyFilterPosts(ctx context.Context, tx pgx.Tx) error {
	posts := len(w.shares)
	// Comments by post (w.comments is in time order), likes are by post already.
	commentOff, byPost := seedGroup(posts, len(w.comments), func(k int) int32 { return w.comments[k].post })
	w.cfg.Progress("filter feeds", 0, posts)
	chunks := (posts + seedPostChunk - 1) / seedPostChunk
	gen := seedOrdered(ctx, chunks, func(c int) []seedFilterRow {
		lo, hi := c*seedPostChunk, min(posts, (c+1)*seedPostChunk)
		likes := w.likes[likesFrom(w.likes, lo):likesFrom(w.likes, hi)]
		var out []seedFilterRow
		for i := lo; i < hi; i++ {
			n := likesFrom(likes, i+1)
			out = w.postFilterRows(i, likes[:n], byPost[commentOff[i]:commentOff[i+1]], out)
			likes = likes[n:]
		}
		return out
	})
	src := newSeedSource(ctx, gen, 3, func(r *seedFilterRow, vals []any) error {
		vals[0], vals[1], vals[2] = r.feed(), int64(r.post)+1, seedTime(r.at)
		return nil
	}, func(int) {})
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"filter_posts"}, []string{"feed", "post_id", "at"}, src); err != nil {
		return fmt.Errorf("seed: copy filter feeds: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("seed: copy filter feeds: %w", context.Cause(ctx))
	}
	w.cfg.Progress("filter feeds", posts, posts)
	return nil
}

// likesFrom is where the likes of post i on begin in likes (which are by post).
func likesFrom(likes []seedLike, i int) int {
	n, _ := slices.BinarySearchFunc(likes, int32(i), func(l seedLike, post int32) int { return cmp.Compare(l.post, post) })
	return n
}

// fillFilterFeeds computes every filter feed (filter_posts) from the posts, likes and
// comments in one statement, once they are all committed, when the seeder wrote them with
// the tables' triggers on (a role that may not turn them off): the triggers fill the filter
// feeds as the rows arrive, but not as the app's writes would (the posts come with their
// final bumps). A role that may writes them itself (copyFilterPosts).
//
// The rows are written before the table's indexes are built, in one transaction: keeping
// its four indexes row by row took 102 s at 400k posts (30 s this way: 19 s of rows, 11 s of
// indexes) and never finished at 4M. The indexes are made again from their own definitions
// (the primary key as the constraint it was). A role that does not own the table fills it
// with its indexes in place.
func fillFilterFeeds(ctx context.Context, pool *pgxpool.Pool) error {
	fail := func(err error) error {
		return fmt.Errorf("seed: fill filter feeds (all else is committed; run `tributary seed` on a fresh database again): %w", err)
	}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		indexes, err := dropIndexes(ctx, tx, "filter_posts")
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "TRUNCATE filter_posts; INSERT INTO filter_posts (feed, post_id, at) SELECT * FROM post_filters(NULL)"); err != nil {
			return err
		}
		return buildIndexes(ctx, tx, indexes, func(int, int) {})
	})
	if err != nil {
		return fail(err)
	}
	return nil
}
