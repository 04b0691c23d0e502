package e2e

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"tributary"
	"tributary/db"
)

// Cards say who can see them: a direct names its recipients, a group post its group, and
// both carry a lock; a public share says nothing. On the home feed (ranked cards) and on the
// group's and the directs' pages (post cards). TRIBUTARY_AUDIENCE_SHOT, when set, is where
// a picture of the home feed is written.
func TestCardsShowTheirAudience(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	ctx := context.Background()
	f.user("ada", "Ada Lovelace", false)
	f.user("bob", "Bob Byte", false)
	f.user("reader", "Rea Der", false)
	f.follow("reader", "ada")
	f.follow("bob", "ada")
	g, err := f.store.CreateGroup(ctx, f.users["ada"].ID, "tour", "Tour Readers", "private", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Join(ctx, g, f.users["reader"].ID); err != nil {
		t.Fatal(err)
	}
	// A private group's joins wait for an admin.
	if err := f.store.ApproveMember(ctx, g, f.users["ada"].ID, f.users["reader"].ID); err != nil {
		t.Fatal(err)
	}
	post := func(url, title string, ago time.Duration, d db.Destination) {
		t.Helper()
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: f.users["ada"].ID, URL: url, Title: title, CreatedAt: time.Now().Add(-ago)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.store.Share(ctx, p, d); err != nil {
			t.Fatal(err)
		}
	}
	post("https://example.com/direct-note", "A direct note", time.Hour, db.Destination{DirectTo: []int64{f.users["bob"].ID, f.users["reader"].ID}})
	post("https://example.com/group-note", "A group note", 2*time.Hour, db.Destination{Groups: []int64{g.ID}})
	post("https://example.com/public-note", "A public note", 3*time.Hour, db.Destination{OwnFeed: true})
	f.refresh()

	page := newPageWith(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 900, Height: 900}})
	login(t, page, srv.URL, "reader")
	_, err = page.Goto(srv.URL + "/")
	must(t, err)
	feed := page.GetByTestId("feed")
	card := func(p playwright.Page, title string) playwright.Locator {
		return p.GetByTestId("card").Filter(playwright.LocatorFilterOptions{HasText: title})
	}
	// The reader is in the group: its post reaches their home, saying where it was posted
	// (the feed model's destination rule; a follower not in the group never sees it).
	must(t, expect.Locator(feed.GetByTestId("card")).ToHaveCount(3))
	must(t, expect.Locator(card(page, "A group note").GetByTestId("audience")).ToHaveText("in Tour Readers"))
	if path := os.Getenv("TRIBUTARY_AUDIENCE_SHOT"); path != "" {
		_, err := feed.Screenshot(playwright.LocatorScreenshotOptions{Path: playwright.String(path)})
		must(t, err)
	}
	must(t, expect.Locator(card(page, "A direct note").GetByTestId("audience")).ToHaveText("to @bob, @reader"))
	must(t, expect.Locator(card(page, "A direct note").GetByTestId("audience-lock")).ToBeVisible())
	must(t, expect.Locator(card(page, "A public note").GetByTestId("audience")).ToHaveCount(0))
	must(t, expect.Locator(card(page, "A public note").GetByTestId("audience-lock")).ToHaveCount(0))

	_, err = page.Goto(srv.URL + "/directs")
	must(t, err)
	must(t, expect.Locator(card(page, "A direct note").GetByTestId("audience")).ToHaveText("to @bob, @reader"))
	_, err = page.Goto(srv.URL + "/g/tour")
	must(t, err)
	must(t, expect.Locator(card(page, "A group note").GetByTestId("audience")).ToHaveText("in Tour Readers"))
	must(t, expect.Locator(card(page, "A group note").GetByTestId("audience-lock")).ToBeVisible())
}
