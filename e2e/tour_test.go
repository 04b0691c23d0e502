package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"tributary"
)

// What a newcomer sees and handles: the "N new" pill and the header, on a desktop and a
// phone, in both themes.

var (
	desktopLight = playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1280, Height: 800},
		ColorScheme: playwright.ColorSchemeLight}
	phoneDark = playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 390, Height: 844},
		IsMobile: playwright.Bool(true), HasTouch: playwright.Bool(true), ColorScheme: playwright.ColorSchemeDark}
	desktopDark = playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1280, Height: 800},
		ColorScheme: playwright.ColorSchemeDark}
	phoneLight = playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 390, Height: 844},
		IsMobile: playwright.Bool(true), HasTouch: playwright.Bool(true), ColorScheme: playwright.ColorSchemeLight}
)

// tourShot saves the viewport as name in the folder TRIBUTARY_TOUR_SHOTS names (the
// pictures of docs/tour), and does nothing without it.
func tourShot(t *testing.T, page playwright.Page, name string) {
	t.Helper()
	dir := os.Getenv("TRIBUTARY_TOUR_SHOTS")
	if dir == "" {
		return
	}
	must(t, os.MkdirAll(dir, 0o755))
	_, err := page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(filepath.Join(dir, name))})
	must(t, err)
}

// box is an element's place in the viewport.
type box struct{ Top, Bottom, Left, Right, Height, Inner float64 }

// visibleBox measures the element of sel (the first), and reports whether the element at
// its centre is it (or inside it): nothing covers it.
func visibleBox(t *testing.T, page playwright.Page, sel string) (box, bool) {
	t.Helper()
	v, err := page.Evaluate(`(sel) => {
  const el = document.querySelector(sel);
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
  return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height,
          inner: Math.max(el.scrollHeight, el.clientHeight), onTop: !!hit && el.contains(hit),
          vh: innerHeight, vw: innerWidth};
}`, sel)
	must(t, err)
	m := v.(map[string]any)
	num := func(k string) float64 { return toFloat(m[k]) }
	b := box{Top: num("top"), Bottom: num("bottom"), Left: num("left"), Right: num("right"), Height: num("height"), Inner: num("inner")}
	if b.Bottom > num("vh") || b.Right > num("vw") {
		return b, false
	}
	return b, m["onTop"] == true
}

func toFloat(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case int:
		return float64(n)
	case int64:
		return float64(n)
	}
	return 0
}

// The "N new" pill is whole (its text inside its box), at the top of the viewport and not
// under the header, however far the reader scrolled, on a desktop and a phone, in both
// themes; a click on it brings the new card.
func TestNewPillVisibleAtAnyScroll(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		opts playwright.BrowserNewContextOptions
	}{
		{"desktop-light", desktopLight},
		{"phone-dark", phoneDark},
		{"desktop-dark", desktopDark},
		{"phone-light", phoneLight},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := startServer(t, "--poll-seconds", "1")
			f := newFixture(t, srv)
			f.user("reader", "Rea Der", false)
			f.user("ada", "Ada", false)
			f.follow("reader", "ada")
			for i := range 25 {
				f.share("ada", fmt.Sprintf("https://blog.example.com/ada/%d", i), fmt.Sprintf("Old note %d", i), time.Duration(i+2)*time.Hour)
			}
			f.refresh()
			page := newPageWith(t, c.opts)
			login(t, page, srv.URL, "reader")
			cards := page.GetByTestId("card")
			must(t, expect.Locator(cards).ToHaveCount(20))

			f.share("ada", "https://arxiv.org/abs/2411.00042", "Brand new paper", 0)
			pill := page.GetByTestId("new-pill")
			must(t, expect.Locator(pill).ToHaveText("1 new", playwright.LocatorAssertionsToHaveTextOptions{Timeout: playwright.Float(10000)}))
			for _, y := range []int{0, 600, 2500} {
				_, err := page.Evaluate(fmt.Sprintf("window.scrollTo(0, %d)", y))
				must(t, err)
				b, onTop := visibleBox(t, page, `[data-testid="new-pill"]`)
				if y != 600 {
					tourShot(t, page, fmt.Sprintf("pill-%s-%d.png", c.name, y))
				}
				if b.Height < 24 || b.Inner > b.Height+1 {
					t.Errorf("scrolled to %d: the pill is %.0f px tall with %.0f px of content; want its text inside a box of 24 px or more", y, b.Height, b.Inner)
				}
				if b.Top < 0 || b.Top > 200 {
					t.Errorf("scrolled to %d: the pill's top is at %.0f px; want it near the top of the viewport", y, b.Top)
				}
				if !onTop {
					t.Errorf("scrolled to %d: the pill (%+v) is covered or off screen; want it the element at its centre", y, b)
				}
			}
			must(t, pill.Click())
			must(t, expect.Locator(cards).ToHaveCount(21))
			must(t, expect.Locator(cards.First()).ToContainText("Brand new paper"))
		})
	}
}

