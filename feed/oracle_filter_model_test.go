package feed_test

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"tributary"
	"tributary/db"
)

// The filter feeds' side of the access oracle (oracle_filter_test.go): the oracle's worlds
// (build) with posts and comments whose texts mention the world's users and carry #tags, and
// what each filter feed holds for the model. Which posts a feed is due, and their computed
// places, are read from the model's own lists of posts, likes, comments and bumps (due):
//
//   - liked by U: the posts U liked, at U's like;
//   - commented on by U: the posts U commented on, at U's latest comment on each;
//   - #tag: the posts tagged (their tags or their text) or with a comment with #tag, at the
//     latest of those;
//   - mentions of U: the posts whose text or a comment mentions @U, at the latest of those;
//   - U's discussions: the posts U wrote, liked or commented on, at the latest of the post's
//     last arrival (made or bumped) and U's like and comments.
//
// A post's place in a feed never moves down, so the model keeps each entry's place as state
// (entries), moved by the same events as the app's (migrations/00012_filter_feeds.sql):
//
//   - a post made, a like, a comment added, a bump: the entries they touch move up to the
//     event's time (or come, at it), never down;
//   - a like taken back: out of the liker's likes, and out of their discussions unless they
//     wrote the post or commented on it, where it keeps its place;
//   - a comment edited or deleted: the post's entries no longer due go, those newly due come
//     at their computed place, and the rest move up to it or keep their place.
//
// A feed is read newest first, ties by post id descending, only the posts the viewer may read.

// filterModel is a model with what filter feeds are made of.
type filterModel struct {
	*model
	text    map[int64]string    // post -> its text
	tags    map[int64][]string  // post -> its tags (given and from its text)
	bumped  map[int64]time.Time // post -> its last bump (absent: never bumped)
	handles map[int64]string    // user -> handle, lower-cased
	// entries is what the filter feeds hold: feed (filter_posts.feed) -> post -> its place,
	// which only moves up (see raise, unliked and refilter).
	entries map[string]map[int64]time.Time
}

// filterTags are the tags the worlds' texts use (normalized); walked with one more tag that
// nothing has.
var filterTags = []string{"go", "ml", "café", "p2p"}

// filterTagSpellings are ways to write them in a text: case, a trailing '-' (punctuation,
// not part of the tag), around brackets and stops.
var filterTagSpellings = map[string][]string{
	"go":   {"#go", "#Go", "#GO-", "(#go)."},
	"ml":   {"#ml", "#ML,", "#Ml"},
	"café": {"#café", "#Café!", "#CAFÉ"},
	"p2p":  {"#p2p", "#P2P", "#p2p_"},
}

// filterFeed is one filter feed of a world.
type filterFeed struct {
	path string // the tally's name for its kind
	key  string // filter_posts.feed
	kind byte   // l, c, t, m, d
	user int64  // l, c, m, d
	tag  string // t
}

func likedBy(u int64) filterFeed {
	return filterFeed{path: "liked-by", key: db.LikedByFeed(u), kind: 'l', user: u}
}
func commentedBy(u int64) filterFeed {
	return filterFeed{path: "commented-by", key: db.CommentedByFeed(u), kind: 'c', user: u}
}
func mentionsOf(u int64) filterFeed {
	return filterFeed{path: "mentions", key: db.MentionsFeed(u), kind: 'm', user: u}
}
func discussionsOf(u int64) filterFeed {
	return filterFeed{path: "discussions", key: db.DiscussionsFeed(u), kind: 'd', user: u}
}
func tagged(tag string) filterFeed {
	return filterFeed{path: "tag", key: db.TagFeed(tag), kind: 't', tag: tag}
}

// filterFeeds lists the feeds a viewer (0: anonymous) reads: every user's likes and
// comments, every tag, and their own mentions and discussions.
func (fm *filterModel) filterFeeds(viewer int64) []filterFeed {
	var out []filterFeed
	for _, u := range fm.users {
		out = append(out, likedBy(u.ID), commentedBy(u.ID))
	}
	for _, tag := range append(slices.Clone(filterTags), "unused") {
		out = append(out, tagged(tag))
	}
	if viewer != 0 {
		out = append(out, mentionsOf(viewer), discussionsOf(viewer))
	}
	return out
}

