package e2e

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"tributary"
)

// B has pages open; A likes, comments and mentions B: B's badge counts up live on both. B's
// /notifications shows one grouped like line, the comment and the mention; "mark all read"
// zeroes the badge on B's other open page.
func TestNotificationsLive(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "3600")
	f := newFixture(t, srv)
	f.user("bea", "Bea Reader", false)
	f.user("ann", "Ann Writer", false)
	f.user("cy", "Cy Other", false)
	post := sharedPost(f, "bea", "https://blog.example.com/bea/paper", "Bea's paper")

	open := func(page playwright.Page, path string) {
		t.Helper()
		_, err := page.ExpectResponse(regexp.MustCompile(`/live\?src=`), func() error {
			_, err := page.Goto(srv.URL + path)
			return err
		})
		must(t, err)
	}
	first := pageAs(t, srv, "bea")
	open(first, "/")
	other, err := first.Context().NewPage()
	must(t, err)
	open(other, "/u/bea")
	live := playwright.LocatorAssertionsToHaveAttributeOptions{Timeout: playwright.Float(15000)}
	badge := func(page playwright.Page, want string) {
		t.Helper()
		must(t, expect.Locator(page.Locator("#nav-notifications")).ToHaveAttribute("data-unread", want, live))
	}
	badge(first, "0")
	badge(other, "0")

	likeAs(f, "ann", post, time.Now())
	badge(first, "1")
	badge(other, "1")
	likeAs(f, "cy", post, time.Now()) // the same line
	if _, _, err := f.store.AddComment(context.Background(), viewerOf(f, "ann"), post, "A fine paper", time.Now(), tributary.DefaultBumpRule); err != nil {
		t.Fatal(err)
	}
	badge(first, "2")
	filterPost(f, "ann", "https://blog.example.com/ann/note", "Ann's note", "cc @bea", nil, 0) // fanned out by a job
	badge(first, "3")
	badge(other, "3")
	must(t, expect.Locator(other.GetByTestId("unread-badge")).ToHaveText("3"))

	_, err = first.Goto(srv.URL + "/notifications")
	must(t, err)
	lines := first.GetByTestId("notification")
	must(t, expect.Locator(lines).ToHaveCount(3))
	must(t, expect.Locator(lines.Filter(playwright.LocatorFilterOptions{HasText: "liked your post"})).ToHaveText(
		regexp.MustCompile(`@cy and @ann liked your post`)))
	must(t, expect.Locator(lines.Filter(playwright.LocatorFilterOptions{HasText: "@ann commented on your post"})).ToHaveCount(1))
	must(t, expect.Locator(lines.Filter(playwright.LocatorFilterOptions{HasText: "@ann mentioned you"})).ToHaveCount(1))
	must(t, expect.Locator(first.Locator(`[data-testid="notification"][data-unread="true"]`)).ToHaveCount(3))

	must(t, first.GetByTestId("mark-all-read").Click())
	must(t, expect.Locator(first.Locator(`[data-testid="notification"][data-unread="true"]`)).ToHaveCount(0))
	badge(first, "0")
	badge(other, "0")
	must(t, expect.Locator(other.GetByTestId("unread-badge")).ToBeHidden())

	// Opening a line leads to what it is about.
	must(t, lines.Filter(playwright.LocatorFilterOptions{HasText: "mentioned you"}).GetByTestId("notification-open").Click())
	must(t, expect.Page(first).ToHaveURL(regexp.MustCompile(`/p/\d+$`)))
}