// The logged-in header is one row on a desktop and takes little of a phone's screen, and
// Settings is reachable from it.
func TestHeaderIsCompact(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	// A long handle: the account menu must not push the header onto a second row.
	const reader = "reader_with_a_long_handle_x"
	f.user(reader, "Rea Der", false)
	f.user("ada", "Ada", false)
	f.follow(reader, "ada")
	for i := range 6 {
		f.share("ada", fmt.Sprintf("https://blog.example.com/ada/%d", i), fmt.Sprintf("A note of Ada's, number %d", i), time.Duration(i+2)*time.Hour)
	}
	f.refresh()
	for _, c := range []struct {
		name      string
		opts      playwright.BrowserNewContextOptions
		maxHeight float64
	}{
		{"desktop", desktopLight, 64},
		{"laptop", laptop(1100), 64},
		{"small-laptop", laptop(1024), 64},
		{"phone", phoneLight, 64},
	} {
		t.Run(c.name, func(t *testing.T) {
			page := newPageWith(t, c.opts)
			login(t, page, srv.URL, reader)
			_, err := page.Evaluate("window.scrollTo(0, 400)")
			must(t, err)
			tourShot(t, page, "header-"+c.name+".png")
			// What stays on screen as the reader scrolls: the sticky header, and any bar
			// fixed to the bottom.
			v, err := page.Evaluate(`() => [...document.querySelectorAll("body > header, body > nav, .topbar, .bottombar")]
  .filter(el => { const s = getComputedStyle(el); return (s.position === "sticky" || s.position === "fixed") && s.display !== "none"; })
  .reduce((sum, el) => sum + el.getBoundingClientRect().height, 0)`)
			must(t, err)
			if h := toFloat(v); h > c.maxHeight {
				t.Errorf("the header and bars stay %.0f px tall on screen; want at most %.0f", h, c.maxHeight)
			}
			settings := page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Settings", Exact: playwright.Bool(true)})
			// Settings shows in the header, or in the menu or account menu it opens.
			for _, menu := range []string{"nav-menu", "nav-me"} {
				if vis, _ := settings.IsVisible(); vis {
					break
				}
				if vis, _ := page.GetByTestId(menu).IsVisible(); vis {
					must(t, page.GetByTestId(menu).Click())
				}
			}
			tourShot(t, page, "header-"+c.name+"-menu.png")
			// Audit the page with its menu open too (the audit runs after each htmx swap).
			_, err = page.Evaluate(`document.dispatchEvent(new CustomEvent("htmx:afterSettle"))`)
			must(t, err)
			_, err = page.Evaluate("() => window.__tributaryAxePending")
			must(t, err)
			must(t, settings.Click())
			must(t, page.WaitForURL("**/settings"))
			must(t, expect.Locator(page.GetByTestId("feed-heading").Or(page.Locator("h1"))).ToHaveText("Settings"))
		})
	}
}

// laptop is a light desktop window width pixels wide.
func laptop(width int) playwright.BrowserNewContextOptions {
	return playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: width, Height: 800},
		ColorScheme: playwright.ColorSchemeLight}
}

// A card already on the page that a followee's comment brings back through the pill moves
// up: the page never shows it twice.
func TestPillMovesACardUpWithoutDuplicating(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "1")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada Lovelace", false)
	f.user("bob", "Bob Stone", false)
	f.follow("reader", "ada")
	f.follow("reader", "bob")
	old := filterPost(f, "ada", "https://arxiv.org/abs/2403.01234", "Ada's older paper", "", nil, 20*time.Hour)
	f.share("ada", "https://blog.example.com/ada/new", "Ada's newer post", time.Hour)
	f.refresh()

	page := pageAs(t, srv, "reader")
	_, err := page.Goto(srv.URL + "/")
	must(t, err)
	cards := page.GetByTestId("card")
	must(t, expect.Locator(cards).ToHaveCount(2))
	must(t, expect.Locator(cardTitled(page, "Ada's older paper")).ToHaveCount(1))

	if _, _, err := f.store.AddComment(context.Background(), viewerOf(f, "bob"), old, "Still the one to read.", time.Now(),
		tributary.DefaultBumpRule); err != nil {
		t.Fatal(err)
	}
	pill := page.GetByTestId("new-pill")
	must(t, expect.Locator(pill).ToHaveText("1 new", playwright.LocatorAssertionsToHaveTextOptions{Timeout: playwright.Float(10000)}))
	must(t, pill.Click())
	must(t, expect.Locator(pill).ToHaveCount(0))
	must(t, expect.Locator(cards.First()).ToContainText("Ada's older paper"))
	must(t, expect.Locator(cards).ToHaveCount(2))
	if ids := itemIDs(t, page); len(ids) != 2 || ids[0] == ids[1] {
		t.Fatalf("the page's cards are items %v; want two different ones", ids)
	}
}