// lastArrival is when a post last arrived in the feeds holding it: made, or bumped.
func (fm *filterModel) lastArrival(p modelPost) time.Time {
	if b, ok := fm.bumped[p.id]; ok && b.After(p.at) {
		return b
	}
	return p.at
}

// due is every filter feed entry of post id, computed from the model's posts, likes,
// comments and bumps (post_filters): feed -> its computed place.
func (fm *filterModel) due(id int64) map[string]time.Time {
	out := map[string]time.Time{}
	add := func(feed string, at time.Time) {
		if cur, ok := out[feed]; !ok || at.After(cur) {
			out[feed] = at
		}
	}
	users := func(text string) []int64 {
		var us []int64
		for _, h := range tributary.Mentions(text) {
			for u, uh := range fm.handles {
				if uh == h {
					us = append(us, u)
				}
			}
		}
		return us
	}
	p := fm.post(id)
	last := fm.lastArrival(p)
	add(db.DiscussionsFeed(p.author), last)
	for _, tag := range fm.tags[id] {
		add(db.TagFeed(tag), p.at)
	}
	for _, u := range users(fm.text[id]) {
		if !fm.banned(u, p.author) { // a mention by someone in a ban with you does not reach you
			add(db.MentionsFeed(u), p.at)
		}
	}
	for k, at := range fm.likes {
		if k[0] == id {
			add(db.LikedByFeed(k[1]), at)
			add(db.DiscussionsFeed(k[1]), at)
			add(db.DiscussionsFeed(k[1]), last)
		}
	}
	for _, c := range fm.comments {
		if c.post != id {
			continue
		}
		add(db.CommentedByFeed(c.author), c.at)
		add(db.DiscussionsFeed(c.author), c.at)
		add(db.DiscussionsFeed(c.author), last)
		for _, tag := range tributary.Tags(c.body) {
			add(db.TagFeed(tag), c.at)
		}
		for _, u := range users(c.body) {
			if fm.banned(u, c.author) {
				continue
			}
			add(db.MentionsFeed(u), c.at)
		}
	}
	return out
}

// raise moves post's entry in feed up to at, or adds it there: it never moves down.
func (fm *filterModel) raise(feed string, post int64, at time.Time) {
	posts := fm.entries[feed]
	if posts == nil {
		posts = map[int64]time.Time{}
		fm.entries[feed] = posts
	}
	if cur, ok := posts[post]; !ok || at.After(cur) {
		posts[post] = at
	}
}

// posted adds a new post to the feeds it is due in (filter_new_posts).
func (fm *filterModel) posted(post int64) {
	for feed, at := range fm.due(post) {
		fm.raise(feed, post, at)
	}
}

// liked adds user's new like of post at at (filter_new_likes): to their likes and
// discussions, moving up there.
func (fm *filterModel) liked(post, user int64, at time.Time) {
	fm.raise(db.LikedByFeed(user), post, at)
	fm.raise(db.DiscussionsFeed(user), post, at)
}

// unliked takes user's like of post back (filter_old_likes): out of their likes, and out of
// their discussions unless they wrote the post or have a comment on it (then it keeps its
// place there, as it was).
func (fm *filterModel) unliked(post, user int64) {
	delete(fm.entries[db.LikedByFeed(user)], post)
	if fm.post(post).author == user || slices.ContainsFunc(fm.comments, func(c modelComment) bool { return c.post == post && c.author == user }) {
		return
	}
	delete(fm.entries[db.DiscussionsFeed(user)], post)
}

// commented adds comment c (filter_new_comments): to its author's comments and discussions,
// the feeds of its tags and of the users it mentions, at its time; and when it bumped the
// post, the post moves up to it in every discussion holding it (filter_bumped_posts).
func (fm *filterModel) commented(c modelComment, bumped bool) {
	fm.raise(db.CommentedByFeed(c.author), c.post, c.at)
	fm.raise(db.DiscussionsFeed(c.author), c.post, c.at)
	for _, tag := range tributary.Tags(c.body) {
		fm.raise(db.TagFeed(tag), c.post, c.at)
	}
	for _, h := range tributary.Mentions(c.body) {
		for u, uh := range fm.handles {
			if uh == h && !fm.banned(u, c.author) {
				fm.raise(db.MentionsFeed(u), c.post, c.at)
			}
		}
	}
	if !bumped {
		return
	}
	for feed, posts := range fm.entries {
		if _, ok := posts[c.post]; ok && strings.HasPrefix(feed, "d:") {
			fm.raise(feed, c.post, c.at)
		}
	}
}

