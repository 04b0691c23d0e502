package seed

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/jackc/pgx/v5"

	"tributary"
	"tributary/db"
)

// Conversations of the seeded world: who likes and comments on which post when, and the
// bumps the comments make under tributary.DefaultBumpRule.
//
// Every seeded post is public and the world has no private users, bans or private feeds, so
// everyone may read, like and comment on every post; were any of those seeded, reactor
// would have to skip the users who may not read the post.

// seedLike is one likes row.
type seedLike struct {
	t          int64
	post, user int32 // post index (id - 1) and user index
}

// seedComment is one comments row: comment i+1 is w.comments[i], in time order.
type seedComment struct {
	t            int64
	post, author int32
	body         string
}

// seedBump is one post_bumps row: a bumped post's creation or one of its bumps.
type seedBump struct {
	t    int64
	post int32
	ord  int64
}

// seedPostTalk is what post i+1 carries of its conversation.
type seedPostTalk struct {
	likes, comments int32
	bumped          int64 // bumped_at (ms): its creation, or the last comment that bumped it
	ord             int64 // its feed_posts ord: its id, or the ord of its last bump
}

// seedTalkChunk is how many posts one unit of parallel conversation work covers.
const seedTalkChunk = 2048

// genTalk makes the likes and comments. Their numbers per post are heavy-tailed: most posts
// get none, popular items and notable or VIP authors with large audiences get the most.
// Likers and commenters are mostly the author's followers, who saw the post in their feed,
// and some strangers. Comment ids and bump ords follow time, as the app would give them.
func (w *seedWorld) genTalk(ctx context.Context) error {
	posts := len(w.shares)
	likeW, commentW := w.talkWeights()
	n := len(w.users)
	// Half the others at most, so a post's likers are quick to draw without repeats.
	likes := seedBudgets(likeW, min((n-1)/2, 4000), w.cfg.Likes)
	comments := seedBudgets(commentW, 300, w.cfg.Comments)
	// Post i's likes and comments go to w.likes and w.comments from likeOff[i] and
	// commentOff[i] on, so chunks of posts are written in place on all CPUs.
	likeOff, commentOff := make([]int, posts+1), make([]int, posts+1)
	for i := range posts {
		likeOff[i+1] = likeOff[i] + int(likes[i])
		commentOff[i+1] = commentOff[i] + int(comments[i])
	}
	w.likes = make([]seedLike, likeOff[posts])
	w.comments = make([]seedComment, commentOff[posts])
	rates := make([]float64, n)
	for i, u := range w.users {
		rates[i] = u.viewRate
	}
	readers := newSeedPicker(rates)
	chunks := (posts + seedTalkChunk - 1) / seedTalkChunk
	gen := seedOrdered(ctx, chunks, func(c int) []seedBump {
		var bumps []seedBump
		mark := make([]int32, n)
		for i := c * seedTalkChunk; i < min(posts, (c+1)*seedTalkChunk); i++ {
			w.postLikes(i, w.likes[likeOff[i]:likeOff[i+1]], readers, mark)
			bumps = w.postComments(i, w.comments[commentOff[i]:commentOff[i+1]], readers, bumps)
		}
		return bumps
	})
	var bumps []seedBump // the bumps alone, without ords yet
	done := 0
	for part := range gen {
		bumps = append(bumps, part...)
		done++
	}
	if done < chunks {
		return fmt.Errorf("seed: conversations: %w", context.Cause(ctx))
	}
	slices.SortFunc(w.comments, func(a, b seedComment) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.post, b.post))
	})
	w.talk = make([]seedPostTalk, posts)
	for i := range w.talk {
		w.talk[i] = seedPostTalk{likes: likes[i], comments: comments[i], bumped: w.shares[i].t, ord: int64(i + 1)}
	}
	// Each bump takes the next value of the one ord sequence, after every post's own.
	slices.SortFunc(bumps, func(a, b seedBump) int { return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.post, b.post)) })
	w.ords = int64(posts)
	var creations []seedBump // a bumped post's creation is an arrival too
	for k := range bumps {
		b := &bumps[k]
		w.ords++
		b.ord = w.ords
		pt := &w.talk[b.post]
		if pt.ord == int64(b.post)+1 {
			creations = append(creations, seedBump{t: w.shares[b.post].t, post: b.post, ord: pt.ord})
		}
		pt.bumped, pt.ord = b.t, b.ord
	}
	w.bumps = append(bumps, creations...)
	slices.SortFunc(w.bumps, func(a, b seedBump) int { return cmp.Or(cmp.Compare(a.post, b.post), cmp.Compare(a.t, b.t)) })
	return nil
}