// activeTestID is the data-testid of the focused element ("BODY" when focus fell to the
// page's body, the tag name of an element without one).
func activeTestID(t *testing.T, page playwright.Page) string {
	t.Helper()
	v, err := page.Evaluate(`() => { const a = document.activeElement;
  return !a || a === document.body ? "BODY" : (a.closest("[data-testid]") === a ? a.dataset.testid : a.tagName + " in " + (a.closest("[data-testid]") || {dataset: {}}).dataset.testid); }`)
	must(t, err)
	return fmt.Sprint(v)
}

// press focuses the element and presses Enter on it, as a keyboard user does.
func press(t *testing.T, l playwright.Locator) {
	t.Helper()
	must(t, l.Focus())
	must(t, l.Press("Enter"))
}

// Keyboard focus stays on the control an in-place action swapped: like and unlike, a
// comment, hide and its undo, the "N new" pill.
func TestFocusStaysAfterInPlaceActions(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "1")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada Lovelace", false)
	f.follow("reader", "ada")
	f.share("ada", "https://blog.example.com/ada/one", "Ada's first post", 3*time.Hour)
	f.share("ada", "https://blog.example.com/ada/two", "Ada's second post", 2*time.Hour)
	f.refresh()
	page := pageAs(t, srv, "reader")
	card := cardTitled(page, "Ada's first post")
	focused := func(want string) {
		t.Helper()
		eventually(t, 10*time.Second, "focus on "+want, func() bool { return activeTestID(t, page) == want })
	}

	press(t, card.GetByTestId("like"))
	must(t, expect.Locator(card.GetByTestId("unlike")).ToHaveCount(1))
	focused("unlike")
	press(t, card.GetByTestId("unlike"))
	must(t, expect.Locator(card.GetByTestId("like")).ToHaveCount(1))
	focused("like")

	press(t, card.GetByTestId("comment-toggle"))
	must(t, card.GetByTestId("comment-body").Fill("A keyboard comment"))
	press(t, card.GetByTestId("comment-submit"))
	must(t, expect.Locator(card.GetByTestId("added")).ToContainText("A keyboard comment"))
	focused("comment-toggle")

	press(t, card.GetByTestId("hide"))
	must(t, expect.Locator(page.GetByTestId("hidden-stub")).ToHaveCount(1))
	focused("undo-hide")
	press(t, page.GetByTestId("undo-hide"))
	must(t, expect.Locator(page.GetByTestId("unhidden-stub")).ToHaveCount(1))
	focused("unhidden-stub")

	f.share("ada", "https://blog.example.com/ada/three", "Ada's third post", 0)
	pill := page.GetByTestId("new-pill")
	must(t, expect.Locator(pill).ToHaveText("1 new", playwright.LocatorAssertionsToHaveTextOptions{Timeout: playwright.Float(10000)}))
	press(t, pill)
	must(t, expect.Locator(pill).ToHaveCount(0))
	focused("card")
	must(t, expect.Locator(page.Locator(":focus")).ToContainText("Ada's third post"))
}

// Controls that ran together or covered each other: the settings' radio options each on
// their own line, and the Lists menu on a person's page leaving the Ban button free.
func TestControlsStandApart(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada Lovelace", false)
	f.refresh()
	for _, c := range []struct {
		name string
		opts playwright.BrowserNewContextOptions
	}{{"desktop", desktopLight}, {"phone", phoneLight}} {
		t.Run(c.name, func(t *testing.T) {
			page := newPageWith(t, c.opts)
			login(t, page, srv.URL, "reader")
			_, err := page.Goto(srv.URL + "/settings")
			must(t, err)
			v, err := page.Evaluate(`() => [...document.querySelectorAll('input[type=radio]')].map(r => {
  const b = r.closest('label').getBoundingClientRect(); return [b.top, b.bottom]; })`)
			must(t, err)
			boxes := v.([]any)
			for i := 1; i < len(boxes); i++ {
				prev, cur := boxes[i-1].([]any), boxes[i].([]any)
				if toFloat(cur[0]) < toFloat(prev[1]) && toFloat(cur[0]) > toFloat(prev[0])-1 {
					t.Errorf("settings: radio option %d starts at %.0f px, inside option %d (%.0f to %.0f px): they run together",
						i, toFloat(cur[0]), i-1, toFloat(prev[0]), toFloat(prev[1]))
				}
			}

			_, err = page.Goto(srv.URL + "/lists")
			must(t, err)
			must(t, page.Locator("#f-name").Fill("Friends on "+c.name))
			must(t, page.GetByTestId("create-list").Click())
			must(t, page.WaitForURL("**/lists/*"))
			_, err = page.Goto(srv.URL + "/u/ada")
			must(t, err)
			must(t, page.GetByTestId("list-buttons").Locator("summary").Click())
			must(t, expect.Locator(page.GetByTestId("list-add").First()).ToBeVisible())
			_, free := visibleBox(t, page, `[data-testid="ban"]`)
			if !free {
				t.Errorf("the open Lists menu covers the Ban button")
			}
			tourShot(t, page, "lists-"+c.name+".png")
		})
	}
}
