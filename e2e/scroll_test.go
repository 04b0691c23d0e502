package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// readerFollowingThree makes "reader", who follows ada, bob and cy, who shared n posts an
// hour apart between them; it returns the fixture.
func readerFollowingThree(t *testing.T, srv *server, n int) *fixture {
	t.Helper()
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	for _, h := range []string{"ada", "bob", "cy"} {
		f.user(h, h, false)
		f.follow("reader", h)
	}
	for i := range n {
		h := []string{"ada", "bob", "cy"}[i%3]
		f.share(h, fmt.Sprintf("https://blog.example.com/%s/%d", h, i), fmt.Sprintf("Post %d", i), time.Duration(i+2)*time.Hour)
	}
	f.refresh()
	return f
}

// eventually polls cond until it holds or the timeout passes: waiting on a condition, not a
// fixed sleep.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// scrollForMore scrolls to the feed's sentinel until the page shows want cards, as a reader
// who reached the end goes on scrolling: a scroll made while htmx had not yet taken up the
// sentinel just swapped in (it does so after the swap settles) reveals nothing, and the next
// one does.
func scrollForMore(t *testing.T, page playwright.Page, want int) {
	t.Helper()
	cards := page.GetByTestId("card")
	deadline := time.Now().Add(60 * time.Second) // under load a page has taken over 20 s
	for {
		page.GetByTestId("sentinel").ScrollIntoViewIfNeeded() // gone once the last page came
		err := expect.Locator(cards).ToHaveCount(want, playwright.LocatorAssertionsToHaveCountOptions{Timeout: playwright.Float(2000)})
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("scrolling for %d cards: %v", want, err)
		}
		// Back up a little, so that scrolling down again is a scroll htmx sees.
		_, err = page.Evaluate("() => window.scrollBy(0, -300)")
		must(t, err)
	}
}

func itemIDs(t *testing.T, page playwright.Page) []string {
	t.Helper()
	ids, err := page.Locator(`[data-testid="card"]`).EvaluateAll(`els => els.map(e => e.dataset.itemId)`)
	must(t, err)
	var out []string
	for _, id := range ids.([]any) {
		out = append(out, id.(string))
	}
	return out
}

// apiWalk follows next_cursor from the first page with the page's own session.
func apiWalk(t *testing.T, page playwright.Page, base string) []string {
	t.Helper()
	var out []string
	cursor := ""
	for range 100 {
		res, err := page.Request().Get(base + "/api/timeline?cursor=" + url.QueryEscape(cursor))
		must(t, err)
		body, err := res.Body()
		must(t, err)
		var p struct {
			Items []struct {
				ID int64 `json:"id"`
			} `json:"items"`
			NextCursor string `json:"next_cursor"`
		}
		must(t, json.Unmarshal(body, &p))
		for _, it := range p.Items {
			out = append(out, fmt.Sprint(it.ID))
		}
		if cursor = p.NextCursor; cursor == "" {
			return out
		}
	}
	t.Fatal("API walk does not end")
	return nil
}

func TestInfiniteScrollMatchesAPIWalk(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	readerFollowingThree(t, srv, 75)

	page := newPage(t)
	login(t, page, srv.URL, "reader")
	cards := page.GetByTestId("card")
	must(t, expect.Locator(cards).ToHaveCount(20))
	// Scroll until the end marker: each reveal of the sentinel loads the next page.
	for n := 20; n < 75; n += 20 {
		scrollForMore(t, page, min(n+20, 75))
	}
	must(t, page.GetByTestId("end").ScrollIntoViewIfNeeded())
	must(t, expect.Locator(page.GetByTestId("end")).ToBeVisible())
	got := itemIDs(t, page)
	sorted := slices.Clone(got)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(got) {
		t.Fatalf("duplicate data-item-id after scrolling: %v", got)
	}
	if want := apiWalk(t, page, srv.URL); !slices.Equal(got, want) {
		t.Fatalf("scrolled items differ from the API walk:\nbrowser %v\napi     %v", got, want)
	}
}

func TestTamperedCursorShowsRefreshedPage(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	page := newPage(t)
	_, err := page.Goto(srv.URL + "/?cursor=v1.dGFtcGVyZWQ.AAAA")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("feed-refreshed")).ToContainText("Your feed was refreshed"))
	must(t, page.GetByText("Back to the top").Click())
	must(t, expect.Page(page).ToHaveURL(srv.URL+"/?"))
}

func TestSeenCardsHideAfterGrace(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--seen-grace", "1s", "--dwell-flush-ms", "300", "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada", false)
	f.follow("reader", "ada")
	for i := range 30 {
		f.share("ada", fmt.Sprintf("https://blog.example.com/ada/%d", i), fmt.Sprintf("Note %d", i), time.Duration(i+2)*time.Hour)
	}
	f.refresh()

	page := newPage(t)
	must(t, page.SetViewportSize(1100, 500)) // a few cards on screen
	login(t, page, srv.URL, "reader")
	must(t, expect.Locator(page.GetByTestId("card")).ToHaveCount(20))
	top := itemIDs(t, page)[0]
	// The reader rests on the first cards; the tracker reports their dwell.
	eventually(t, 15*time.Second, "2 s of dwell on the top card to be recorded", func() bool {
		var ms int64
		f.store.Pool.QueryRow(context.Background(), "SELECT coalesce(sum(dwell_ms), 0) FROM events WHERE anchor_id = $1", top).Scan(&ms)
		return ms >= 2000
	})
	// After the (test-short) grace, a reload leaves the seen cards out.
	eventually(t, 10*time.Second, "the seen top card to be hidden on reload", func() bool {
		_, err := page.Reload()
		must(t, err)
		return !slices.Contains(itemIDs(t, page), top)
	})
	// The show-seen chip brings them back, dimmed, with a hint.
	must(t, page.GetByTestId("show-seen").Click())
	seenCard := page.Locator(`[data-testid="card"][data-item-id="` + top + `"]`)
	must(t, expect.Locator(seenCard).ToHaveClass(regexpSeen))
	must(t, expect.Locator(seenCard.GetByTestId("seen-hint")).ToHaveText("Seen"))
	must(t, expect.Page(page).ToHaveURL(srv.URL+"/?include_seen=1"))
}

func TestNewItemsPill(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "1")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada", false)
	f.follow("reader", "ada")
	for i := range 30 {
		f.share("ada", fmt.Sprintf("https://blog.example.com/ada/%d", i), fmt.Sprintf("Old note %d", i), time.Duration(i+2)*time.Hour)
	}
	f.refresh()

	page := newPage(t)
	login(t, page, srv.URL, "reader")
	cards := page.GetByTestId("card")
	must(t, expect.Locator(cards).ToHaveCount(20))
	before := itemIDs(t, page)

	f.share("ada", "https://arxiv.org/abs/2411.00042", "Brand new paper", 0)
	pill := page.GetByTestId("new-pill")
	must(t, expect.Locator(pill).ToHaveText("1 new", playwright.LocatorAssertionsToHaveTextOptions{Timeout: playwright.Float(10000)}))
	must(t, pill.Click())
	must(t, expect.Locator(cards).ToHaveCount(21))
	must(t, expect.Locator(cards.First()).ToContainText("Brand new paper"))
	if after := itemIDs(t, page)[1:]; !slices.Equal(after, before) {
		t.Fatalf("the history below changed:\nbefore %v\nafter  %v", before, after)
	}
}
