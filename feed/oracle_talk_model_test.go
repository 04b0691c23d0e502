package feed_test

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"tributary"
	"tributary/db"
)

// The conversations of the oracle's worlds (DESIGN.md, "Conversations"): random likes and
// comments made through the store, and what each viewer should see of them, read from the
// model's own lists of likes, comments and bans.

// sees says whether viewer sees a like or comment by user: not when they are in a ban,
// either way. Anonymous viewers are in no ban.
func (m *model) sees(viewer, user int64) bool { return !m.banned(viewer, user) }

// thread is a readable post's comments that viewer sees, in order.
func (m *model) thread(viewer, post int64) []modelComment {
	var out []modelComment
	for _, c := range m.comments {
		if c.post == post && m.sees(viewer, c.author) {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b modelComment) int {
		return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.id, b.id))
	})
	return out
}

// liked says whether anyone liked a post.
func (m *model) liked(post int64) bool {
	for k := range m.likes {
		if k[0] == post {
			return true
		}
	}
	return false
}

// likers is who liked a readable post as viewer sees them, newest first.
func (m *model) likers(viewer, post int64) []int64 {
	type like struct {
		user int64
		at   time.Time
	}
	var ls []like
	for k, at := range m.likes {
		if k[0] == post && m.sees(viewer, k[1]) {
			ls = append(ls, like{k[1], at})
		}
	}
	slices.SortFunc(ls, func(a, b like) int { return cmp.Or(b.at.Compare(a.at), cmp.Compare(a.user, b.user)) })
	out := []int64{}
	for _, l := range ls {
		out = append(out, l.user)
	}
	return out
}

// talk is what a card shows of a conversation, as the model has it.
type talk struct {
	likes, comments int
	likedPost       int64   // the (lowest) share the viewer liked; 0: none
	likers          []int64 // the newest three others who liked it, newest first
}

func (t talk) String() string {
	return fmt.Sprintf("likes=%d comments=%d liked=%d likers=%v", t.likes, t.comments, t.likedPost, t.likers)
}

// talkOf reads what the app says in the model's terms.
func talkOf(t tributary.Talk) talk {
	out := talk{likes: t.Likes, comments: t.Comments, likedPost: t.LikedPost, likers: []int64{}}
	if t.Liked != (t.LikedPost != 0) {
		out.likedPost = -1 // Liked and LikedPost disagree: shows as a mismatch
	}
	for _, u := range t.Likers {
		out.likers = append(out.likers, u.ID)
	}
	return out
}

// anchorTalk sums the conversations of the item's shares that viewer may read: a post's talk
// is the same with one share. Likers are the newest three others by their newest like; an
// item's are taken among its 12 newest likes on public shares (by others, not in a ban with
// the viewer), as its card shows them.
func (m *model) anchorTalk(viewer int64, keep func(modelPost) bool) talk {
	t := m.talkOf(viewer, keep, false)
	var recent []likeAt
	for _, p := range m.posts {
		if !keep(p) || !m.readable(0, p) {
			continue
		}
		for k, at := range m.likes {
			if k[0] == p.id && k[1] != viewer && m.sees(viewer, k[1]) {
				recent = append(recent, likeAt{k[1], at})
			}
		}
	}
	slices.SortFunc(recent, func(a, b likeAt) int { return b.at.Compare(a.at) })
	newest := map[int64]time.Time{}
	for _, l := range recent[:min(12, len(recent))] {
		if l.at.After(newest[l.user]) {
			newest[l.user] = l.at
		}
	}
	t.likers = newestThree(newest)
	return t
}

type likeAt struct {
	user int64
	at   time.Time
}

func newestThree(newest map[int64]time.Time) []int64 {
	out := []int64{}
	for u := range newest {
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b int64) int { return cmp.Or(newest[b].Compare(newest[a]), cmp.Compare(a, b)) })
	return out[:min(3, len(out))]
}

// talkOf sums the conversations of the shares that viewer may read, with their likers when
// withLikers.
func (m *model) talkOf(viewer int64, keep func(modelPost) bool, withLikers bool) talk {
	t := talk{likers: []int64{}}
	newest := map[int64]time.Time{}
	for _, p := range m.posts {
		if !keep(p) || !m.readable(viewer, p) {
			continue
		}
		for k, at := range m.likes {
			if k[0] != p.id || !m.sees(viewer, k[1]) {
				continue
			}
			t.likes++
			if k[1] == viewer && (t.likedPost == 0 || p.id < t.likedPost) {
				t.likedPost = p.id
			}
			if k[1] != viewer && at.After(newest[k[1]]) {
				newest[k[1]] = at
			}
		}
		for _, c := range m.comments {
			if c.post == p.id && m.sees(viewer, c.author) {
				t.comments++
			}
		}
	}
	if withLikers {
		t.likers = newestThree(newest)
	}
	return t
}

func (m *model) postTalk(viewer, post int64) talk {
	return m.talkOf(viewer, func(p modelPost) bool { return p.id == post }, true)
}

func (m *model) itemTalk(viewer, anchor int64) talk {
	return m.anchorTalk(viewer, func(p modelPost) bool { return p.anchor == anchor })
}

// codeOf is an error's code, "" for none.
func codeOf(err error) string {
	if err == nil {
		return ""
	}
	return tributary.ErrorCode(err)
}

