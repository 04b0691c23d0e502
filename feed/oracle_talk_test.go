package feed_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/feed"
)

// The oracle's checks of one viewer's reading of a world beyond the ranked feed: post and
// item pages, threads, likers, conversation counts, refused actions and the chronological
// feeds, each against the model (oracle_model_test.go, oracle_talk_model_test.go).

// tally counts the oracle's checked cases by path.
type tally map[string]int

func (c tally) total() int {
	n := 0
	for _, k := range c {
		n += k
	}
	return n
}

func (c tally) String() string {
	var parts []string
	for path, n := range c {
		parts = append(parts, fmt.Sprintf("%s %d", path, n))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// viewerCase is one viewer (nil: anonymous) of one world.
type viewerCase struct {
	t      *testing.T
	ctx    context.Context
	store  *db.Store
	m      *model
	v      *tributary.User
	id     int64
	access tributary.Viewer
	label  string
	now    time.Time
	cases  tally
}

// missingPost is an id no post has.
func (o *viewerCase) missingPost() int64 { return o.m.posts[len(o.m.posts)-1].id + 1000 }

// anchors lists the world's items, and one that does not exist.
func (o *viewerCase) anchors() []int64 {
	var out []int64
	for _, p := range o.m.posts {
		out = append(out, p.anchor)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	return append(out, out[len(out)-1]+1000)
}

// postPages: a readable post is served as it is; any other gets the answer a post that
// does not exist gets, so nothing tells them apart.
func (o *viewerCase) postPages() {
	t := o.t
	_, missing := o.store.Post(o.ctx, o.access, o.missingPost())
	if codeOf(missing) != tributary.ENotFound {
		t.Fatalf("%s: a post that does not exist: %v, want not found", o.label, missing)
	}
	for _, p := range o.m.posts {
		got, err := o.store.Post(o.ctx, o.access, p.id)
		o.cases["post page"]++
		if o.m.readable(o.id, p) {
			if err != nil || got.ID != p.id || got.AnchorID != p.anchor || got.Author.ID != p.author {
				t.Errorf("%s post page %d: post %d of item %d by %d (%v), want item %d by %d",
					o.label, p.id, got.ID, got.AnchorID, got.Author.ID, err, p.anchor, p.author)
			}
		} else if err == nil || codeOf(err) != tributary.ENotFound || err.Error() != missing.Error() {
			t.Errorf("%s post page %d (not readable, deleted %v): post %d, error %v; want %v as for no post",
				o.label, p.id, p.deleted, got.ID, err, missing)
		}
	}
}

// itemPages: an item page lists exactly the readable shares, oldest first, with the
// comments on them the viewer sees (none on the others, whoever can read those) and their
// likers.
func (o *viewerCase) itemPages() {
	t := o.t
	for _, a := range o.anchors() {
		page, err := o.store.ItemPosts(o.ctx, o.access, a, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := []int64{}
		for _, p := range page.Posts {
			got = append(got, p.ID)
		}
		var shares []modelPost
		for _, p := range o.m.posts {
			if p.anchor == a && o.m.readable(o.id, p) {
				shares = append(shares, p)
			}
		}
		slices.SortFunc(shares, func(a, b modelPost) int { return a.at.Compare(b.at) })
		want := []int64{}
		for _, p := range shares {
			want = append(want, p.id)
		}
		o.cases["item page"]++
		if !slices.Equal(got, want) {
			t.Errorf("%s item page %d: posts %v, want %v", o.label, a, got, want)
		}
		sharers := map[int64]bool{}
		for _, p := range shares {
			sharers[p.author] = true
		}
		if len(got) > 0 && (page.Shares != len(want) || page.Sharers != len(sharers)) {
			t.Errorf("%s item page %d: counts %d shares by %d people, want %d by %d", o.label, a, page.Shares, page.Sharers, len(want), len(sharers))
		}
		if len(got) == 0 {
			continue
		}
		threads, err := o.store.Threads(o.ctx, o.access, got, 1000) // small worlds: every comment
		if err != nil {
			t.Fatal(err)
		}
		o.cases["thread"]++
		for pid, cs := range threads {
			if !slices.Contains(want, pid) && len(cs.Comments) > 0 {
				t.Errorf("%s item page %d: shows %d comments on post %d, which the viewer may not read", o.label, a, len(cs.Comments), pid)
			}
		}
		for _, pid := range want {
			var g, w []string
			for _, c := range threads[pid].Comments {
				g = append(g, fmt.Sprintf("%d by %d %q edited=%v", c.ID, c.Author.ID, c.Body, c.EditedAt != nil))
			}
			for _, c := range o.m.thread(o.id, pid) {
				w = append(w, fmt.Sprintf("%d by %d %q edited=%v", c.id, c.author, c.body, c.edited))
			}
			if !slices.Equal(g, w) {
				t.Errorf("%s thread of post %d: %v, want %v (%s)", o.label, pid, g, w, o.m.describeTalk(onPost(pid)))
			}
		}
		for _, pid := range got {
			if !o.m.liked(pid) {
				continue // nobody to show, and nobody to leak: not worth the round trip
			}
			likers, err := o.store.Likers(o.ctx, o.access, pid, 50)
			if err != nil {
				t.Fatal(err)
			}
			g := []int64{}
			for _, u := range likers {
				g = append(g, u.ID)
			}
			o.cases["likers"]++
			if w := o.m.likers(o.id, pid); !slices.Equal(g, w) {
				t.Errorf("%s likers of post %d: %v, want %v (%s)", o.label, pid, g, w, o.m.describeTalk(onPost(pid)))
			}
		}
	}
}

// talkCounts: the counts cards show, per readable post and summed per item over its
// readable shares only.
func (o *viewerCase) talkCounts() {
	t := o.t
	readable := o.m.postsWhere(o.id, func(modelPost) bool { return true })
	talk, err := o.store.PostTalk(o.ctx, o.access, readable)
	if err != nil {
		t.Fatal(err)
	}
	for _, pid := range readable {
		o.cases["post talk"]++
		if got, want := talkOf(talk[pid]), o.m.postTalk(o.id, pid); got.String() != want.String() {
			t.Errorf("%s talk of post %d: %s, want %s (%s)", o.label, pid, got, want, o.m.describeTalk(onPost(pid)))
		}
	}
	anchors := o.anchors()
	items, err := o.store.AnchorTalk(o.ctx, o.access, anchors)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range anchors {
		o.cases["item talk"]++
		if got, want := talkOf(items[a]), o.m.itemTalk(o.id, a); got.String() != want.String() {
			t.Errorf("%s talk of item %d: %s, want %s (%s)", o.label, a, got, want, o.m.describeTalk(onItem(a)))
		}
	}
}

// itemsTalk checks the talk a ranked page's items carry.
func (o *viewerCase) itemsTalk(path string, items []tributary.Item) {
	o.cases["ranked talk"]++
	for _, it := range items {
		if got, want := talkOf(it.Talk), o.m.itemTalk(o.id, it.ID); got.String() != want.String() {
			o.t.Errorf("%s %s: item %d talks %s, want %s (%s)", o.label, path, it.ID, got, want, o.m.describeTalk(onItem(it.ID)))
		}
	}
}

// refusals: a logged-in viewer's likes and comments on posts they may not read, and edits
// and deletions of comments not theirs to change, are refused (404 when they may not read
// the post, as for no post; 403 otherwise) and store nothing; liking again changes nothing.
func (o *viewerCase) refusals() {
	t := o.t
	if o.id == 0 {
		return
	}
	before := talkState(t, o.ctx, o.store)
	var tried []string
	try := func(what, want string, err error) {
		o.cases["refused action"]++
		tried = append(tried, what)
		if got := codeOf(err); got != want {
			t.Errorf("%s %s: error %q (%v), want %q", o.label, what, got, err, want)
		}
	}
	unreadable := []int64{o.missingPost()}
	for _, p := range o.m.posts {
		if !o.m.readable(o.id, p) && len(unreadable) < 3 {
			unreadable = append(unreadable, p.id)
		}
	}
	for _, id := range unreadable {
		try(fmt.Sprintf("like %d", id), tributary.ENotFound, o.store.Like(o.ctx, o.access, id, o.now))
		try(fmt.Sprintf("unlike %d", id), tributary.ENotFound, o.store.Unlike(o.ctx, o.access, id))
		_, _, err := o.store.AddComment(o.ctx, o.access, id, "let me in", o.now, tributary.DefaultBumpRule)
		try(fmt.Sprintf("comment on %d", id), tributary.ENotFound, err)
	}
	hidden, others := 0, 0
	for _, c := range o.m.comments {
		p := o.m.post(c.post)
		switch {
		case !o.m.readable(o.id, p) && hidden < 3:
			hidden++
			_, err := o.store.EditComment(o.ctx, o.access, c.id, "mine now", o.now)
			try(fmt.Sprintf("edit comment %d on unreadable %d", c.id, p.id), tributary.ENotFound, err)
			_, err = o.store.DeleteComment(o.ctx, o.access, c.id)
			try(fmt.Sprintf("delete comment %d on unreadable %d", c.id, p.id), tributary.ENotFound, err)
		case o.m.readable(o.id, p) && c.author != o.id && others < 3:
			others++
			_, err := o.store.EditComment(o.ctx, o.access, c.id, "mine now", o.now)
			try(fmt.Sprintf("edit comment %d by %d", c.id, c.author), tributary.EForbidden, err)
			if p.author != o.id {
				_, err = o.store.DeleteComment(o.ctx, o.access, c.id)
				try(fmt.Sprintf("delete comment %d by %d on %d's post", c.id, c.author, p.author), tributary.EForbidden, err)
			}
		}
	}
	for k := range o.m.likes {
		if k[1] == o.id && o.m.readable(o.id, o.m.post(k[0])) {
			try(fmt.Sprintf("like %d again", k[0]), "", o.store.Like(o.ctx, o.access, k[0], o.now))
		}
	}
	if after := talkState(t, o.ctx, o.store); after != before {
		t.Errorf("%s: refused actions %v stored something:\nbefore %s\nafter  %s", o.label, tried, before, after)
	}
}

// walkChrono scrolls a whole chronological feed by cursor from cursor ("": the first page).
func walkChrono(t *testing.T, ctx context.Context, s *feed.Service, v *tributary.User, c feed.Chrono, cursor string, limit int) []tributary.Post {
	t.Helper()
	var out []tributary.Post
	for range 50 {
		p, err := s.Chrono(ctx, v, c, cursor, limit)
		if err != nil {
			t.Fatal(err)
		}
		if p.Refreshed {
			t.Errorf("chronological %+v: the fence state was lost mid-scroll", c)
		}
		out = append(out, p.Posts...)
		if cursor = p.NextCursor; cursor == "" {
			return out
		}
	}
	t.Fatal("chronological walk does not end")
	return nil
}

// chronoWant is what a chronological feed holds for the model: the posts it lists that the
// viewer may read.
func (o *viewerCase) chronoWant(c feed.Chrono) []int64 {
	return o.m.postsWhere(o.id, func(p modelPost) bool {
		switch {
		case c.Author != 0: // the author's page lists their own feed
			return p.author == c.Author && p.own
		case c.Feed != 0:
			return slices.Contains(p.groups, c.Feed)
		}
		return len(p.direct) > 0 && (p.author == o.id || slices.Contains(p.direct, o.id))
	})
}

// chronoFeeds lists the chronological feeds the viewer at index i of a world opens: one
// user's posts and one group's (each viewer of a world a different user's, groups in turn),
// and their directs. Walking every feed for every viewer would double the oracle's run.
func (o *viewerCase) chronoFeeds(i int) []feed.Chrono {
	out := []feed.Chrono{{Author: o.m.users[i%len(o.m.users)].ID}, {Feed: o.m.groups[i%len(o.m.groups)].ID}}
	if o.id != 0 {
		out = append(out, feed.Chrono{Directs: true})
	}
	return out
}

// chrono walks a chronological feed: each post at most once, each readable (all of them
// unless partial: a scroll begun on an earlier page), each with the talk the viewer sees.
func (o *viewerCase) chrono(s *feed.Service, c feed.Chrono, cursor string, limit int, partial bool) {
	t := o.t
	want := o.chronoWant(c)
	posts := walkChrono(t, o.ctx, s, o.v, c, cursor, limit)
	path := fmt.Sprintf("chronological %+v", c)
	if partial {
		path = "committed " + path
	}
	o.cases["chrono"]++
	got := []int64{}
	for _, p := range posts {
		if slices.Contains(got, p.ID) {
			t.Errorf("%s %s: post %d shown twice", o.label, path, p.ID)
		}
		got = append(got, p.ID)
		if !slices.Contains(want, p.ID) {
			t.Errorf("%s %s: post %d, which the viewer may not read or the feed does not hold", o.label, path, p.ID)
			continue
		}
		if gt, wt := talkOf(p.Talk), o.m.postTalk(o.id, p.ID); gt.String() != wt.String() {
			t.Errorf("%s %s: post %d talks %s, want %s (%s)", o.label, path, p.ID, gt, wt, o.m.describeTalk(onPost(p.ID)))
		}
	}
	slices.Sort(got)
	if !partial && !slices.Equal(slices.Compact(got), want) {
		t.Errorf("%s %s: posts %v, want %v", o.label, path, got, want)
	}
}
