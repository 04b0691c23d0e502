package e2e

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// Going back to a long-scrolled feed restores it at once, at the same place: the page is
// kept in the back-forward cache (its answers are "private, no-cache", never "no-store").
func TestBackToAScrolledFeedRestoresIt(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := readerFollowingThree(t, srv, 90)

	page := newPage(t)
	login(t, page, srv.URL, "reader")
	cards := page.GetByTestId("card")
	for n := 20; n <= 60; n += 20 { // three pages down
		scrollForMore(t, page, n+20)
	}
	card := cards.Nth(55)
	must(t, card.ScrollIntoViewIfNeeded())
	before := itemIDs(t, page)
	y, err := page.Evaluate("() => window.scrollY")
	must(t, err)
	// Meanwhile more was shared: a freshly ranked first page would differ.
	f.share("ada", "https://blog.example.com/ada/new", "Brand new", 0)

	_, err = card.Locator("a.sharer").Evaluate("a => a.click()", nil)
	must(t, err)
	must(t, page.WaitForURL("**/u/**"))
	// A page restored from the back-forward cache fires no load event: wait for the commit.
	_, err = page.GoBack(playwright.PageGoBackOptions{WaitUntil: playwright.WaitUntilStateCommit})
	must(t, err)
	must(t, expect.Locator(cards).ToHaveCount(len(before)))
	if after := itemIDs(t, page); !slices.Equal(after, before) {
		t.Fatalf("after going back the feed shows other items:\nbefore %v\nafter  %v", before, after)
	}
	y2, err := page.Evaluate("() => window.scrollY")
	must(t, err)
	if fmt.Sprint(y) != fmt.Sprint(y2) {
		t.Fatalf("scroll position %v before, %v after going back", y, y2)
	}
}

// Every page on a phone-sized screen, in the dark theme: readable (no horizontal scroll) and,
// like every page of the suite, free of serious accessibility violations in that theme.
func TestPagesOnAPhoneInTheDarkTheme(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("vip", "Vi Pea", true)
	f.user("reader", "Rea Der", false)
	f.follow("reader", "vip")
	for i := range 8 {
		f.share("vip", fmt.Sprintf("https://arxiv.org/abs/2401.%05d", 100+i), fmt.Sprintf("A fairly long paper title about transformers and their many uses, number %d", i), time.Duration(i+1)*time.Hour)
	}
	f.refresh()
	page := newPageWith(t, playwright.BrowserNewContextOptions{
		Viewport: &playwright.Size{Width: 375, Height: 740}, IsMobile: playwright.Bool(true), HasTouch: playwright.Bool(true),
		ColorScheme: playwright.ColorSchemeDark,
	})
	check := func(path string) {
		t.Helper()
		_, err := page.Goto(srv.URL + path)
		must(t, err)
		w, err := page.Evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
		must(t, err)
		if fmt.Sprint(w) != "0" {
			t.Errorf("%s scrolls sideways by %vpx on a phone", path, w)
		}
	}
	for _, p := range []string{"/", "/login", "/signup", "/groups", "/u/vip"} {
		check(p)
	}
	login(t, page, srv.URL, "reader")
	must(t, page.GetByTestId("why").First().Locator("summary").Click())
	for _, p := range []string{"/", "/settings", "/settings/profile", "/settings/password", "/settings/sessions", "/share", "/directs", "/notifications", "/notifications/settings", "/u/reader", "/u/vip"} {
		check(p)
	}
	must(t, expect.Locator(page.GetByTestId("card").First()).ToBeVisible())
}

// A next page that does not come (the connection cut, then the server answering 503 while
// it restarts) is asked for again, without reloading: by a sentinel on screen once its
// back-off is over, and by one the reader scrolled away from when it comes back into view.
func TestNextPageComesAfterFailures(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	readerFollowingThree(t, srv, 60)

	page := newPage(t)
	login(t, page, srv.URL, "reader")
	cards := page.GetByTestId("card")
	must(t, expect.Locator(cards).ToHaveCount(20))
	var asked atomic.Int32
	must(t, page.Route("**/*cursor=*", func(r playwright.Route) {
		var err error
		switch asked.Add(1) {
		case 1:
			err = r.Abort("connectionreset")
		case 2:
			err = r.Fulfill(playwright.RouteFulfillOptions{Status: playwright.Int(503), Headers: map[string]string{"Retry-After": "1"},
				ContentType: playwright.String("text/plain"), Body: "Tributary is restarting. Try again in a moment."})
		default:
			err = r.Continue()
		}
		if err != nil {
			t.Error(err)
		}
	}))

	must(t, page.GetByTestId("sentinel").ScrollIntoViewIfNeeded())
	must(t, expect.Locator(page.GetByTestId("next-failed")).ToBeVisible())
	// Back at the top before the back-off is over: once it is over, the sentinel waits to
	// come into view, and nothing is asked while it is out of view.
	_, err := page.Evaluate("() => window.scrollTo(0, 0)")
	must(t, err)
	must(t, expect.Locator(page.Locator(`[data-testid="sentinel"][data-waiting-for-view]`)).ToBeAttached())
	if n := asked.Load(); n != 1 {
		t.Fatalf("the next page was asked for %d times while its sentinel was out of view; want 1", n)
	}
	// Scrolled down again: asked again (503, Retry-After 1), and a second later once more
	// without scrolling, and the page comes.
	must(t, page.GetByTestId("sentinel").ScrollIntoViewIfNeeded())
	must(t, expect.Locator(cards).ToHaveCount(40))
	if n := asked.Load(); n != 3 {
		t.Fatalf("the next page came after %d requests; want 3 (cut, 503, answered)", n)
	}
	must(t, expect.Locator(page.GetByTestId("next-failed")).ToBeHidden())
	scrollForMore(t, page, 60)
	if got := itemIDs(t, page); len(slices.Compact(slices.Sorted(slices.Values(got)))) != 60 {
		t.Fatalf("after the failures the feed shows duplicates: %v", got)
	}
}