// refilter brings post's entries in line with due after one of its comments was edited or
// deleted (refilter_posts): the entries no longer due go, the newly due come at their
// computed place, and the rest move up to it or keep their place, never down.
func (fm *filterModel) refilter(post int64) {
	due := fm.due(post)
	for feed, posts := range fm.entries {
		if _, ok := due[feed]; !ok {
			delete(posts, post)
		}
	}
	for feed, at := range due {
		fm.raise(feed, post, at)
	}
}

// members is every post a feed holds (readable or not, deleted or not), at its place there.
func (fm *filterModel) members(f filterFeed) map[int64]time.Time {
	return maps.Clone(fm.entries[f.key])
}

// filterArrival is a post in a feed at a time.
type filterArrival struct {
	id int64
	at time.Time
}

// shown says whether viewer may see that post is in feed f for the bans they are in (either
// way), as comments are hidden between them: a user's likes and comments not at all; a post
// in a tag or mentions feed only when the post itself tags or mentions (its author not in a
// ban with the viewer, for a mention) or a comment by someone not in a ban with them does.
func (fm *filterModel) shown(viewer int64, f filterFeed, post int64) bool {
	if viewer == 0 {
		return true
	}
	p := fm.post(post)
	names := func(text string) bool {
		switch f.kind {
		case 't':
			return slices.Contains(tributary.Tags(text), f.tag)
		case 'm':
			return slices.Contains(tributary.Mentions(text), fm.handles[f.user])
		}
		return false
	}
	switch f.kind {
	case 'l', 'c':
		return !fm.banned(viewer, f.user)
	case 't':
		if slices.Contains(fm.tags[post], f.tag) {
			return true
		}
	case 'm':
		if names(fm.text[post]) && !fm.banned(viewer, p.author) {
			return true
		}
	default:
		return true
	}
	return slices.ContainsFunc(fm.comments, func(c modelComment) bool {
		return c.post == post && names(c.body) && !fm.banned(viewer, c.author)
	})
}

// want is a feed as viewer (0: anonymous) reads it: its readable posts that their bans let
// them see there (shown), newest arrival first, ties by post id descending.
func (fm *filterModel) want(viewer int64, f filterFeed) []filterArrival {
	var out []filterArrival
	for id, at := range fm.members(f) {
		if fm.readable(viewer, fm.post(id)) && fm.shown(viewer, f, id) {
			out = append(out, filterArrival{id, at})
		}
	}
	slices.SortFunc(out, func(a, b filterArrival) int { return cmp.Or(b.at.Compare(a.at), cmp.Compare(b.id, a.id)) })
	return out
}

func arrivedIDs(as []filterArrival) []int64 {
	out := []int64{}
	for _, a := range as {
		out = append(out, a.id)
	}
	return out
}

