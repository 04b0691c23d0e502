package feed_test

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
	"tributary/feed"
)

// The access oracle over activity in the home feed (seed 003): random small worlds (build,
// oracle_model_test.go) where every logged-in viewer opens their home feed (committing a
// fencepost), then, the clock moved on a little, random people like, unlike, comment on,
// delete and edit comments on random posts (readable to them or not: those are refused), share
// links again and sometimes change who may read what. Each viewer's "N new" count
// (NewCount) and the items above their page (NewItems) must be exactly what the model says
// arrived in the interval:
//
//   - shared: an item with a share by the viewer or someone they follow (active) that the
//     viewer may read, made in the interval;
//   - activity (home_activity on, the interval no longer than a day, not the viewer's first
//     fencepost): an item with a post the viewer may read that someone they follow (active)
//     liked or commented on in the interval, as their likes and comments feeds place it
//     (filter_posts 'l:<u>' and 'c:<u>': a like's time, the latest comment's, a place that
//     never moves down when a comment goes), not shared in the interval; its card says who
//     (the latest such like or comment) unless someone the viewer follows, or the viewer,
//     shared the item in a post they may read;
//   - never an item the viewer hid or has seen, nor one whose only activity in the interval
//     is on posts the viewer may not read or by people they do not follow.
//
// A world's viewers come back activityRounds times, each time counting from the fencepost
// the last visit committed (or the one before, when nothing arrived); the last action of a
// round is at the very time of the fencepost then committed, so it must not arrive again. In
// some worlds one return comes a day later (exactly a day: activity still counts; a second
// more: it does not). Each world has a newcomer who follows only a friend with no shares yet:
// with no fencepost, nothing arrives for them by activity (their first fencepost ranks their
// whole feed by shares). Heads of one to three items in most worlds make NewItems' page reach
// into older fenceposts, whose tails are listed again with their activity.
//
// Worlds are not exactly reproducible from their number: build and change (shared with the
// access oracle) range over maps. Failures are reported by kind, the first three of each in
// full (the world, round and viewer, what arrived and what happened in the interval).

// actKey is one entry of a likes ('l:<user>') or comments ('c:<user>') filter feed.
type actKey struct {
	commented bool
	user      int64
	post      int64
}

// activityModel is a model with what activity is read from.
type activityModel struct {
	*model
	// entries are the likes and comments feeds' entries at their places: a like at its time,
	// a comment at the latest of its author's on the post; a place never moves down.
	entries map[actKey]time.Time
	hidden  map[int64]map[int64]bool // viewer -> items they hid
	seen    map[int64]map[int64]bool // viewer -> items they have seen
	off     map[int64]bool           // viewers with home_activity off
}

// dueEntry is what post_filters computes for an entry now; ok false when it is not due.
func (am *activityModel) dueEntry(k actKey) (time.Time, bool) {
	if !k.commented {
		at, ok := am.likes[[2]int64{k.post, k.user}]
		return at, ok
	}
	var at time.Time
	ok := false
	for _, c := range am.comments {
		if c.post == k.post && c.author == k.user && (!ok || c.at.After(at)) {
			at, ok = c.at, true
		}
	}
	return at, ok
}

// raise moves an entry up to at, or adds it there.
func (am *activityModel) raise(k actKey, at time.Time) {
	if cur, ok := am.entries[k]; !ok || at.After(cur) {
		am.entries[k] = at
	}
}

// refilter brings a post's entries in line after a comment on it was edited or deleted
// (refilter_posts): those no longer due go, the rest keep their place or move up.
func (am *activityModel) refilter(post int64) {
	for k := range am.entries {
		if k.post != post {
			continue
		}
		if at, ok := am.dueEntry(k); !ok {
			delete(am.entries, k)
		} else {
			am.raise(k, at)
		}
	}
	for k := range am.likes {
		if k[0] == post {
			am.raise(actKey{false, k[1], post}, am.likes[k])
		}
	}
	for _, c := range am.comments {
		if c.post == post {
			k := actKey{true, c.author, post}
			at, _ := am.dueEntry(k)
			am.raise(k, at)
		}
	}
}

func (am *activityModel) followee(viewer, user int64) bool {
	return viewer != user && am.follows[[2]int64{viewer, user}] == "active"
}

// wantArrival is an item the model says arrived in an interval.
type wantArrival struct {
	anchor int64
	shared bool // by a share; by activity otherwise
	at     time.Time
	by     actKey // the activity (when !shared)
	// card: the activity the item's card shows (nil: none, someone followed shared it).
	card *actKey
}