// talkWeights rates how much talk each post draws: its author's audience, notability and
// VIP status, how widely its item is shared, a lognormal share of luck, and less for the
// newest posts, which have had little time.
func (w *seedWorld) talkWeights() (likes, comments []float64) {
	likes = make([]float64, len(w.shares))
	comments = make([]float64, len(w.shares))
	for i, s := range w.shares {
		r := seedRNG(w.cfg.Seed, seedStageTalk, i)
		a := &w.users[s.author]
		x := math.Pow(float64(len(w.followers(int(s.author))))+4, 0.7) *
			math.Pow(float64(w.resources[s.res].shares), 0.5) *
			(1 + math.Log10(1+float64(a.notability))/3)
		if a.vip {
			x *= 3
		}
		x *= 1 - math.Exp(-float64(w.end-s.t)/float64(6*seedHour))
		likes[i] = x * seedLogNormal(r, 1, 2.3)
		comments[i] = math.Pow(likes[i], 0.9) * seedLogNormal(r, 1, 0.8) // discussions follow likes, loosely
	}
	return likes, comments
}

// seedBudgets splits total among items by weight, saturating softly towards limit (an
// item of weight x gets about s·x/(1+s·x/limit) for the scale s that makes them add up):
// no part passes limit and none piles up at it. The parts add up to total, or to every
// item's limit when that is less.
func seedBudgets(weights []float64, limit, total int) []int32 {
	out := make([]int32, len(weights))
	lim := float64(limit)
	soft := func(s float64) float64 {
		sum := 0.0
		for _, x := range weights {
			sum += s * x / (1 + s*x/lim)
		}
		return sum
	}
	items := 0
	for _, x := range weights {
		if x > 0 {
			items++
		}
	}
	if total >= items*limit { // everyone who may have some gets all they may
		for i, x := range weights {
			if x > 0 {
				out[i] = int32(limit)
			}
		}
		return out
	}
	if total <= 0 {
		return out
	}
	lo, hi := 0.0, 1.0
	for soft(hi) < float64(total) {
		lo, hi = hi, 2*hi
	}
	for range 60 {
		if mid := (lo + hi) / 2; soft(mid) < float64(total) {
			lo = mid
		} else {
			hi = mid
		}
	}
	sum := soft(hi)
	cum, prev := 0.0, 0
	for i, x := range weights {
		cum += hi * x / (1 + hi*x/lim) // the same additions as sum, so the last step lands on total
		next := int(math.Round(cum / sum * float64(total)))
		out[i], prev = int32(next-prev), next
	}
	return out
}

// postLikes fills out with post i's likers, none of them its author nor anyone twice, and
// when each liked it; mark is scratch space of one int32 per user.
func (w *seedWorld) postLikes(i int, out []seedLike, readers seedPicker, mark []int32) {
	if len(out) == 0 {
		return
	}
	s := w.shares[i]
	r := seedRNG(w.cfg.Seed, seedStageLikes, i)
	stamp := int32(i + 1)
	for k := range out {
		u, fan := w.reactor(r, i, readers, mark, stamp)
		mark[u] = stamp
		median := 2 * seedHour // followers see it in their feed soon
		if !fan {
			median = 10 * seedHour
		}
		out[k] = seedLike{t: w.reactionTime(r, s.t, median), post: int32(i), user: u}
	}
	slices.SortFunc(out, func(a, b seedLike) int { return cmp.Compare(a.user, b.user) })
}

// reactor draws someone other than post i's author who reacts to it, not one marked with
// stamp (mark may be nil): usually a follower of the author who followed before the post
// (it was in their feed), otherwise a stranger, by how much they read. fan says which.
func (w *seedWorld) reactor(r *rand.Rand, i int, readers seedPicker, mark []int32, stamp int32) (u int32, fan bool) {
	s := w.shares[i]
	free := func(u int32) bool { return u != s.author && (mark == nil || mark[u] != stamp) }
	fans := w.followers(int(s.author))
	for range 40 {
		if len(fans) > 0 && r.Float64() < 0.8 {
			if u = fans[r.IntN(len(fans))]; free(u) && w.followedBefore(u, s.author, s.t) {
				return u, true
			}
		} else if u = int32(readers.pick(r)); free(u) {
			return u, false
		}
	}
	// Crowded: the next one free after a random user. Budgets leave half the users free.
	n := int32(len(w.users))
	for u = r.Int32N(n); !free(u); u = (u + 1) % n {
	}
	return u, false
}

// followedBefore reports whether f followed a before t.
func (w *seedWorld) followedBefore(f, a int32, t int64) bool {
	dst, at := w.followees(int(f))
	j, ok := slices.BinarySearch(dst, a)
	return ok && at[j] < t
}

// reactionTime draws when someone reacts to something made at t (not after w.last):
// lognormally soon after (given the median delay), in the daily rhythm, and a second or more
// before the end of the world.
func (w *seedWorld) reactionTime(r *rand.Rand, t, median int64) int64 {
	for range 4 {
		at := t + seedSecond + int64(seedLogNormal(r, float64(median), 1.6))
		if at < w.end-seedSecond && seedInRhythm(r, at) {
			return at
		}
	}
	return t + seedSecond + int64(r.Float64()*float64(w.end-t-2*seedSecond))
}