// describe spells a feed's expected posts with their arrivals (minutes before now).
func describe(as []filterArrival, now time.Time) string {
	var parts []string
	for _, a := range as {
		parts = append(parts, fmt.Sprintf("%d@-%dm", a.id, int(now.Sub(a.at).Minutes())))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// filterText is a random text mentioning some of the world's users (in any case, one that
// does not exist, and an address that is no mention) and tagging some of filterTags (and a
// word that is no tag).
func (fm *filterModel) filterText(r *rand.Rand, prefix string) string {
	parts := []string{prefix}
	for range 1 + r.IntN(3) {
		switch r.IntN(9) {
		case 0, 1, 2:
			h := fm.users[r.IntN(len(fm.users))].Handle
			if r.IntN(3) == 0 {
				h = strings.ToUpper(h)
			}
			parts = append(parts, "@"+h)
		case 3, 4, 5:
			sp := filterTagSpellings[filterTags[r.IntN(len(filterTags))]]
			parts = append(parts, sp[r.IntN(len(sp))])
		case 6:
			parts = append(parts, "cc @nobody")
		case 7:
			parts = append(parts, fmt.Sprintf("mail x@%s.example", fm.users[r.IntN(len(fm.users))].Handle))
		case 8:
			parts = append(parts, "x#"+filterTags[r.IntN(len(filterTags))])
		}
	}
	return strings.Join(parts, " ")
}

// buildFilterWorld is build's world with some more posts whose texts mention and tag: to
// their author's feed, a group or as a direct, some at the same time (ties) and some older
// than a day (a comment bumps them only when they are busy).
func buildFilterWorld(t *testing.T, ctx context.Context, store *db.Store, r *rand.Rand, now time.Time) *filterModel {
	m := build(t, ctx, store, r, now)
	fm := &filterModel{model: m, text: map[int64]string{}, tags: map[int64][]string{}, bumped: map[int64]time.Time{},
		handles: map[int64]string{}, entries: map[string]map[int64]time.Time{}}
	for _, u := range m.users {
		fm.handles[u.ID] = strings.ToLower(u.Handle)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	ages := []time.Duration{time.Hour, 3 * time.Hour, 3 * time.Hour, 4 * time.Hour, 30 * time.Hour, 30 * time.Hour}
	for i := range 4 + r.IntN(5) {
		u := m.users[r.IntN(len(m.users))]
		mp := modelPost{author: u.ID, at: now.Add(-ages[r.IntN(len(ages))])}
		var d db.Destination
		switch r.IntN(6) {
		case 0: // a direct to some followers, when there are any
			for _, f := range m.users {
				if m.follows[[2]int64{f.ID, u.ID}] == "active" && r.IntN(2) == 0 {
					d.DirectTo = append(d.DirectTo, f.ID)
				}
			}
			mp.direct = d.DirectTo
		case 1:
			for _, g := range m.groups {
				if m.members[g.ID][u.ID] == "active" {
					d.Groups = append(d.Groups, g.ID)
					mp.groups = append(mp.groups, g.ID)
					break
				}
			}
		}
		if len(d.DirectTo) == 0 && len(d.Groups) == 0 {
			d.OwnFeed, mp.own = true, true
		}
		var given []string
		if r.IntN(3) == 0 {
			given = []string{strings.ToUpper(filterTags[r.IntN(len(filterTags))])}
		}
		body := fm.filterText(r, fmt.Sprintf("post %d", i))
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: u.ID, URL: fmt.Sprintf("https://example.org/talk/%d", i),
			Body: body, Tags: given, CreatedAt: mp.at})
		must(err)
		id, err := store.Share(ctx, p, d)
		must(err)
		mp.id = id
		must(store.Pool.QueryRow(ctx, "SELECT anchor_id FROM posts WHERE id = $1", id).Scan(&mp.anchor))
		m.posts = append(m.posts, mp)
		fm.text[id] = body
		tags, err := tributary.NormalizeTags(given)
		must(err)
		for _, tag := range tributary.Tags(body) {
			if !slices.Contains(tags, tag) {
				tags = append(tags, tag)
			}
		}
		fm.tags[id] = tags
	}
	// Every post, build's and these, came in its feeds when made; nothing was liked or
	// commented on yet.
	for _, p := range m.posts {
		fm.posted(p.id)
	}
	return fm
}

// filterTalk has random people like, unlike and comment (texts that mention and tag) on
// random posts, and edit and delete random comments, through the store, mirroring what is
// allowed in the model (as converse does) and the bumps the comments make. Actions come two
// a minute, so that feeds have ties.
func (fm *filterModel) filterTalk(t *testing.T, ctx context.Context, store *db.Store, r *rand.Rand, now time.Time, label string) {
	t.Helper()
	n := 24 + r.IntN(30)
	for k := range n {
		at := now.Add(-time.Duration((n-k+1)/2) * time.Minute)
		actor := fm.users[r.IntN(len(fm.users))].ID
		// Mostly the newer posts, those with texts: their conversations meet.
		p := fm.posts[len(fm.posts)-1-r.IntN(min(len(fm.posts), 10))]
		kind := []string{"like", "like", "like", "unlike", "comment", "comment", "comment", "comment", "edit", "delete"}[r.IntN(10)]
		var c modelComment
		if kind == "edit" || kind == "delete" || kind == "unlike" && r.IntN(2) == 0 {
			if len(fm.comments) == 0 {
				continue
			}
			c = fm.comments[r.IntN(len(fm.comments))]
			p = fm.post(c.post)
			switch {
			case kind == "unlike": // someone who liked it, when anyone did
				for _, u := range fm.users {
					if _, ok := fm.likes[[2]int64{p.id, u.ID}]; ok {
						actor = u.ID
					}
				}
			case r.IntN(3) == 0:
				actor = p.author
			case r.IntN(3) != 0:
				actor = c.author
			}
		}
		if kind == "edit" {
			fm.editComment(t, ctx, store, actor, c, fm.filterText(r, fmt.Sprintf("edit %d", k)), at, label)
			continue
		}
		if kind == "delete" {
			fm.deleteComment(t, ctx, store, actor, c, label)
			continue
		}
		want := ""
		if !fm.readable(actor, p) {
			want = tributary.ENotFound
		}
		access, err := store.ViewerAccess(ctx, actor)
		if err != nil {
			t.Fatal(err)
		}
		var bumped bool
		var added tributary.Comment
		body := fm.filterText(r, fmt.Sprintf("comment %d", k))
		switch kind {
		case "like":
			err = store.Like(ctx, access, p.id, at)
		case "unlike":
			err = store.Unlike(ctx, access, p.id)
		case "comment":
			added, bumped, err = store.AddComment(ctx, access, p.id, body, at, tributary.DefaultBumpRule)
			if bumped { // what the filter-bumps job does a moment later
				if _, err := store.ApplyFilterBumps(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		what := fmt.Sprintf("%s: user %d's %s on post %d", label, actor, kind, p.id)
		if got := codeOf(err); got != want {
			t.Fatalf("%s: error %q (%v), want %q", what, got, err, want)
		}
		if want != "" {
			continue
		}
		switch kind {
		case "like":
			if _, ok := fm.likes[[2]int64{p.id, actor}]; !ok {
				fm.likes[[2]int64{p.id, actor}] = at
				fm.liked(p.id, actor, at)
			}
		case "unlike":
			if _, ok := fm.likes[[2]int64{p.id, actor}]; ok {
				delete(fm.likes, [2]int64{p.id, actor})
				fm.unliked(p.id, actor)
			}
		case "comment":
			c := modelComment{id: added.ID, post: p.id, author: actor, body: body, at: at}
			fm.comments = append(fm.comments, c)
			recent := 0
			for _, c := range fm.comments {
				if c.post == p.id && c.at.After(at.Add(-24*time.Hour)) {
					recent++
				}
			}
			// Seed 003: a comment bumps a post younger than a day, or one with more than two
			// comments in the last day.
			bumps := at.Sub(p.at) < 24*time.Hour || recent > 2
			if bumped != bumps {
				t.Fatalf("%s: bumped %v, want %v (post made %s before, %d comments in the last day)", what, bumped, bumps, at.Sub(p.at), recent)
			}
			if bumps {
				fm.bumped[p.id] = at
			}
			fm.commented(c, bumps)
		}
	}
}

// editComment has actor edit comment c to body, as the store allows and the model mirrors.
func (fm *filterModel) editComment(t *testing.T, ctx context.Context, store *db.Store, actor int64, c modelComment, body string, at time.Time, label string) {
	t.Helper()
	p := fm.post(c.post)
	want := ""
	switch {
	case !fm.readable(actor, p):
		want = tributary.ENotFound
	case actor != c.author:
		want = tributary.EForbidden
	}
	access, err := store.ViewerAccess(ctx, actor)
	if err != nil {
		t.Fatal(err)
	}
	_, err = store.EditComment(ctx, access, c.id, body, at)
	if got := codeOf(err); got != want {
		t.Fatalf("%s: user %d's edit of comment %d on post %d: error %q (%v), want %q", label, actor, c.id, p.id, got, err, want)
	}
	if want == "" {
		i := slices.IndexFunc(fm.comments, func(x modelComment) bool { return x.id == c.id })
		fm.comments[i].body, fm.comments[i].edited = body, true
		fm.refilter(c.post)
	}
}

// deleteComment has actor delete comment c, as the store allows and the model mirrors.
func (fm *filterModel) deleteComment(t *testing.T, ctx context.Context, store *db.Store, actor int64, c modelComment, label string) {
	t.Helper()
	p := fm.post(c.post)
	want := ""
	switch {
	case !fm.readable(actor, p):
		want = tributary.ENotFound
	case actor != c.author && actor != p.author:
		want = tributary.EForbidden
	}
	access, err := store.ViewerAccess(ctx, actor)
	if err != nil {
		t.Fatal(err)
	}
	_, err = store.DeleteComment(ctx, access, c.id)
	if got := codeOf(err); got != want {
		t.Fatalf("%s: user %d's deletion of comment %d on post %d: error %q (%v), want %q", label, actor, c.id, p.id, got, err, want)
	}
	if want == "" {
		fm.comments = slices.DeleteFunc(fm.comments, func(x modelComment) bool { return x.id == c.id })
		fm.refilter(c.post)
	}
}

// filterChanges takes things away after the feeds were read once: a post in several filter
// feeds deleted, a liked post's author going private, some likes taken back (by their likers,
// where they may still read the post), a comment deleted or edited, and change's random
// revocations (visibility, bans, subscribers, groups, deletions).
func (fm *filterModel) filterChanges(t *testing.T, ctx context.Context, store *db.Store, r *rand.Rand, now time.Time, label string) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// The live posts by how many likes and comments they have.
	talked := func() []modelPost {
		n := map[int64]int{}
		for k := range fm.likes {
			n[k[0]]++
		}
		for _, c := range fm.comments {
			n[c.post]++
		}
		var out []modelPost
		for _, p := range fm.posts {
			if !p.deleted && n[p.id] > 0 {
				out = append(out, p)
			}
		}
		slices.SortStableFunc(out, func(a, b modelPost) int { return cmp.Compare(n[b.id], n[a.id]) })
		return out
	}
	if ps := talked(); len(ps) > 0 && r.IntN(3) != 0 {
		p := ps[r.IntN(min(3, len(ps)))]
		must(store.DeletePost(ctx, p.author, p.id, now))
		fm.posts[slices.IndexFunc(fm.posts, func(x modelPost) bool { return x.id == p.id })].deleted = true
	}
	if ps := talked(); len(ps) > 0 && r.IntN(2) == 0 {
		p := ps[r.IntN(len(ps))]
		if p.own && fm.visibility[p.author] != "private" {
			must(store.SetVisibility(ctx, p.author, "private", now))
			fm.visibility[p.author] = "private"
		}
	}
	var likes [][2]int64
	for k := range fm.likes {
		likes = append(likes, k)
	}
	slices.SortFunc(likes, func(a, b [2]int64) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	for range 1 + r.IntN(3) {
		if len(likes) == 0 {
			break
		}
		i := r.IntN(len(likes))
		k := likes[i]
		likes = slices.Delete(likes, i, i+1)
		access, err := store.ViewerAccess(ctx, k[1])
		must(err)
		err = store.Unlike(ctx, access, k[0])
		want := ""
		if !fm.readable(k[1], fm.post(k[0])) {
			want = tributary.ENotFound
		}
		if got := codeOf(err); got != want {
			t.Fatalf("%s: user %d takes back their like of post %d: error %q (%v), want %q", label, k[1], k[0], got, err, want)
		}
		if want == "" {
			delete(fm.likes, k)
			fm.unliked(k[0], k[1])
		}
	}
	if len(fm.comments) > 0 {
		c := fm.comments[r.IntN(len(fm.comments))]
		if r.IntN(2) == 0 {
			fm.deleteComment(t, ctx, store, c.author, c, label)
		} else {
			fm.editComment(t, ctx, store, c.author, c, "nothing to see here", now, label)
		}
	}
	for range r.IntN(3) {
		change(t, ctx, store, r, fm.model, now)
	}
	// A ban changes which mentions reach a mentions feed (the app refilters the posts of the
	// two; refiltering any other post changes nothing).
	for _, p := range fm.posts {
		fm.refilter(p.id)
	}
}

// talkDiffers says how the talk a post shows differs from the model's (""; the same): the
// counts and the viewer's like exactly; the likers named by when they liked, since two likes
// made at the same time may be named in either order (PostTalk names the newest three by
// like time alone).
func (fm *filterModel) talkDiffers(viewer, post int64, got tributary.Talk) string {
	g, w := talkOf(got), fm.postTalk(viewer, post)
	when := func(likers []int64) []string {
		out := []string{}
		for _, u := range likers {
			at, ok := fm.likes[[2]int64{post, u}]
			if !ok || u == viewer || !fm.sees(viewer, u) {
				out = append(out, fmt.Sprintf("%d (not a liker shown)", u))
				continue
			}
			out = append(out, at.Format("15:04:05"))
		}
		return out
	}
	if g.likes != w.likes || g.comments != w.comments || g.likedPost != w.likedPost || !slices.Equal(when(g.likers), when(w.likers)) {
		return fmt.Sprintf("talks %s, want %s", g, w)
	}
	return ""
}
