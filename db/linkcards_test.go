package db_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// fetchFunc is a CardFetcher from a function: the real fetcher lives in linkcard and is
// tested there against its fixtures; these tests are about what the store does with a card.
type fetchFunc func(ctx context.Context, url string) (tributary.LinkCard, error)

func (f fetchFunc) FetchCard(ctx context.Context, url string) (tributary.LinkCard, error) {
	return f(ctx, url)
}

// shareOf stores a share by a new user and returns the post and its item.
func shareOf(t *testing.T, s *db.Store, handle, url, title string, at time.Time) (post, anchor int64) {
	t.Helper()
	ctx := context.Background()
	u, err := s.CreateUser(ctx, db.NewUser{Handle: handle, DisplayName: handle, CreatedAt: at.Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: u.ID, URL: url, Title: title, CreatedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	if post, err = s.CreatePost(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := s.Pool.QueryRow(ctx, "SELECT anchor_id FROM posts WHERE id = $1", post).Scan(&anchor); err != nil {
		t.Fatal(err)
	}
	return post, anchor
}

// An item's first share makes its card due; the dispatcher hands it to one job however often
// it runs (across instances: one store stands for each), and a saved card is not due again.
func TestLinkCardsAreFetchedOncePerItem(t *testing.T) {
	ctx := context.Background()
	s := dbtest.Store(t)
	fetched := 0
	s.Fetcher = fetchFunc(func(ctx context.Context, url string) (tributary.LinkCard, error) {
		fetched++
		return tributary.LinkCard{Kind: "paper", Title: "Attention Is All You Need", Authors: []string{"A. Vaswani"}}, nil
	})
	now := time.Now().UTC()
	_, anchor := shareOf(t, s, "ada", "https://arxiv.org/abs/1706.03762", "", now)
	shareOf(t, s, "bob", "https://arxiv.org/abs/1706.03762v2", "Bob's title", now.Add(time.Second))
	handed, err := s.DispatchCards(ctx, 100, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if handed != 1 {
		t.Fatalf("first dispatch handed %d cards, want 1 (one item, two shares)", handed)
	}
	if again, err := s.DispatchCards(ctx, 100, time.Minute); err != nil || again != 0 {
		t.Fatalf("second dispatch handed %d (%v), want 0: the card is leased", again, err)
	}
	var jobs int
	if err := s.Pool.QueryRow(ctx, "SELECT count(*) FROM river_job WHERE kind = 'fetch_card'").Scan(&jobs); err != nil {
		t.Fatal(err)
	}
	if jobs != 1 {
		t.Fatalf("got %d fetch jobs, want 1", jobs)
	}
	if err := s.FetchCard(ctx, anchor, "https://arxiv.org/abs/1706.03762"); err != nil {
		t.Fatal(err)
	}
	if err := s.FetchCard(ctx, anchor, "https://arxiv.org/abs/1706.03762"); err != nil {
		t.Fatal(err)
	}
	if fetched != 1 {
		t.Errorf("fetched %d times, want 1: a saved card is not due", fetched)
	}
	var titles []string
	rows, err := s.Pool.Query(ctx, "SELECT title FROM posts WHERE anchor_id = $1 ORDER BY id", anchor)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		titles = append(titles, s)
	}
	if len(titles) != 2 || titles[0] != "Attention Is All You Need" || titles[1] != "Bob's title" {
		t.Errorf("titles %q: the untitled share takes the card's, the titled one keeps its own", titles)
	}
	cards, err := s.CardsOf(ctx, []int64{anchor})
	if err != nil {
		t.Fatal(err)
	}
	if c := cards[anchor]; c.Title != "Attention Is All You Need" || c.AuthorLine() != "A. Vaswani" {
		t.Errorf("card %+v", c)
	}
}

// A card's image becomes its shares' preview, and the item's snapshot row counts it at once.
func TestLinkCardImageRedoesTheSnapshotRow(t *testing.T) {
	ctx := context.Background()
	s := dbtest.Store(t)
	_, anchor := shareOf(t, s, "ada", "https://example.org/post", "A post", time.Now().UTC())
	img := "/img/0123456789abcdef.jpg"
	if err := s.SaveCard(ctx, anchor, tributary.LinkCard{Title: "A post", Image: img}); err != nil {
		t.Fatal(err)
	}
	var images int
	var links string
	if err := s.Pool.QueryRow(ctx, "SELECT image_count, linked_urls::text FROM posts WHERE anchor_id = $1", anchor).Scan(&images, &links); err != nil {
		t.Fatal(err)
	}
	if images != 1 {
		t.Errorf("image_count %d (links %s), want 1", images, links)
	}
	var snapImages int
	if err := s.Pool.QueryRow(ctx, "SELECT image_count FROM feed_snapshot WHERE anchor_id = $1", anchor).Scan(&snapImages); err != nil {
		t.Fatal(err)
	}
	if snapImages != 1 {
		t.Errorf("snapshot row's image_count %d, want 1", snapImages)
	}
	var changes int
	if err := s.Pool.QueryRow(ctx, "SELECT count(*) FROM site_changes WHERE kind = 'talk'").Scan(&changes); err != nil {
		t.Fatal(err)
	}
	if changes == 0 {
		t.Error("no talk change recorded: open pages would not hear of the card")
	}
}

// A failed fetch is remembered with back-off; a permanent one is not tried again.
func TestLinkCardFailuresBackOff(t *testing.T) {
	ctx := context.Background()
	s := dbtest.Store(t)
	_, a := shareOf(t, s, "ada", "https://example.org/dead", "", time.Now().UTC())
	_, b := shareOf(t, s, "bob", "https://example.org/refused", "", time.Now().UTC())
	s.Fetcher = fetchFunc(func(ctx context.Context, url string) (tributary.LinkCard, error) {
		if url == "https://example.org/refused" {
			return tributary.LinkCard{}, &db.CardError{Reason: "refused address", Permanent: true}
		}
		return tributary.LinkCard{}, errors.New("connection reset")
	})
	for _, id := range []int64{a, b} {
		if err := s.FetchCard(ctx, id, map[int64]string{a: "https://example.org/dead", b: "https://example.org/refused"}[id]); err != nil {
			t.Fatal(err)
		}
	}
	type st struct {
		due     bool
		state   string
		reason  string
		waitMin float64
	}
	read := func(id int64) st {
		var r st
		if err := s.Pool.QueryRow(ctx, `SELECT due, state, reason, extract(epoch FROM next_at - now()) / 60 FROM link_cards WHERE anchor_id = $1`, id).
			Scan(&r.due, &r.state, &r.reason, &r.waitMin); err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := read(a); !r.due || r.state != "failed" || r.reason != "error" || r.waitMin < 50 {
		t.Errorf("a transient failure: %+v, want due again in about an hour", r)
	}
	if r := read(b); r.due || r.reason != "refused address" {
		t.Errorf("a permanent failure: %+v, want not due, its reason kept", r)
	}
	if handed, err := s.DispatchCards(ctx, 100, time.Minute); err != nil || handed != 0 {
		t.Errorf("dispatch after failures handed %d (%v), want 0", handed, err)
	}
}

// Requests to one host are spaced by the shared slot; a turn too far away is not taken.
func TestHostSlotsAreShared(t *testing.T) {
	ctx := context.Background()
	s := dbtest.Store(t)
	if err := s.HostSlot(ctx, "arxiv.org", 3*time.Second, 0); err != nil {
		t.Fatalf("first request: %v", err)
	}
	err := s.HostSlot(ctx, "arxiv.org", 3*time.Second, 0)
	var busy *db.HostBusy
	if !errors.As(err, &busy) || time.Until(busy.Until) < 2*time.Second {
		t.Fatalf("second request at once: %v, want HostBusy about 3 s away", err)
	}
	if err := s.HostSlot(ctx, "github.com", 3*time.Second, 0); err != nil {
		t.Errorf("another host waits for nobody: %v", err)
	}

	// A person's preview goes at once, and the background's next turn moves after it.
	start := time.Now()
	if err := s.HostTurnNow(ctx, "github.com", 3*time.Second); err != nil || time.Since(start) > 2*time.Second {
		t.Fatalf("a preview's turn: %v after %s, want it at once", err, time.Since(start))
	}
	err = s.HostSlot(ctx, "github.com", 3*time.Second, 0)
	if !errors.As(err, &busy) || time.Until(busy.Until) < 5*time.Second {
		t.Fatalf("a job after the preview: %v, want HostBusy about 6 s away (two turns taken)", err)
	}
}

// Every field of a card comes back as saved, whichever way it was saved (a job, a share
// form's preview) and read (by items, by URL): one mapping each way.
func TestLinkCardRoundTrips(t *testing.T) {
	ctx := context.Background()
	s := dbtest.Store(t)
	want := tributary.LinkCard{Kind: "paper", Title: "Tiny Experts", Description: "A description.", Site: "arXiv",
		Canonical: "https://arxiv.org/abs/2401.00001", Image: "/img/0123456789abcdef.jpg", ImageAlt: "a logo",
		Authors: []string{"Ada Lovelace", "Alan Turing"}, Abstract: "We study experts.",
		Published: time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC), Lang: "en"}
	_, shared := shareOf(t, s, "ada", "https://example.org/shared", "", time.Now().UTC())
	if err := s.SaveCard(ctx, shared, want); err != nil {
		t.Fatal(err)
	}
	previewURL := "https://example.org/previewed"
	if err := s.SavePreviewCard(ctx, previewURL, tributary.KindArxiv, want); err != nil {
		t.Fatal(err)
	}
	var previewed int64
	if err := s.Pool.QueryRow(ctx, "SELECT id FROM anchors WHERE url = $1", previewURL).Scan(&previewed); err != nil {
		t.Fatal(err)
	}
	cards, err := s.CardsOf(ctx, []int64{shared, previewed})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, url string
		anchor    int64
	}{{"job", "https://example.org/shared", shared}, {"preview", previewURL, previewed}} {
		if got := cards[tc.anchor]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: CardsOf gives %+v, want %+v", tc.name, got, want)
		}
		got, ok, err := s.CardOf(ctx, tributary.Viewer{ID: 1}, tc.url)
		if err != nil || !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: CardOf gives %+v, %v, %v; want %+v", tc.name, got, ok, err, want)
		}
	}
}

