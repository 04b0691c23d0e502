package feed_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/feed"
)

const h, d = time.Hour, 24 * time.Hour

// smallWorld: five people, a paper shared by several of them (one via a tweet linking it),
// repositories, blogs, over several weeks.
func smallWorld(t *testing.T) *world {
	w := newWorld(t)
	w.user("viewer", false, 0)
	w.user("ada", true, 250_000)
	w.user("bob", false, 12_000)
	w.user("cy", false, 0)
	w.user("dee", false, 500)
	w.follow("viewer", "ada", "bob", "cy", "dee")
	w.share("ada", "https://arxiv.org/abs/2401.00001", 2*h, false)
	w.share("bob", "https://arxiv.org/pdf/2401.00001v2", 5*h, false)
	w.share("cy", "https://x.com/cy/status/123", 3*h, true, "https://arxiv.org/abs/2401.00001")
	w.share("dee", "https://github.com/acme/tool/tree/main/src", 8*d, false)
	w.share("ada", "https://github.com/acme/tool", 9*d, true)
	w.share("bob", "https://blog.example.com/post-1", 1*d, false)
	w.share("cy", "https://blog.example.com/post-2", 15*d, true)
	w.share("dee", "https://huggingface.co/acme/model-7b/tree/main", 20*d, false)
	w.share("ada", "https://openreview.net/forum?id=abc123", 40*d, false)
	w.share("bob", "https://doi.org/10.1000/XYZ.1", 3*d, false)
	w.share("viewer", "https://blog.example.com/mine", 30*time.Minute, false)
	for i := range 6 {
		w.share("dee", fmt.Sprintf("https://dee.example.com/note-%d", i), time.Duration(i+2)*d, false)
	}
	return w
}

func TestSnapshotAndLivePathsAgree(t *testing.T) {
	w := smallWorld(t)
	w.refresh()
	snap := w.timeline(w.service(nil), "viewer", tributary.FeedQuery{})
	live := w.timeline(w.service(func(c *feed.Config) { c.SnapshotMaxAge = 0 }), "viewer", tributary.FeedQuery{})
	if snap.Path != tributary.PathSnapshot || live.Path != tributary.PathLive {
		t.Fatalf("paths: %q and %q, want snapshot and live", snap.Path, live.Path)
	}
	if !slices.Equal(urls(snap), urls(live)) {
		t.Fatalf("snapshot and live differ:\nsnapshot %v\nlive     %v", urls(snap), urls(live))
	}
	for i := range snap.Items {
		a, b := snap.Items[i], live.Items[i]
		if math.Abs(a.Score-b.Score) > 1e-9 || a.ScoreParts != b.ScoreParts || a.ID != b.ID || a.URL != b.URL {
			t.Errorf("item %d differs:\nsnapshot %+v\nlive     %+v", i, a, b)
		}
	}
	// The paper, its pdf and the tweet linking it are one item with three sharers.
	paper := snap.Items[slices.Index(urls(snap), "https://arxiv.org/abs/2401.00001")]
	if len(paper.Sharers) != 3 || paper.ShareCount != 3 {
		t.Fatalf("paper item has %d sharers (count %d), want 3", len(paper.Sharers), paper.ShareCount)
	}
	if paper.URL != "https://x.com/cy/status/123" {
		t.Errorf("representative %q, want the tweet with a preview image", paper.URL)
	}
	if got, want := paper.ScoreParts.FolloweeShare, 3.0; got != want {
		t.Errorf("followee share term %v, want %v", got, want)
	}
}

func TestLivePathWindowMissesOlderItems(t *testing.T) {
	w := smallWorld(t)
	w.refresh()
	// A live window of 4 shares ranks only the most recent ones; the snapshot scores all 180
	// days. Older items still follow, in arrival order, in the fencepost's tail.
	live := w.timeline(w.service(func(c *feed.Config) { c.SnapshotMaxAge = 0; c.LiveCap = 4 }), "viewer", tributary.FeedQuery{})
	snap := w.timeline(w.service(nil), "viewer", tributary.FeedQuery{})
	const old = "https://openreview.net/forum?id=abc123" // 40 days old, scientific: ranks high
	if got := slices.Index(urls(live), old); got != len(live.Items)-1 {
		t.Fatalf("live path: the oldest share is at %d, want last (the chronological tail): %v", got, urls(live))
	}
	if got := slices.Index(urls(snap), old); got < 0 || got == len(snap.Items)-1 {
		t.Fatalf("snapshot path: the oldest scientific share is at %d, want ranked above the end: %v", got, urls(snap))
	}
}

