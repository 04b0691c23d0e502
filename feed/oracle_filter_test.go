package feed_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
	"tributary/feed"
)

// The access oracle over the filter feeds (liked by, commented on by, #tag, mentions, my
// discussions): random small worlds (oracle_filter_model_test.go) × every viewer and
// anonymous × every user's likes and comments, every tag, the viewer's mentions and
// discussions, each scrolled to its end a few posts a page, must list exactly the posts the
// model says, in its order. Then things are taken away (deletions, access revoked, likes
// taken back, comments deleted or edited): pages of fenceposts committed before drop what
// the viewer may no longer read, and the feeds read afresh are the model's again.

// walkFilter scrolls a whole filter feed by cursor from cursor ("": the first page); first
// is the cursor after the first page.
func walkFilter(t *testing.T, ctx context.Context, s *feed.Service, v *tributary.User, access tributary.Viewer, key, cursor string, limit int) (posts []tributary.Post, pageOne []int64, first string) {
	t.Helper()
	for page := range 60 {
		p, err := s.ChronoAs(ctx, v, access, feed.Chrono{Filter: key}, cursor, limit)
		if err != nil {
			t.Fatal(err)
		}
		if p.Refreshed {
			t.Errorf("filter feed %s: the fence state was lost mid-scroll", key)
		}
		if len(p.Posts) > limit {
			t.Errorf("filter feed %s: a page of %d posts, asked for %d", key, len(p.Posts), limit)
		}
		posts = append(posts, p.Posts...)
		if page == 0 {
			first = p.NextCursor
			for _, q := range p.Posts {
				pageOne = append(pageOne, q.ID)
			}
		}
		if cursor = p.NextCursor; cursor == "" {
			return posts, pageOne, first
		}
	}
	t.Fatalf("filter feed %s: the walk does not end", key)
	return nil, nil, ""
}

// filterCommitted is a filter feed's first page read before the changes, and where it ends.
type filterCommitted struct {
	viewer  int
	f       filterFeed
	cursor  string
	limit   int
	pageOne []int64
	members map[int64]time.Time // what the feed held then
	shown   []int64             // what the viewer read of it then
}

func TestFilterOracle(t *testing.T) {
	// 85 worlds read 25,936 filter feeds afresh (each world twice every feed of every viewer),
	// above the 25,000 asked for below.
	worlds := 85
	if testing.Short() {
		worlds = 10
	}
	// Two workers, each on a database of its own, take the worlds in turn: a world's reads
	// mostly wait on PostgreSQL.
	const workers = 2
	var mu sync.Mutex
	cases, left := tally{}, tally{}
	kept := 0
	t.Run("worlds", func(t *testing.T) {
		for k := range workers {
			t.Run(fmt.Sprint(k), func(t *testing.T) {
				t.Parallel()
				store := dbtest.Store(t)
				for w := k; w < worlds; w += workers {
					c, l, k := filterWorld(t, store, w)
					mu.Lock()
					kept += k
					for path, n := range c {
						cases[path] += n
					}
					for why, n := range l {
						left[why] += n
					}
					mu.Unlock()
				}
			})
		}
	})
	filterCases := 0
	for _, path := range []string{"search in posts", "search in comments", "search from", "committed search",
		"search liked-by", "search commented-by", "search tag"} {
		if cases[path] == 0 {
			t.Errorf("no %s checked", path)
		}
	}
	for _, path := range []string{"liked-by", "commented-by", "tag", "mentions", "discussions"} {
		if cases[path] == 0 {
			t.Errorf("no %s feed checked", path)
		}
		filterCases += cases[path]
	}
	t.Logf("%d (world, viewer, filter feed) cases checked, %d read afresh: %s", cases.total(), filterCases, cases)
	t.Logf("posts gone from a feed after the changes: %s", left)
	t.Logf("%d filter feed entries kept a place above their computed arrival (a comment deleted or edited, a like taken back)", kept)
	if testing.Short() || t.Failed() {
		return
	}
	if filterCases < 25000 {
		t.Errorf("only %d filter feed cases read afresh, want at least 25,000", filterCases)
	}
	for _, why := range []string{"deleted", "no longer readable", "unliked, left liked-by", "unliked, left discussions", "unliked, kept in discussions"} {
		if left[why] == 0 {
			t.Errorf("no post left a feed after the changes because %s: the check is vacuous", why)
		}
	}
	if kept == 0 {
		t.Errorf("no filter feed entry kept a place above its computed arrival: places that never move down are not checked")
	}
}