// postComments fills out with post i's thread and appends the bumps it makes: comments come
// in bursts of conversation, mostly soon after the post; later ones often answer earlier
// commenters, and the author joins in.
func (w *seedWorld) postComments(i int, out []seedComment, readers seedPicker, bumps []seedBump) []seedBump {
	k := len(out)
	if k == 0 {
		return bumps
	}
	s := w.shares[i]
	r := seedRNG(w.cfg.Seed, seedStageComments, i)
	times := make([]int64, k)
	times[0] = w.reactionTime(r, s.t, 90*seedMinute)
	for j := 1; j < k; j++ {
		if r.Float64() < 0.65 { // the conversation goes on (leaving room before the end)
			times[j] = w.reactionTime(r, min(times[j-1], w.last), 20*seedMinute)
		} else {
			times[j] = w.reactionTime(r, s.t, 5*seedHour)
		}
	}
	slices.Sort(times)
	for j := 1; j < k; j++ { // distinct times, so the thread's order is its time order
		times[j] = max(times[j], times[j-1]+1)
	}
	thread := make([]int32, 0, k) // who commented so far, in order
	for j, t := range times {
		var author int32
		switch x := r.Float64(); {
		case j > 0 && x < 0.2 && thread[j-1] != s.author:
			author = s.author // answers in their own thread
		case j > 0 && x < 0.45:
			author = thread[r.IntN(j)] // someone comes back
		default:
			author, _ = w.reactor(r, i, readers, nil, 0)
		}
		out[j] = seedComment{t: t, post: int32(i), author: author, body: w.commentBody(r, i, author, thread)}
		thread = append(thread, author)
	}
	// The bump rule, comment by comment: recent counts the comments in the window ending at
	// the new one, that one included.
	rule := tributary.DefaultBumpRule
	window := rule.Window.Milliseconds()
	created := seedTime(s.t)
	lo := 0
	for j, t := range times {
		for times[lo] <= t-window {
			lo++
		}
		if rule.Bumps(created, seedTime(t), j-lo+1) {
			bumps = append(bumps, seedBump{t: t, post: int32(i)})
		}
	}
	return bumps
}

// copyLikes writes the likes, post by post.
func (w *seedWorld) copyLikes(ctx context.Context, tx pgx.Tx) error {
	total := len(w.likes)
	w.cfg.Progress("likes", 0, total)
	// Every seeded post is public (seed posts keep the posts table's default access).
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"likes"}, []string{"post_id", "user_id", "anchor_id", "public", "created_at"},
		pgx.CopyFromSlice(total, func(i int) ([]any, error) {
			if i%(1<<16) == 0 {
				w.cfg.Progress("likes", i, total)
			}
			l := &w.likes[i]
			return []any{int64(l.post) + 1, int64(l.user) + 1, int64(w.postAnchor[l.post]), true, seedTime(l.t)}, nil
		}))
	if err != nil {
		return fmt.Errorf("seed: copy likes: %w", err)
	}
	w.cfg.Progress("likes", total, total)
	return nil
}

// copyComments writes the comments, whose ids follow time, and the post_bumps rows.
func (w *seedWorld) copyComments(ctx context.Context, tx pgx.Tx) error {
	total := len(w.comments)
	w.cfg.Progress("comments", 0, total)
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"comments"}, []string{"id", "post_id", "author_id", "anchor_id", "body", "mentions", "tags", "created_at"},
		pgx.CopyFromSlice(total, func(i int) ([]any, error) {
			if i%(1<<16) == 0 {
				w.cfg.Progress("comments", i, total)
			}
			c := &w.comments[i]
			return []any{int64(i + 1), int64(c.post) + 1, int64(c.author) + 1, int64(w.postAnchor[c.post]), c.body,
				tributary.Mentions(c.body), tributary.Tags(c.body), seedTime(c.t)}, nil
		}))
	if err != nil {
		return fmt.Errorf("seed: copy comments: %w", err)
	}
	_, err = tx.CopyFrom(ctx, pgx.Identifier{"post_bumps"}, []string{"post_id", "at", "ord"},
		pgx.CopyFromSlice(len(w.bumps), func(i int) ([]any, error) {
			b := &w.bumps[i]
			return []any{int64(b.post) + 1, seedTime(b.t), b.ord}, nil
		}))
	if err != nil {
		return fmt.Errorf("seed: copy post bumps: %w", err)
	}
	w.cfg.Progress("comments", total, total)
	return nil
}

// countAnchorTalk counts the likes and comments of each item's public shares (the posts
// carry their counts; no trigger counts them under COPY).
func (w *seedWorld) countAnchorTalk(ctx context.Context, tx pgx.Tx) error {
	return db.RecountItemTalk(ctx, tx)
}