func TestFreshSelfBoost(t *testing.T) {
	w := smallWorld(t)
	w.refresh()
	tl := w.timeline(w.service(nil), "viewer", tributary.FeedQuery{})
	if tl.Items[0].AnchorURL != "https://blog.example.com/mine" || tl.Items[0].ScoreParts.FreshSelf != 50 {
		t.Fatalf("the viewer's 30-minute-old share is not on top with +50: %v", urls(tl))
	}
	w.now = w.now.Add(31 * time.Minute) // now 61 minutes old
	tl = w.timeline(w.service(nil), "viewer", tributary.FeedQuery{})
	for _, it := range tl.Items {
		if it.ScoreParts.FreshSelf != 0 {
			t.Fatalf("fresh-self boost still on %s after an hour", it.AnchorURL)
		}
	}
}

func TestNewShareReachesSnapshotPathAtOnce(t *testing.T) {
	w := smallWorld(t)
	w.refresh()
	w.now = w.now.Add(10 * time.Minute)
	w.share("bob", "https://arxiv.org/abs/2402.99999", 0, false)
	tl := w.timeline(w.service(nil), "viewer", tributary.FeedQuery{})
	if tl.Path != tributary.PathSnapshot || !slices.Contains(urls(tl), "https://arxiv.org/abs/2402.99999") {
		t.Fatalf("a share after the refresh is missing from the snapshot path (%s): %v", tl.Path, urls(tl))
	}
}

func TestStaleOrMissingSnapshotUsesLivePath(t *testing.T) {
	w := smallWorld(t)
	if p := w.timeline(w.service(nil), "viewer", tributary.FeedQuery{}).Path; p != tributary.PathLive {
		t.Fatalf("no snapshot yet: path %q, want live", p)
	}
	w.refresh()
	w.now = w.now.Add(3*h + time.Minute)
	if p := w.timeline(w.service(nil), "viewer", tributary.FeedQuery{}).Path; p != tributary.PathLive {
		t.Fatalf("snapshot 3h01m old: path %q, want live", p)
	}
	w.refresh()
	if p := w.timeline(w.service(nil), "viewer", tributary.FeedQuery{Source: tributary.KindArxiv}).Path; p != tributary.PathLive {
		t.Fatalf("category filter: path %q, want live", p)
	}
}

func TestFilters(t *testing.T) {
	w := smallWorld(t)
	w.refresh()
	s := w.service(nil)
	for _, it := range w.timeline(s, "viewer", tributary.FeedQuery{Source: tributary.KindGitHub}).Items {
		if it.Kind != tributary.KindGitHub {
			t.Errorf("source=github returned a %s item %s", it.Kind, it.AnchorURL)
		}
	}
	got := w.timeline(s, "viewer", tributary.FeedQuery{Since: t0.Add(-2 * d)})
	for _, it := range got.Items {
		if it.Date.Before(t0.Add(-2 * d)) {
			t.Errorf("since filter returned %s dated %s", it.AnchorURL, it.Date)
		}
	}
	if len(got.Items) == 0 {
		t.Fatal("since filter returned nothing")
	}
}

func TestAnonymousFrontPageShowsVIPShares(t *testing.T) {
	w := smallWorld(t)
	w.refresh()
	tl := w.timeline(w.service(nil), "", tributary.FeedQuery{})
	if len(tl.Items) != 3 {
		t.Fatalf("anonymous front page: %v, want ada's three anchors", urls(tl))
	}
	for _, it := range tl.Items {
		if !slices.ContainsFunc(it.Sharers, func(s tributary.Sharer) bool { return s.Handle == "ada" }) {
			t.Errorf("%s on the front page was not shared by the VIP", it.AnchorURL)
		}
	}
	live := w.timeline(w.service(func(c *feed.Config) { c.SnapshotMaxAge = 0 }), "", tributary.FeedQuery{})
	if !slices.Equal(urls(tl), urls(live)) {
		t.Fatalf("anonymous snapshot %v and live %v differ", urls(tl), urls(live))
	}
}

