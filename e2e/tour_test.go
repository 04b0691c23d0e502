package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
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
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada", false)
	f.follow("reader", "ada")
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
		{"phone", phoneLight, 64},
	} {
		t.Run(c.name, func(t *testing.T) {
			page := newPageWith(t, c.opts)
			login(t, page, srv.URL, "reader")
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
			must(t, settings.Click())
			must(t, page.WaitForURL("**/settings"))
			must(t, expect.Locator(page.GetByTestId("feed-heading").Or(page.Locator("h1"))).ToHaveText("Settings"))
		})
	}
}