// Hosts take turns in a dispatch: an import's links of one host, made before another host's,
// do not fill the batch (their jobs would wait for that host's turns, one a second).
func TestLinkCardDispatchTakesHostsInTurn(t *testing.T) {
	ctx := context.Background()
	s := dbtest.Store(t)
	s.Fetcher = fetchFunc(func(ctx context.Context, url string) (tributary.LinkCard, error) { return tributary.LinkCard{}, nil })
	now := time.Now().UTC()
	for i := range 5 {
		shareOf(t, s, fmt.Sprintf("a%d", i), fmt.Sprintf("https://a.example.com/%d", i), "a", now.Add(-time.Minute+time.Duration(i)*time.Second))
	}
	shareOf(t, s, "b0", "https://b.example.com/0", "b", now)
	if _, err := s.Pool.Exec(ctx, "UPDATE link_cards SET next_at = now() - interval '1 minute'"); err != nil {
		t.Fatal(err)
	}
	if handed, err := s.DispatchCards(ctx, 2, time.Minute); err != nil || handed != 2 {
		t.Fatalf("dispatch handed %d (%v), want 2", handed, err)
	}
	var hosts []string
	rows, err := s.Pool.Query(ctx, `SELECT substring(args->>'url' FROM '://([^/]+)') FROM river_job WHERE kind = 'fetch_card' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			t.Fatal(err)
		}
		hosts = append(hosts, h)
	}
	if !slices.Equal(hosts, []string{"a.example.com", "b.example.com"}) {
		t.Errorf("a dispatch of 2 handed links of %v, want one of each host", hosts)
	}
}