func TestHideSeen(t *testing.T) {
	w := smallWorld(t)
	w.refresh()
	s := w.service(nil)
	all := w.timeline(s, "viewer", tributary.FeedQuery{})
	id := func(url string) int64 { return all.Items[slices.Index(urls(all), url)].ID }
	viewer := w.users["viewer"].ID
	seen := func(url string, dwell int32, ago time.Duration) {
		if err := w.store.AddEvents(w.ctx, []db.Event{{ViewerID: viewer, Type: 7, AnchorID: id(url), DwellMs: dwell, At: w.now.Add(-ago)}}); err != nil {
			t.Fatal(err)
		}
	}
	seen("https://blog.example.com/post-1", 2000, 20*time.Minute)   // seen
	seen("https://doi.org/10.1000/xyz.1", 800, 30*time.Minute)      // 800 + 800 sums to seen
	seen("https://doi.org/10.1000/xyz.1", 800, 40*time.Minute)      //
	seen("https://github.com/acme/tool", 5000, 5*time.Minute)       // within the 10-minute grace: not yet
	seen("https://huggingface.co/acme/model-7b", 5000, 40*d)        // beyond the 30-day horizon
	seen("https://openreview.net/forum?id=abc123", 1499, time.Hour) // under the threshold

	got := urls(w.timeline(s, "viewer", tributary.FeedQuery{}))
	for _, u := range []string{"https://blog.example.com/post-1", "https://doi.org/10.1000/xyz.1"} {
		if slices.Contains(got, u) {
			t.Errorf("seen item %s is still shown", u)
		}
	}
	for _, u := range []string{"https://github.com/acme/tool", "https://huggingface.co/acme/model-7b", "https://openreview.net/forum?id=abc123"} {
		if !slices.Contains(got, u) {
			t.Errorf("unseen item %s is hidden", u)
		}
	}
	with := w.timeline(s, "viewer", tributary.FeedQuery{IncludeSeen: true})
	if len(with.Items) != len(all.Items) {
		t.Fatalf("include_seen shows %d items, want all %d", len(with.Items), len(all.Items))
	}
	for _, it := range with.Items {
		want := it.AnchorURL == "https://blog.example.com/post-1" || it.AnchorURL == "https://doi.org/10.1000/xyz.1"
		if it.AlreadySeen != want {
			t.Errorf("%s already_seen=%v, want %v", it.AnchorURL, it.AlreadySeen, want)
		}
	}
	// Once the grace passes, the 5-minute-old dwell counts too.
	w.now = w.now.Add(6 * time.Minute)
	if slices.Contains(urls(w.timeline(s, "viewer", tributary.FeedQuery{})), "https://github.com/acme/tool") {
		t.Error("item seen 11 minutes ago is still shown")
	}
	// The live path hides the same items.
	live := urls(w.timeline(w.service(func(c *feed.Config) { c.SnapshotMaxAge = 0 }), "viewer", tributary.FeedQuery{}))
	if slices.Contains(live, "https://blog.example.com/post-1") {
		t.Error("live path shows a seen item")
	}
}

func TestScorePartsExplainScore(t *testing.T) {
	w := smallWorld(t)
	w.refresh()
	for _, it := range w.timeline(w.service(nil), "viewer", tributary.FeedQuery{IncludeSeen: true}).Items {
		p := it.ScoreParts
		sum := p.Sci + p.Recency + p.FolloweeShare + p.TotalShare + p.VIP + p.Notability + p.RichPost + p.FreshSelf
		if math.Abs(sum-it.Score) > 1e-9 || math.Abs(p.Total-it.Score) > 1e-9 {
			t.Errorf("%s: parts sum to %v, score %v", it.AnchorURL, sum, it.Score)
		}
		if strings.Contains(it.AnchorURL, "arxiv") && p.Sci != 18 {
			t.Errorf("%s: sci term %v, want 18", it.AnchorURL, p.Sci)
		}
	}
}