// filterWorld builds world w in store and checks every filter feed of every viewer of it,
// before and after the changes; it returns the cases checked and the posts that left a feed
// after the changes, by why, and how many entries ended above their computed arrival (they
// kept their place when it would have moved down).
func filterWorld(t *testing.T, store *db.Store, w int) (cases, left tally, kept int) {
	ctx := context.Background()
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	cases, left = tally{}, tally{}
	r := rand.New(rand.NewPCG(uint64(w), 3003))
	if _, err := store.Pool.Exec(ctx, `TRUNCATE users, anchors, feed_snapshot, snapshot_meta, fences, fenceposts, filter_posts RESTART IDENTITY CASCADE`); err != nil {
		t.Fatal(err)
	}
	world := fmt.Sprintf("filter world %d", w)
	fm := buildFilterWorld(t, ctx, store, r, now)
	fm.filterTalk(t, ctx, store, r, now, world)
	// Heads of one to three posts in three worlds of four (the rest of a fencepost is
	// its tail, listed from filter_posts on each page), the default in the others.
	cfg := feed.DefaultConfig()
	cfg.HeadSize = []int{1, 2, 3, cfg.HeadSize}[w%4]
	s := feed.New(store, cfg, clock)

	viewers := []*tributary.User{nil}
	for i := range fm.users {
		viewers = append(viewers, &fm.users[i])
	}
	vid := func(v *tributary.User) int64 {
		if v == nil {
			return 0
		}
		return v.ID
	}
	accessOf := func(v *tributary.User) tributary.Viewer {
		a, err := store.ViewerAccess(ctx, vid(v))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	// check reads a feed afresh and compares it with the model, post by post in order,
	// with the conversation each post shows.
	check := func(v *tributary.User, access tributary.Viewer, f filterFeed, limit int) ([]filterArrival, []int64, string) {
		t.Helper()
		id := vid(v)
		want := fm.want(id, f)
		posts, pageOne, first := walkFilter(t, ctx, s, v, access, f.key, "", limit)
		cases[f.path]++
		got := []int64{}
		for _, p := range posts {
			got = append(got, p.ID)
		}
		if !slices.Equal(got, arrivedIDs(want)) {
			t.Errorf("%s viewer %d %s (%s, %d a page): posts %v, want %s (post@arrival; %s)", world, id, f.path, f.key, limit,
				got, describe(want, now), fm.describeTalk(func(modelPost) bool { return true }))
			return want, pageOne, first
		}
		for _, p := range posts {
			if d := fm.talkDiffers(id, p.ID, p.Talk); d != "" {
				t.Errorf("%s viewer %d %s (%s): post %d %s (%s)", world, id, f.path, f.key, p.ID, d, fm.describeTalk(onPost(p.ID)))
			}
		}
		return want, pageOne, first
	}

	// Every feed of every viewer read afresh; the first page of each that has more is
	// kept, its fencepost committed, to be scrolled on after the changes.
	before := map[[2]string][]filterArrival{}
	var committed []filterCommitted
	for vi, v := range viewers {
		access := accessOf(v)
		limit := 2 + (vi+w)%3
		for _, f := range fm.filterFeeds(vid(v)) {
			want, pageOne, first := check(v, access, f, limit)
			before[[2]string{fmt.Sprint(vid(v)), f.key}] = want
			if first != "" {
				committed = append(committed, filterCommitted{viewer: vi, f: f, cursor: first, limit: limit, pageOne: pageOne,
					members: fm.members(f), shown: arrivedIDs(want)})
			}
		}
	}
	before0 := make([]tributary.Viewer, len(viewers))
	for vi, v := range viewers {
		before0[vi] = accessOf(v)
	}
	fm.checkSearches(t, ctx, s, viewers, before0, world, cases)
	searched := fm.commitSearches(t, ctx, s, viewers, before0)
	if t.Failed() {
		t.Fatalf("%s failed before the changes", world)
	}

	likesBefore := maps.Clone(fm.likes)
	fm.filterChanges(t, ctx, store, r, now, world)
	accesses := make([]tributary.Viewer, len(viewers))
	for vi, v := range viewers {
		accesses[vi] = accessOf(v)
	}

	fm.checkCommittedSearches(t, ctx, s, viewers, accesses, searched, world, cases)

	// Scrolling on in a fencepost committed before: a post is shown at most once in it
	// (DESIGN.md, fenceposts, 1), never one the viewer may no longer read (deleted or not
	// readable), never one the feed did not hold; one the viewer could read then and can now,
	// that the feed still holds and that has not arrived again since, is still shown. One the
	// feed no longer holds (a like taken back) may still be shown from the fencepost's head:
	// committed fenceposts do not change but for access (DESIGN.md, fenceposts, 2).
	for _, c := range committed {
		v := viewers[c.viewer]
		id := vid(v)
		posts, _, _ := walkFilter(t, ctx, s, v, accesses[c.viewer], c.f.key, c.cursor, c.limit)
		cases["committed "+c.f.path]++
		what := fmt.Sprintf("%s viewer %d committed %s (%s)", world, id, c.f.path, c.f.key)
		held := fm.members(c.f)
		shown := map[int64]bool{}
		for _, p := range posts {
			_, then := c.members[p.ID]
			_, still := held[p.ID]
			switch {
			case shown[p.ID] || slices.Contains(c.pageOne, p.ID):
				t.Errorf("%s: post %d shown twice (first page %v); arrived at -%s before, -%s now", what, p.ID, c.pageOne, now.Sub(c.members[p.ID]), now.Sub(held[p.ID]))
			case !fm.readable(id, fm.post(p.ID)):
				t.Errorf("%s: post %d shown, which the viewer may no longer read (deleted %v)", what, p.ID, fm.post(p.ID).deleted)
			case !fm.shown(id, c.f, p.ID):
				t.Errorf("%s: post %d shown, there by the activity of someone in a ban with the viewer", what, p.ID)
			case !then && !still:
				t.Errorf("%s: post %d shown, which the feed never held", what, p.ID)
			}
			shown[p.ID] = true
		}
		for pid, at := range held {
			was, ok := c.members[pid]
			if ok && !at.After(was) && slices.Contains(c.shown, pid) && fm.readable(id, fm.post(pid)) && fm.shown(id, c.f, pid) &&
				!slices.Contains(c.pageOne, pid) && !shown[pid] {
				t.Errorf("%s: post %d not shown, which the feed still holds", what, pid)
			}
		}
	}

	// Every feed read afresh is the model's again, and every search (on a new service: the
	// tails a search read ahead are of fenceposts at this same clock's time).
	if _, err := store.Pool.Exec(ctx, `TRUNCATE fences, fenceposts`); err != nil {
		t.Fatal(err)
	}
	s = feed.New(store, cfg, clock)
	fm.checkSearches(t, ctx, s, viewers, accesses, world, cases)
	for vi, v := range viewers {
		id := vid(v)
		limit := 2 + (vi+w+1)%3
		for _, f := range fm.filterFeeds(id) {
			want, _, _ := check(v, accesses[vi], f, limit)
			after := arrivedIDs(want)
			for _, a := range before[[2]string{fmt.Sprint(id), f.key}] {
				p := fm.post(a.id)
				_, liked := likesBefore[[2]int64{p.id, f.user}]
				_, likes := fm.likes[[2]int64{p.id, f.user}]
				unliked := (f.kind == 'l' || f.kind == 'd') && liked && !likes
				switch {
				case slices.Contains(after, a.id):
					if unliked {
						left["unliked, kept in discussions"]++
					}
				case p.deleted:
					left["deleted"]++
				case !fm.readable(id, p):
					left["no longer readable"]++
				case unliked:
					left["unliked, left "+f.path]++
				default:
					left["left "+f.path]++
				}
			}
		}
	}
	if t.Failed() {
		t.Fatalf("%s failed", world)
	}
	for feed, posts := range fm.entries {
		for post, at := range posts {
			if at.After(fm.due(post)[feed]) {
				kept++
			}
		}
	}
	return cases, left, kept
}

// The filter oracle's spellings of tags and mentions (filterTagSpellings, filterText) are
// read by the app as the model expects: each spelling names its tag, the decoys name nothing.
func TestFilterOracleSpellings(t *testing.T) {
	for tag, spellings := range filterTagSpellings {
		for _, s := range spellings {
			if got := tributary.Tags("a " + s + " b"); !slices.Equal(got, []string{tag}) {
				t.Errorf("%q tags %v, want [%s]", s, got, tag)
			}
		}
	}
	for _, s := range []string{"x#go", "mail x@u1.example", "cc @nobody"} {
		if tags, ms := tributary.Tags(s), tributary.Mentions(s); len(tags) != 0 || len(ms) != 0 && ms[0] != "nobody" {
			t.Errorf("%q tags %v and mentions %v, want none", s, tags, ms)
		}
	}
	if got := tributary.Mentions("hi @U3 and @u3"); !slices.Equal(got, []string{"u3"}) {
		t.Errorf("mentions %v, want [u3]", got)
	}
}

// A post whose computed arrival in a filter feed moves back (the comment that tagged it
// deleted) while a reader scrolls the feed keeps its place there (a filter feed entry's at
// never decreases: refilter_posts), so it is shown once in the fencepost they scroll
// (DESIGN.md, fenceposts, 1) and not again in the pages below: the oracle's smallest case of
// it, on #go with heads of one post. Were d moved back to its own text's time (30 minutes
// ago, below where the reader is), the rest of the scroll would list it again.
func TestFilterFeedPostMovedBackShownOnce(t *testing.T) {
	w := newWorld(t)
	ada, bob := w.user("ada", false, 0), w.user("bob", false, 0)
	post := func(url, body string, ago time.Duration) int64 {
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: ada.ID, URL: url, Body: body, CreatedAt: w.now.Add(-ago)})
		if err != nil {
			t.Fatal(err)
		}
		id, err := w.store.Share(w.ctx, p, db.Destination{OwnFeed: true})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	a := post("https://example.org/a", "first #go", 3*time.Hour)
	c := post("https://example.org/c", "no tag", time.Hour)
	d := post("https://example.org/d", "later #go", 30*time.Minute)
	access, err := w.store.ViewerAccess(w.ctx, bob.ID)
	if err != nil {
		t.Fatal(err)
	}
	comment := func(post int64, ago time.Duration) tributary.Comment {
		cm, _, err := w.store.AddComment(w.ctx, access, post, "also #go", w.now.Add(-ago), tributary.DefaultBumpRule)
		if err != nil {
			t.Fatal(err)
		}
		return cm
	}
	comment(c, 10*time.Minute)
	moved := comment(d, 20*time.Minute)
	// #go: c (its comment 10 minutes ago), d (its comment 20 minutes ago; made 30), a.
	cfg := feed.DefaultConfig()
	cfg.HeadSize = 1
	s := feed.New(w.store, cfg, w.clock)
	key := db.TagFeed("go")
	first, err := s.ChronoAs(w.ctx, nil, tributary.Anonymous, feed.Chrono{Filter: key}, "", 2)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, p := range first.Posts {
		got = append(got, p.ID)
	}
	if !slices.Equal(got, []int64{c, d}) || first.NextCursor == "" {
		t.Fatalf("first page %v (next %q), want [%d %d] and more", got, first.NextCursor, c, d)
	}
	// d's tag now comes from its own text only (made 30 minutes ago), but d keeps its place
	// in #go (20 minutes ago), above where the reader is.
	if _, err := w.store.DeleteComment(w.ctx, access, moved.ID); err != nil {
		t.Fatal(err)
	}
	rest, _, _ := walkFilter(t, w.ctx, s, nil, tributary.Anonymous, key, first.NextCursor, 2)
	for _, p := range rest {
		got = append(got, p.ID)
	}
	if !slices.Equal(got, []int64{c, d, a}) {
		t.Errorf("#go scrolled over one fencepost: %v, want [%d %d %d] (each post once)", got, c, d, a)
	}
}