// talkState is everything a conversation action may write, spelled out: a refused action
// must leave it as it was.
func talkState(t *testing.T, ctx context.Context, store *db.Store) string {
	t.Helper()
	var likes, comments, posts string
	var bumps int
	err := store.Pool.QueryRow(ctx, `SELECT
	    (SELECT coalesce(string_agg(format('%s/%s@%s', post_id, user_id, created_at), ',' ORDER BY post_id, user_id), '') FROM likes),
	    (SELECT coalesce(string_agg(format('%s/%s/%s:%s@%s', id, post_id, author_id, body, edited_at), ',' ORDER BY id), '') FROM comments),
	    (SELECT coalesce(string_agg(format('%s:%s/%s@%s', id, like_count, comment_count, bumped_at), ',' ORDER BY id), '') FROM posts),
	    (SELECT count(*) FROM post_bumps)`).Scan(&likes, &comments, &posts, &bumps)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("likes %s; comments %s; posts %s; bumps %d", likes, comments, posts, bumps)
}

// converse has random people like, unlike and comment on random posts (readable to them or
// not, deleted or not) and edit and delete random comments, a minute apart before now,
// through the store, mirroring what is allowed in the model. Each answer is checked against
// the model, and a refused action must store nothing.
func converse(t *testing.T, ctx context.Context, store *db.Store, r *rand.Rand, m *model, now time.Time, label string, cases tally) {
	t.Helper()
	n := 12 + r.IntN(24)
	for k := range n {
		at := now.Add(-time.Duration(n-k) * time.Minute)
		actor := m.users[r.IntN(len(m.users))].ID
		p := m.posts[r.IntN(len(m.posts))]
		kind := []string{"like", "like", "like", "unlike", "comment", "comment", "comment", "edit", "delete"}[r.IntN(9)]
		var c modelComment
		if kind == "edit" || kind == "delete" {
			if len(m.comments) == 0 {
				continue
			}
			c = m.comments[r.IntN(len(m.comments))]
			p = m.post(c.post)
			// Mostly someone who may act on it, so that some actions succeed.
			switch r.IntN(3) {
			case 0:
				actor = c.author
			case 1:
				actor = p.author
			}
		}
		want := ""
		switch {
		case !m.readable(actor, p):
			want = tributary.ENotFound
		case kind == "edit" && actor != c.author,
			kind == "delete" && actor != c.author && actor != p.author:
			want = tributary.EForbidden
		}
		access, err := store.ViewerAccess(ctx, actor)
		if err != nil {
			t.Fatal(err)
		}
		before := ""
		if want != "" {
			before = talkState(t, ctx, store)
		}
		var bumped bool
		var added tributary.Comment
		body := fmt.Sprintf("comment %d by %d", k, actor)
		switch kind {
		case "like":
			err = store.Like(ctx, access, p.id, at)
		case "unlike":
			err = store.Unlike(ctx, access, p.id)
		case "comment":
			added, bumped, err = store.AddComment(ctx, access, p.id, body, at, tributary.DefaultBumpRule)
		case "edit":
			_, err = store.EditComment(ctx, access, c.id, body, at)
		case "delete":
			_, err = store.DeleteComment(ctx, access, c.id)
		}
		cases["conversation action"]++
		what := fmt.Sprintf("%s: user %d's %s on post %d (comment %d)", label, actor, kind, p.id, c.id)
		if got := codeOf(err); got != want {
			t.Errorf("%s: error %q (%v), want %q", what, got, err, want)
			continue
		}
		if want != "" {
			if after := talkState(t, ctx, store); after != before {
				t.Errorf("%s was refused but stored something:\nbefore %s\nafter  %s", what, before, after)
			}
			continue
		}
		switch kind {
		case "like":
			if _, ok := m.likes[[2]int64{p.id, actor}]; !ok {
				m.likes[[2]int64{p.id, actor}] = at
			}
		case "unlike":
			delete(m.likes, [2]int64{p.id, actor})
		case "comment":
			m.comments = append(m.comments, modelComment{id: added.ID, post: p.id, author: actor, body: body, at: at})
			recent := 0
			for _, c := range m.comments {
				if c.post == p.id && c.at.After(at.Add(-24*time.Hour)) {
					recent++
				}
			}
			// Seed 003: a comment bumps a post younger than a day, or one with more than two
			// comments in the last day.
			if want := at.Sub(p.at) < 24*time.Hour || recent > 2; bumped != want {
				t.Errorf("%s: bumped %v, want %v (post made %s before, %d comments in the last day)", what, bumped, want, at.Sub(p.at), recent)
			}
		case "edit":
			i := slices.IndexFunc(m.comments, func(x modelComment) bool { return x.id == c.id })
			m.comments[i].body, m.comments[i].edited = body, true
		case "delete":
			m.comments = slices.DeleteFunc(m.comments, func(x modelComment) bool { return x.id == c.id })
		}
	}
}

// describeTalk lists the likes and comments on some posts and the bans, for failure
// messages.
func (m *model) describeTalk(posts func(modelPost) bool) string {
	var parts []string
	for k, at := range m.likes {
		if posts(m.post(k[0])) {
			parts = append(parts, fmt.Sprintf("post %d liked by %d at %s", k[0], k[1], at.Format("15:04")))
		}
	}
	for _, c := range m.comments {
		if posts(m.post(c.post)) {
			parts = append(parts, fmt.Sprintf("post %d comment %d by %d", c.post, c.id, c.author))
		}
	}
	for k := range m.bans {
		parts = append(parts, fmt.Sprintf("%d bans %d", k[0], k[1]))
	}
	slices.Sort(parts)
	return strings.Join(parts, "; ")
}

// onPost and onItem pick the posts a failure message is about.
func onPost(id int64) func(modelPost) bool { return func(p modelPost) bool { return p.id == id } }
func onItem(anchor int64) func(modelPost) bool {
	return func(p modelPost) bool { return p.anchor == anchor }
}