func TestLargeFollowedSetAgreesWithLivePath(t *testing.T) {
	// From db.LargeFollowedSet followees on, the snapshot path reads rows in score order and
	// filters in Go; it must rank exactly as the live path does when both see everything.
	w := newWorld(t)
	w.user("viewer", false, 0)
	var handles []string
	for i := range db.LargeFollowedSet + 20 {
		h := fmt.Sprintf("u%03d", i)
		w.user(h, i%17 == 0, int64(i*1000))
		handles = append(handles, h)
	}
	w.follow("viewer", handles[:db.LargeFollowedSet+10]...) // ten people not followed
	for i, h := range handles {
		url := fmt.Sprintf("https://arxiv.org/abs/2401.%05d", i%37) // popular papers, shared by many
		if i%3 == 0 {
			url = fmt.Sprintf("https://blog.example.com/%s", h)
		}
		w.share(h, url, time.Duration(i)*5*time.Hour, i%4 == 0)
	}
	w.refresh()
	// With a head of 50 the live path reads every candidate in full; with a head of 5 it
	// ranks them on their score inputs and reads only the best (db.Store.LiveFeed).
	for _, head := range []int{50, 5} {
		snap := w.timeline(w.service(func(c *feed.Config) { c.HeadSize = head }), "viewer", tributary.FeedQuery{Limit: 100})
		live := w.timeline(w.service(func(c *feed.Config) { c.HeadSize, c.SnapshotMaxAge = head, 0 }), "viewer",
			tributary.FeedQuery{Limit: 100})
		if snap.Path != tributary.PathSnapshot || live.Path != tributary.PathLive || len(snap.Items) < 40 {
			t.Fatalf("head %d: snapshot path %q with %d items, live path %q", head, snap.Path, len(snap.Items), live.Path)
		}
		if !slices.Equal(urls(snap), urls(live)) {
			t.Fatalf("head %d: snapshot and live differ:\nsnapshot %v\nlive     %v", head, urls(snap), urls(live))
		}
	}
}

func TestTailReadAheadScrollsEverythingOnce(t *testing.T) {
	// Tails are listed 200 items at a time and kept (feed/source.go): scrolling 450 items
	// crosses batches, and a post deleted after its batch was read never shows.
	w := newWorld(t)
	w.user("viewer", false, 0)
	w.user("a", false, 0)
	w.user("b", false, 0)
	w.follow("viewer", "a", "b")
	const n = 450
	var doomed int64
	for i := range n {
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: w.users[[]string{"a", "b"}[i%2]].ID,
			URL: fmt.Sprintf("https://blog.example.com/post-%03d", i), Title: "post", CreatedAt: w.now.Add(-time.Duration(i) * 5 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		id, err := w.store.CreatePost(w.ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if i == 150 {
			doomed = id
		}
	}
	w.refresh()
	s := w.service(func(c *feed.Config) { c.HeadSize = 10 })
	viewer := w.users["viewer"]
	page := w.timeline(s, "viewer", tributary.FeedQuery{})
	seen := map[string]int{}
	for pages := 1; ; pages++ {
		for _, it := range page.Items {
			seen[it.AnchorURL]++
		}
		if pages == 3 {
			if err := w.store.DeletePost(w.ctx, w.users["a"].ID, doomed, w.now); err != nil {
				t.Fatal(err)
			}
		}
		if page.NextCursor == "" {
			break
		}
		var err error
		if page, err = s.Timeline(w.ctx, &viewer, tributary.FeedQuery{Limit: 20, Cursor: page.NextCursor}); err != nil {
			t.Fatal(err)
		}
	}
	if seen["https://blog.example.com/post-150"] != 0 {
		t.Error("a post deleted while its tail batch was kept was shown")
	}
	if len(seen) != n-1 {
		t.Errorf("scrolled %d distinct items, want %d", len(seen), n-1)
	}
	for url, k := range seen {
		if k != 1 {
			t.Errorf("%s shown %d times", url, k)
		}
	}
}

func TestFollowedSetKeptUntilFollowsChange(t *testing.T) {
	// The service keeps each viewer's followed set by version (users.follows_version): a
	// follow or an unfollow moves the version, so the next page reads the set again.
	w := newWorld(t)
	w.user("viewer", false, 0)
	w.user("a", false, 0)
	w.user("b", false, 0)
	w.follow("viewer", "a")
	w.share("a", "https://blog.example.com/a", time.Hour, false)
	w.share("b", "https://blog.example.com/b", time.Hour, false)
	w.refresh()
	s := w.service(nil)
	want := func(step string, urls0 ...string) {
		t.Helper()
		got := urls(w.timeline(s, "viewer", tributary.FeedQuery{}))
		slices.Sort(got)
		if !slices.Equal(got, urls0) {
			t.Fatalf("%s: feed %v, want %v", step, got, urls0)
		}
	}
	want("following a", "https://blog.example.com/a")
	w.follow("viewer", "b")
	want("following a and b", "https://blog.example.com/a", "https://blog.example.com/b")
	if err := w.store.Unfollow(w.ctx, w.users["viewer"].ID, w.users["a"].ID); err != nil {
		t.Fatal(err)
	}
	want("following b", "https://blog.example.com/b")
}
