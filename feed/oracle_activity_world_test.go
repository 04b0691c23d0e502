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
	"tributary/feed"
)

// The activity oracle's worlds: each worker's database and clock, the actions it takes,
// and the check of a viewer's "N new" and new items against the model.

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
	if _, err := store.Pool.Exec(ctx, `TRUNCATE users, anchors, feed_snapshot, snapshot_meta, fences, fenceposts, filter_posts RESTART IDENTITY CASCADE`); err != nil {
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
			if p := am.post(wa.by.post); len(p.groups) > 0 && !p.own && !am.inMemberGroup(v.ID, p) {
				rep.count(rep.cover, "arrived by activity on a post only in a group the viewer is not in")
			}
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