func (w wantArrival) String() string {
	if w.shared {
		return fmt.Sprintf("%d shared", w.anchor)
	}
	how := "liked"
	if w.by.commented {
		how = "commented"
	}
	card := ""
	if w.card == nil {
		card = ", shared by someone followed"
	}
	return fmt.Sprintf("%d %s by %d (post %d)%s", w.anchor, how, w.by.user, w.by.post, card)
}

// arrivals is what arrived for viewer in (from, to], hidden and seen items included, with
// activity counting when withActivity (home_activity on, after the first fencepost) and the
// interval is no longer than a day.
func (am *activityModel) arrivals(viewer int64, from, to time.Time, withActivity bool) map[int64]wantArrival {
	in := func(at time.Time) bool { return at.After(from) && !at.After(to) }
	fl := am.followed(viewer)
	out := map[int64]wantArrival{}
	for _, p := range am.posts {
		if fl[p.author] && in(p.at) && am.readable(viewer, p) {
			out[p.anchor] = wantArrival{anchor: p.anchor, shared: true}
		}
	}
	if !withActivity || to.Sub(from) > 24*time.Hour {
		return out
	}
	for k, at := range am.entries {
		p := am.post(k.post)
		if !in(at) || !am.followee(viewer, k.user) || !am.readable(viewer, p) {
			continue
		}
		cur, ok := out[p.anchor]
		if ok && (cur.shared || cur.at.After(at) || cur.at.Equal(at) && cur.by.commented && !k.commented) {
			continue
		}
		out[p.anchor] = wantArrival{anchor: p.anchor, at: at, by: k}
	}
	for a, w := range out {
		if w.shared || slices.ContainsFunc(am.posts, func(p modelPost) bool {
			return p.anchor == a && fl[p.author] && am.readable(viewer, p)
		}) {
			continue
		}
		by := w.by
		w.card = &by
		out[a] = w
	}
	return out
}

// describeInterval lists what happened in (from, to] for a failure message: shares and
// likes and comments feeds' entries, each with whether viewer may read the post and
// follows its maker.
func (am *activityModel) describeInterval(viewer int64, from, to time.Time) string {
	in := func(at time.Time) bool { return at.After(from) && !at.After(to) }
	var parts []string
	for _, p := range am.posts {
		if in(p.at) {
			parts = append(parts, fmt.Sprintf("item %d: post %d shared by %d at +%s (readable %v, followed %v)",
				p.anchor, p.id, p.author, p.at.Sub(from), am.readable(viewer, p), am.followed(viewer)[p.author]))
		}
	}
	for k, at := range am.entries {
		if !in(at) {
			continue
		}
		p := am.post(k.post)
		how := "liked"
		if k.commented {
			how = "commented on"
		}
		parts = append(parts, fmt.Sprintf("item %d: post %d %s by %d at +%s (readable %v, deleted %v, followee %v)",
			p.anchor, p.id, how, k.user, at.Sub(from), am.readable(viewer, p), p.deleted, am.followee(viewer, k.user)))
	}
	slices.Sort(parts)
	return strings.Join(parts, "; ")
}

// activityURLs are the links the worlds' posts share (build's), and new ones.
var activityURLs = []string{"https://arxiv.org/abs/2401.0000", "https://github.com/o/r", "https://example.com/a", "https://example.com/b"}

// activityWorker is one worker's database and clock.
type activityWorker struct {
	t     *testing.T
	ctx   context.Context
	store *db.Store
	now   time.Time
	head  int // the head size of the world's service
	rep   *activityReport
	// access is every user's access as the store knows it: read again after a change and
	// after a direct (a new private feed of its readers).
	access map[int64]tributary.Viewer
}

