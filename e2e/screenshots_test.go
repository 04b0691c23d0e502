package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// TestScreenshots is `make screenshots`: the real binary on the demo data, photographed in
// Chromium for the README (docs/). It runs only when TRIBUTARY_SCREENSHOTS names the folder
// to write to.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("TRIBUTARY_SCREENSHOTS")
	if dir == "" {
		t.Skip("set TRIBUTARY_SCREENSHOTS to a folder (make screenshots)")
	}
	must(t, os.MkdirAll(dir, 0o755))
	srv := startServer(t, "--demo", "--poll-seconds", "-1")
	shoot := func(page playwright.Page, name string) {
		t.Helper()
		_, err := page.Evaluate("() => document.fonts.ready.then(() => true)")
		must(t, err)
		_, err = page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(filepath.Join(dir, name))})
		must(t, err)
		t.Logf("wrote %s", filepath.Join(dir, name))
	}
	desktop := playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1200, Height: 900}, ColorScheme: playwright.ColorSchemeLight}

	anon := newPageWith(t, desktop)
	_, err := anon.Goto(srv.URL + "/")
	must(t, err)
	shoot(anon, "front-page.png")

	home := newPageWith(t, desktop)
	demoLogin(t, home, srv.URL, "alan")
	why := home.GetByTestId("why").First()
	must(t, why.Locator("summary").Click())
	must(t, home.GetByTestId("card").First().ScrollIntoViewIfNeeded())
	shoot(home, "home-why.png")
	_, err = home.Goto(srv.URL + "/u/ada")
	must(t, err)
	shoot(home, "user-page.png")

	phone := newPageWith(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 390, Height: 844},
		IsMobile: playwright.Bool(true), HasTouch: playwright.Bool(true), DeviceScaleFactor: playwright.Float(2)})
	demoLogin(t, phone, srv.URL, "grace")
	shoot(phone, "phone.png")

	dark := playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1200, Height: 900}, ColorScheme: playwright.ColorSchemeDark}
	night := newPageWith(t, dark)
	demoLogin(t, night, srv.URL, "grace")
	shoot(night, "dark.png")
}

// demoLogin logs a demo user in (every seeded user has the demo password).
func demoLogin(t *testing.T, page playwright.Page, base, handle string) {
	t.Helper()
	loginWith(t, page, base, handle, "tributary")
}