// act performs one random action at at through the store with the actor's access, checks
// its answer against the model, and mirrors it there. Actions refused (the post unreadable
// to the actor, a comment not theirs) must be refused.
func (aw *activityWorker) act(am *activityModel, r *rand.Rand, access map[int64]tributary.Viewer, at time.Time, k int, label string) {
	t, ctx, store := aw.t, aw.ctx, aw.store
	actor := am.users[r.IntN(len(am.users))].ID
	p := am.posts[r.IntN(len(am.posts))]
	kind := []string{"like", "like", "like", "like", "unlike", "comment", "comment", "comment", "delete", "delete", "edit", "share"}[r.IntN(12)]
	var c modelComment
	switch kind {
	case "unlike":
		// Mostly a like there is, so that unlikes take something back.
		var liked [][2]int64
		for key := range am.likes {
			liked = append(liked, key)
		}
		if len(liked) > 0 && r.IntN(4) != 0 {
			slices.SortFunc(liked, func(a, b [2]int64) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
			key := liked[r.IntN(len(liked))]
			p, actor = am.post(key[0]), key[1]
		}
	case "edit", "delete":
		if len(am.comments) == 0 {
			return
		}
		c = am.comments[r.IntN(len(am.comments))]
		p = am.post(c.post)
		switch r.IntN(4) {
		case 0, 1:
			actor = c.author
		case 2:
			actor = p.author
		}
	case "share":
		if aw.share(am, r, actor, at, k, label) {
			maps.Copy(access, aw.accessAll(am)) // a direct is a new private feed of its readers
		}
		return
	}
	want := ""
	switch {
	case !am.readable(actor, p):
		want = tributary.ENotFound
	case kind == "edit" && actor != c.author,
		kind == "delete" && actor != c.author && actor != p.author:
		want = tributary.EForbidden
	}
	var err error
	var added tributary.Comment
	body := fmt.Sprintf("comment %d by %d", k, actor)
	switch kind {
	case "like":
		err = store.Like(ctx, access[actor], p.id, at)
	case "unlike":
		err = store.Unlike(ctx, access[actor], p.id)
	case "comment":
		added, _, err = store.AddComment(ctx, access[actor], p.id, body, at, tributary.DefaultBumpRule)
	case "edit":
		_, err = store.EditComment(ctx, access[actor], c.id, body, at)
	case "delete":
		_, err = store.DeleteComment(ctx, access[actor], c.id)
	}
	aw.rep.count(aw.rep.cases, "activity action")
	if got := codeOf(err); got != want {
		t.Fatalf("%s: user %d's %s on post %d (comment %d): error %q (%v), want %q", label, actor, kind, p.id, c.id, got, err, want)
	}
	if want != "" {
		aw.rep.count(aw.rep.cover, "refused action")
		return
	}
	switch kind {
	case "like":
		if _, ok := am.likes[[2]int64{p.id, actor}]; !ok {
			am.likes[[2]int64{p.id, actor}] = at
			am.raise(actKey{false, actor, p.id}, at)
		}
	case "unlike":
		delete(am.likes, [2]int64{p.id, actor})
		delete(am.entries, actKey{false, actor, p.id})
	case "comment":
		am.comments = append(am.comments, modelComment{id: added.ID, post: p.id, author: actor, body: body, at: at})
		am.raise(actKey{true, actor, p.id}, at)
	case "edit":
		i := slices.IndexFunc(am.comments, func(x modelComment) bool { return x.id == c.id })
		am.comments[i].body, am.comments[i].edited = body, true
		am.refilter(p.id)
	case "delete":
		am.comments = slices.DeleteFunc(am.comments, func(x modelComment) bool { return x.id == c.id })
		if before, ok := am.entries[actKey{true, c.author, p.id}]; ok && before.After(c.at) {
			aw.rep.count(aw.rep.cover, "comment deleted, not the latest")
		}
		am.refilter(p.id)
		if at, ok := am.entries[actKey{true, c.author, p.id}]; ok {
			if due, _ := am.dueEntry(actKey{true, c.author, p.id}); at.After(due) {
				aw.rep.count(aw.rep.cover, "comments entry kept its place")
			}
		}
	}
}

// share has author share a link (one of the world's, or a new one) at at: to their feed
// mostly, sometimes to a group they are in or as a direct to one of their followers. It
// says whether it made a direct.
func (aw *activityWorker) share(am *activityModel, r *rand.Rand, author int64, at time.Time, k int, label string) bool {
	t, ctx, store := aw.t, aw.ctx, aw.store
	url := activityURLs[r.IntN(len(activityURLs))] + fmt.Sprint(r.IntN(3))
	if r.IntN(3) == 0 {
		url = fmt.Sprintf("https://example.com/new/%d", k)
	}
	d := db.Destination{OwnFeed: true}
	mp := modelPost{author: author, own: true, at: at}
	switch r.IntN(5) {
	case 0:
		for _, g := range am.groups {
			if am.members[g.ID][author] == "active" {
				d = db.Destination{Groups: []int64{g.ID}}
				mp.own, mp.groups = false, []int64{g.ID}
				break
			}
		}
	case 1:
		var followers []int64
		for key, st := range am.follows {
			if key[1] == author && st == "active" {
				followers = append(followers, key[0])
			}
		}
		if len(followers) > 0 {
			slices.Sort(followers)
			to := followers[r.IntN(len(followers))]
			d = db.Destination{DirectTo: []int64{to}}
			mp.own, mp.direct = false, []int64{to}
		}
	}
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: author, URL: url, CreatedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	id, err := store.Share(ctx, p, d)
	if err != nil {
		t.Fatalf("%s: user %d shares %s to %+v: %v", label, author, url, d, err)
	}
	aw.rep.count(aw.rep.cases, "activity action")
	if id == 0 {
		return false // the same share exists
	}
	mp.id = id
	if err := store.Pool.QueryRow(ctx, "SELECT anchor_id FROM posts WHERE id = $1", id).Scan(&mp.anchor); err != nil {
		t.Fatal(err)
	}
	am.posts = append(am.posts, mp)
	return len(mp.direct) > 0
}

// accessAll reads every user's access as the store knows it now.
func (aw *activityWorker) accessAll(am *activityModel) map[int64]tributary.Viewer {
	out := map[int64]tributary.Viewer{}
	for _, u := range am.users {
		a, err := aw.store.ViewerAccess(aw.ctx, u.ID)
		if err != nil {
			aw.t.Fatal(err)
		}
		out[u.ID] = a
	}
	return out
}

// actions performs n random actions at times spread over (from, to], the last exactly at to
// (a fencepost committed at to holds it; the next one must not).
func (aw *activityWorker) actions(am *activityModel, r *rand.Rand, n int, from, to time.Time, k *int, label string) {
	access := aw.access
	step := (to.Sub(from) / time.Duration(n)).Truncate(time.Second) // PostgreSQL keeps microseconds
	for i := 1; i <= n; i++ {
		at := from.Add(time.Duration(i) * step)
		if i == n {
			at = to
		}
		*k++
		aw.act(am, r, access, at, *k, label)
	}
}

// activityRounds is how many times a world's viewers come back: building a world costs
// about five rounds.
const activityRounds = 10

// activityHead is the head size of world w's service: heads of one to three items in three
// worlds of four (NewItems then shows 2×head items, the rest listed from the tail with
// activity), the default in the others.
func activityHead(w int) int { return []int{1, 2, 3, feed.DefaultConfig().HeadSize}[w%4] }

// activityReport gathers the oracle's failures by kind: the first few of each are spelled
// out, the rest counted.
type activityReport struct {
	mu       sync.Mutex
	failures tally
	cases    tally
	cover    tally
}

func (rep *activityReport) fail(t *testing.T, kind, format string, args ...any) {
	t.Helper()
	rep.mu.Lock()
	defer rep.mu.Unlock()
	rep.failures[kind]++
	if rep.failures[kind] <= 3 {
		t.Errorf("[%s] "+format, append([]any{kind}, args...)...)
	}
}

func (rep *activityReport) count(c tally, what string) {
	rep.mu.Lock()
	c[what]++
	rep.mu.Unlock()
}

// activityViewer is one viewer of a world and the page they have open.
type activityViewer struct {
	v      *tributary.User
	after  time.Time // the fencepost their page shows (when they have none: when it was read)
	fenced bool      // they have a fencepost
}

// world builds world w, opens every viewer's home feed, and checks activityRounds rounds of
// activity.
func (aw *activityWorker) world(w int) {
	t, ctx, store, rep := aw.t, aw.ctx, aw.store, aw.rep
	r := rand.New(rand.NewPCG(uint64(w), 0x8e9f84b))
	if _, err := store.Pool.Exec(ctx, `TRUNCATE users, anchors, feed_snapshot, snapshot_meta, fences, fenceposts RESTART IDENTITY CASCADE`); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	aw.now = base
	m := build(t, ctx, store, r, base)
	am := &activityModel{model: m, entries: map[actKey]time.Time{}, hidden: map[int64]map[int64]bool{},
		seen: map[int64]map[int64]bool{}, off: map[int64]bool{}}
	label := fmt.Sprintf("activity world %d", w)
	k := 0
	// Likes and comments in the hour before the first fencepost (the posts are older): they
	// never arrive.
	aw.access = aw.accessAll(am)
	aw.actions(am, r, 8+r.IntN(12), base.Add(-time.Hour), base.Add(-time.Minute), &k, label)
	// A newcomer who follows only a friend who has shared nothing yet: their home feed is
	// empty, so they have no fencepost, until the friend shares (the friend likes and
	// comments before that, as everyone does).
	var pair [2]int64
	for i, h := range []string{"newcomer", "friend"} {
		u, err := store.CreateUser(ctx, db.NewUser{Handle: h, DisplayName: h, CreatedAt: base})
		if err != nil {
			t.Fatal(err)
		}
		am.users = append(am.users, u)
		am.visibility[u.ID] = "public"
		pair[i] = u.ID
	}
	if _, err := store.Follow(ctx, pair[0], pair[1]); err != nil {
		t.Fatal(err)
	}
	am.follows[pair] = "active"
	aw.access = aw.accessAll(am)
	access := aw.access
	for _, u := range am.users {
		am.hidden[u.ID], am.seen[u.ID] = map[int64]bool{}, map[int64]bool{}
		if r.IntN(4) == 0 && u.ID != pair[0] {
			if err := store.SetHomeActivity(ctx, u.ID, false); err != nil {
				t.Fatal(err)
			}
			am.off[u.ID] = true
		}
		if r.IntN(3) == 0 {
			p := am.posts[r.IntN(len(am.posts))]
			if am.readable(u.ID, p) {
				if err := store.HideItem(ctx, access[u.ID], p.id, base.Add(-30*time.Minute)); err != nil {
					t.Fatal(err)
				}
				am.hidden[u.ID][p.anchor] = true
			}
		}
		if r.IntN(3) == 0 {
			a := am.posts[r.IntN(len(am.posts))].anchor
			if err := store.AddEvents(ctx, []db.Event{{ViewerID: u.ID, Type: db.EventCardSeen, AnchorID: a, DwellMs: 2000, At: base.Add(-time.Hour)}}); err != nil {
				t.Fatal(err)
			}
			am.seen[u.ID][a] = true
		}
	}
	if _, err := store.RefreshSnapshot(ctx, base); err != nil {
		t.Fatal(err)
	}
	cfg := feed.DefaultConfig()
	aw.head = activityHead(w)
	cfg.HeadSize = aw.head
	s := feed.New(store, cfg, func() time.Time { return aw.now })
	if err := s.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	q := tributary.FeedQuery{Limit: 5}

	// Every viewer's first page: their first fencepost, when anything is in their feed.
	var viewers []*activityViewer
	for i := range am.users {
		v := &am.users[i]
		tl, err := s.Timeline(ctx, v, q)
		if err != nil {
			t.Fatal(err)
		}
		after, err := feed.ParseFencepost(tl.Fencepost)
		if err != nil {
			t.Fatalf("%s viewer %d: first page's fencepost %q: %v", label, v.ID, tl.Fencepost, err)
		}
		_, fenced, err := store.LatestFencepost(ctx, v.ID, q.Template())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range tl.Items {
			if it.Activity != nil {
				rep.fail(t, "first page: activity", "%s viewer %d: first page's item %d came by activity %+v: the first fencepost ranks shares only",
					label, v.ID, it.ID, *it.Activity)
			}
		}
		viewers = append(viewers, &activityViewer{v: v, after: after, fenced: fenced})
	}

	from := base
	for round := 1; round <= activityRounds; round++ {
		to := from.Add(time.Duration(5+r.IntN(56)) * time.Minute)
		if round == 4 && w%3 == 0 {
			// A day's return: activity still arrives after exactly a day, not a second more.
			to = from.Add(24*time.Hour + time.Duration(r.IntN(2))*time.Second)
			rep.count(rep.cover, "a day's return")
		}
		aw.actions(am, r, 4+r.IntN(10), from, to, &k, fmt.Sprintf("%s round %d", label, round))
		if r.IntN(3) == 0 {
			change(t, ctx, store, r, m, to)
			s.AccessChanged()
			aw.access = aw.accessAll(am)
			rep.count(rep.cover, "access changed")
		}
		aw.now = to
		// The viewers come back at once (each to their own fence), as a server serves them.
		var wg sync.WaitGroup
		errs := make([]error, len(viewers))
		for i, av := range viewers {
			wg.Go(func() {
				errs[i] = aw.check(am, s, q, av, to, fmt.Sprintf("%s round %d viewer %d", label, round, av.v.ID))
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		from = to
	}
}

// check compares a viewer's "N new" count and new items at now with the model, and moves
// their page on to the fencepost NewItems shows. It returns errors of the database.
func (aw *activityWorker) check(am *activityModel, s *feed.Service, q tributary.FeedQuery, av *activityViewer, now time.Time, label string) error {
	t, ctx, rep, v := aw.t, aw.ctx, aw.rep, av.v
	after := av.after
	withActivity := av.fenced && !am.off[v.ID]
	path := "activity"
	if am.off[v.ID] {
		path = "activity off"
	}
	label = fmt.Sprintf("%s (%s, since %s, +%s, has a fencepost %v)", label, path, after.Format("Jan 2 15:04:05"), now.Sub(after), av.fenced)
	visible := func(raw map[int64]wantArrival) map[int64]wantArrival {
		out := map[int64]wantArrival{}
		for a, wa := range raw {
			if !am.hidden[v.ID][a] && !am.seen[v.ID][a] {
				out[a] = wa
			}
		}
		return out
	}
	// What arrived since the page: the "N new" count. A viewer with no fencepost yet gets
	// their first in NewItems: their whole feed, by shares.
	raw := am.arrivals(v.ID, after, now, withActivity)
	want := visible(raw)
	rawItems := raw
	if !av.fenced {
		rawItems = am.arrivals(v.ID, time.Time{}, now, false)
	}
	wantItems := visible(rawItems)
	for a, wa := range raw {
		if _, ok := want[a]; !ok && !wa.shared {
			rep.count(rep.cover, "activity on a hidden or seen item")
		}
	}
	// Decoys in the interval: activity that must bring nothing.
	for key, at := range am.entries {
		if !at.After(after) || at.After(now) {
			continue
		}
		p := am.post(key.post)
		if _, arrived := raw[p.anchor]; arrived {
			continue
		}
		switch {
		case am.followee(v.ID, key.user) && !am.readable(v.ID, p):
			rep.count(rep.cover, "followee activity on an unreadable post")
		case !am.followee(v.ID, key.user) && am.readable(v.ID, p):
			rep.count(rep.cover, "activity by a non-followee")
		case am.off[v.ID] && am.followee(v.ID, key.user):
			rep.count(rep.cover, "followee activity, home_activity off")
		case !av.fenced && am.followee(v.ID, key.user):
			rep.count(rep.cover, "followee activity, no fencepost yet")
		case am.followee(v.ID, key.user) && now.Sub(after) > 24*time.Hour:
			rep.count(rep.cover, "followee activity, more than a day")
		}
	}
	for _, wa := range want {
		switch {
		case wa.shared:
			rep.count(rep.cover, "arrived by a share")
		case wa.card == nil:
			rep.count(rep.cover, "arrived by activity, shared by someone followed")
		default:
			rep.count(rep.cover, "arrived by activity")
		}
		if !wa.shared && now.Sub(after) == 24*time.Hour {
			rep.count(rep.cover, "arrived by activity after exactly a day")
		}
	}
	describe := func(want map[int64]wantArrival) string {
		var parts []string
		for _, wa := range want {
			parts = append(parts, wa.String())
		}
		slices.Sort(parts)
		return "[" + strings.Join(parts, "; ") + "]"
	}
	rep.count(rep.cases, path)

	n, err := s.NewCount(ctx, v, q, after, 1000)
	if err != nil {
		return err
	}
	if n != len(want) {
		kind := "NewCount"
		if !av.fenced && !am.off[v.ID] && n == len(visible(am.arrivals(v.ID, after, now, true))) {
			kind = "NewCount: activity counted before the first fencepost"
		}
		rep.fail(t, kind, "%s: NewCount %d, want %d: %s (in the interval: %s)", label, n, len(want), describe(want), am.describeInterval(v.ID, after, now))
	}

	tl, err := s.NewItems(ctx, v, q, after)
	if err != nil {
		return err
	}
	// NewItems shows a page of 2×head items: all that arrived when they fit.
	limit := 2 * aw.head
	var got []int64
	for _, it := range tl.Items {
		if slices.Contains(got, it.ID) {
			rep.fail(t, "NewItems: an item twice", "%s: NewItems shows item %d twice", label, it.ID)
		}
		got = append(got, it.ID)
		wa, ok := wantItems[it.ID]
		if !ok {
			rep.fail(t, "NewItems: an item that did not arrive", "%s: NewItems shows item %d, which did not arrive (or is hidden or seen): want %s (in the interval: %s)",
				label, it.ID, describe(wantItems), am.describeInterval(v.ID, after, now))
			continue
		}
		a := it.Activity
		switch {
		case wa.card == nil && a != nil:
			rep.fail(t, "card: activity on an item a followee shared", "%s: item %d (%s) shows activity by %d (commented %v)", label, it.ID, wa, a.User.ID, a.Commented)
		case wa.card != nil && a == nil:
			rep.fail(t, "card: no activity", "%s: item %d (%s) shows no activity", label, it.ID, wa)
		case wa.card != nil && (a.User.ID != wa.card.user || a.Commented != wa.card.commented || !a.At.Equal(wa.at)):
			kind := "card: wrong activity"
			if !a.At.After(after) {
				kind = "card: activity of an older fencepost"
			}
			rep.fail(t, kind, "%s: item %d shows activity by %d (commented %v) at %s, want %s at %s", label, it.ID,
				a.User.ID, a.Commented, a.At.Format("Jan 2 15:04:05"), wa, wa.at.Format("Jan 2 15:04:05"))
		case wa.card != nil:
			rep.count(rep.cover, "activity shown on the card")
		}
	}
	if len(got) != min(len(wantItems), limit) {
		slices.Sort(got)
		rep.fail(t, "NewItems: items missing", "%s: NewItems shows %v (%d a page), want %s (in the interval: %s)", label, got, limit,
			describe(wantItems), am.describeInterval(v.ID, after, now))
	}
	// A fencepost is committed when anything arrived (hidden and seen items too).
	fp, err := feed.ParseFencepost(tl.Fencepost)
	if err != nil {
		return err
	}
	latest, fenced, err := aw.store.LatestFencepost(ctx, v.ID, q.Template())
	if err != nil {
		return err
	}
	committed := fenced && latest.At.Equal(now)
	if committed != (len(rawItems) > 0) || fenced && !fp.Equal(latest.At) {
		rep.fail(t, "fencepost", "%s: NewItems shows fencepost %s (committed %v, latest %s), want one committed %v (%d arrived)", label,
			fp.Format("Jan 2 15:04:05"), committed, latest.At.Format("Jan 2 15:04:05"), len(rawItems) > 0, len(rawItems))
	}
	av.after, av.fenced = fp, fenced
	return nil
}

func TestActivityOracle(t *testing.T) {
	worlds := 36 // about 3,000 cases, 35-45 s on two shared cores
	if testing.Short() {
		worlds = 6
	}
	start := time.Now()
	// Two workers (go test runs two parallel tests on two cores), each on a database of its
	// own, take the worlds in turn; in a round, a world's viewers are checked at once.
	const workers = 2
	rep := &activityReport{failures: tally{}, cases: tally{}, cover: tally{}}
	t.Run("worlds", func(t *testing.T) {
		for k := range workers {
			t.Run(fmt.Sprint(k), func(t *testing.T) {
				t.Parallel()
				aw := &activityWorker{t: t, ctx: context.Background(), store: dbtest.Store(t), rep: rep}
				for w := k; w < worlds; w += workers {
					aw.world(w)
				}
			})
		}
	})
	cases := rep.cases["activity"] + rep.cases["activity off"]
	t.Logf("%d (world, viewer, round) activity cases checked in %d worlds (%d with home_activity off), %d actions made, in %s",
		cases, worlds, rep.cases["activity off"], rep.cases["activity action"], time.Since(start).Round(time.Millisecond))
	t.Logf("exercised: %s", rep.cover)
	if len(rep.failures) > 0 {
		t.Errorf("failures by kind (the first 3 of each above): %s", rep.failures)
	}
	if testing.Short() {
		return
	}
	if cases < 2500 || rep.cases["activity off"] < 300 {
		t.Errorf("only %d activity cases checked (%d with home_activity off), want at least 2,500 (300)", cases, rep.cases["activity off"])
	}
	for _, what := range []string{"arrived by activity", "arrived by a share", "arrived by activity, shared by someone followed",
		"activity shown on the card", "activity on a hidden or seen item", "followee activity on an unreadable post",
		"activity by a non-followee", "followee activity, home_activity off", "followee activity, more than a day",
		"followee activity, no fencepost yet", "arrived by activity after exactly a day",
		"comment deleted, not the latest", "comments entry kept its place", "refused action", "access changed", "a day's return"} {
		if rep.cover[what] == 0 {
			t.Errorf("no case of %q: the check is vacuous", what)
		}
	}
}

// postOf is the id of handle's share of url in a hand-made world.
func (w *world) postOf(handle, url string) int64 {
	w.t.Helper()
	var id int64
	if err := w.store.Pool.QueryRow(w.ctx, `SELECT id FROM posts WHERE author_id = $1 AND url = $2`, w.users[handle].ID, url).Scan(&id); err != nil {
		w.t.Fatal(err)
	}
	return id
}

// accessOf is a user's access in a hand-made world.
func (w *world) accessOf(handle string) tributary.Viewer {
	w.t.Helper()
	a, err := w.store.ViewerAccess(w.ctx, w.users[handle].ID)
	if err != nil {
		w.t.Fatal(err)
	}
	return a
}

// The oracle's first kind of failure, made by hand: a reader whose home feed is empty has no
// fencepost, so nothing arrives for them by activity (their first fencepost ranks their feed
// by shares), yet the "N new" count counts their followee's like.
func TestActivityOracleNoFencepostYet(t *testing.T) {
	w := newWorld(t)
	w.user("ada", false, 0)
	w.user("bob", false, 0)
	w.user("cy", false, 0)
	w.follow("ada", "bob") // bob has shared nothing: ada's home feed is empty
	w.share("cy", "https://arxiv.org/abs/2402.00001", time.Hour, false)
	s := w.service(nil)
	q := tributary.FeedQuery{Limit: 5}
	ada := w.users["ada"]
	first, err := s.Timeline(w.ctx, &ada, q)
	if err != nil {
		t.Fatal(err)
	}
	after := w.now // the page's fencepost: when it was read, as there is none
	if first.Fencepost != "" {
		if after, err = feed.ParseFencepost(first.Fencepost); err != nil {
			t.Fatal(err)
		}
	}
	w.now = w.now.Add(time.Minute)
	if err := w.store.Like(w.ctx, w.accessOf("bob"), w.postOf("cy", "https://arxiv.org/abs/2402.00001"), w.now); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(time.Minute)
	n, err := s.NewCount(w.ctx, &ada, q, after, 100)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := s.NewItems(w.ctx, &ada, q, after)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Items) != 0 || len(tl.Items) != 0 {
		t.Fatalf("ada's feed: first page %d items, new items %d, want none", len(first.Items), len(tl.Items))
	}
	if n != 0 {
		t.Errorf("NewCount %d after bob's like, with no fencepost: NewItems shows nothing (the first fencepost ranks shares only), want 0", n)
	}
}

// The oracle's second kind of failure, made by hand: an item that arrived by activity in an
// older fencepost's tail and again in a new fencepost shows, in NewItems, the older
// fencepost's reason (listing the older tail on the same page overwrites it).
func TestActivityOracleOlderFencepostReason(t *testing.T) {
	w := newWorld(t)
	w.user("ada", false, 0)
	w.user("bob", false, 0)
	w.user("cy", false, 0)
	w.user("dee", false, 0)
	w.follow("ada", "bob", "dee")
	x := "https://example.com/x" // cy's: ada follows no one who shared it
	w.share("cy", x, 3*time.Hour, false)
	w.share("bob", "https://arxiv.org/abs/2402.00010", 2*time.Hour, false)
	s := w.service(func(c *feed.Config) { c.HeadSize = 2 })
	q := tributary.FeedQuery{Limit: 5}
	ada := w.users["ada"]
	if _, err := s.Timeline(w.ctx, &ada, q); err != nil { // the first fencepost
		t.Fatal(err)
	}
	f0 := w.now
	// Shares by bob and dee, and bob's like of cy's post: three arrivals for a head of two.
	w.now = w.now.Add(time.Minute)
	w.share("bob", "https://arxiv.org/abs/2402.00011", 0, false)
	w.now = w.now.Add(time.Minute)
	w.share("dee", "https://arxiv.org/abs/2402.00012", 0, false)
	w.now = w.now.Add(time.Minute)
	liked := w.now
	xPost := w.postOf("cy", x)
	if err := w.store.Like(w.ctx, w.accessOf("bob"), xPost, liked); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(2 * time.Minute)
	if _, err := s.NewItems(w.ctx, &ada, q, f0); err != nil {
		t.Fatal(err)
	}
	f1 := w.now
	fp, ok, err := w.store.LatestFencepost(w.ctx, ada.ID, q.Template())
	if err != nil {
		t.Fatal(err)
	}
	var xAnchor int64
	if err := w.store.Pool.QueryRow(w.ctx, `SELECT anchor_id FROM posts WHERE id = $1`, xPost).Scan(&xAnchor); err != nil {
		t.Fatal(err)
	}
	if !ok || !fp.At.Equal(f1) || slices.Contains(fp.Head, xAnchor) {
		t.Fatalf("setup: fencepost %+v (found %v), want one at %s with cy's item %d in its tail", fp, ok, f1, xAnchor)
	}
	// A quarter of an hour later (the tail listed above is no longer kept), bob comments on
	// cy's post: it arrives again, by the comment.
	w.now = w.now.Add(15 * time.Minute)
	commented := w.now
	if _, _, err := w.store.AddComment(w.ctx, w.accessOf("bob"), xPost, "Worth a read.", commented, tributary.DefaultBumpRule); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(time.Minute)
	tl, err := s.NewItems(w.ctx, &ada, q, f1)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Items) != 1 || tl.Items[0].ID != xAnchor || tl.Items[0].Activity == nil {
		t.Fatalf("new items %+v, want cy's item %d by bob's comment", tl.Items, xAnchor)
	}
	if a := tl.Items[0].Activity; a.User.ID != w.users["bob"].ID || !a.Commented || !a.At.Equal(commented) {
		t.Errorf("cy's item shows bob's activity commented=%v at %s (his like: %s), want his comment at %s", a.Commented,
			a.At.Format(time.TimeOnly), liked.Format(time.TimeOnly), commented.Format(time.TimeOnly))
	}
}
