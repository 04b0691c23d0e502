package e2e

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"tributary"
)

// A followee's comment brings an older post nobody the reader follows shared into the open
// home feed through the "N new" pill, with who commented on the card and in "Why am I seeing
// this?".
func TestFolloweeCommentBringsPostThroughPill(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "1")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada Lovelace", false)
	f.user("cy", "Cy Stranger", false)
	f.follow("reader", "ada")
	f.share("ada", "https://blog.example.com/ada/own", "Ada's own post", time.Hour)
	old := filterPost(f, "cy", "https://arxiv.org/abs/2403.01234", "An older paper nobody you follow shared", "", nil, 20*time.Hour)
	f.refresh()

	page := pageAs(t, srv, "reader")
	_, err := page.Goto(srv.URL + "/")
	must(t, err)
	cards := page.GetByTestId("card")
	must(t, expect.Locator(cards).ToHaveCount(1))
	must(t, expect.Locator(page.GetByText("An older paper nobody you follow shared")).ToHaveCount(0))
	pill := page.GetByTestId("new-pill")
	must(t, expect.Locator(pill).ToHaveCount(0))
	markDocument(t, page)

	// Ada comments on cy's older post while the reader's page is open.
	if _, _, err := f.store.AddComment(context.Background(), viewerOf(f, "ada"), old, "This is the one to read, @reader.", time.Now(),
		tributary.DefaultBumpRule); err != nil {
		t.Fatal(err)
	}
	must(t, expect.Locator(pill).ToHaveText("1 new", playwright.LocatorAssertionsToHaveTextOptions{Timeout: playwright.Float(10000)}))
	must(t, pill.Click())
	must(t, expect.Locator(cards).ToHaveCount(2))
	first := cards.First()
	must(t, expect.Locator(first).ToContainText("An older paper nobody you follow shared"))
	must(t, expect.Locator(first.GetByTestId("activity")).ToHaveText("@ada commented"))
	must(t, first.GetByTestId("why").Locator("summary").Click())
	must(t, expect.Locator(first.GetByTestId("why-activity")).ToContainText("Ada Lovelace, whom you follow, commented"))
	sameDocument(t, page)

	// The comment mentioned the reader: the post is in their mentions; liked, in their
	// discussions.
	must(t, page.GetByTestId("nav-mentions").Click())
	must(t, expect.Locator(page.GetByTestId("feed-heading")).ToHaveText("Mentions"))
	must(t, expect.Locator(cards).ToHaveCount(1))
	must(t, expect.Locator(cards.First()).ToContainText("An older paper nobody you follow shared"))
	must(t, cards.First().GetByTestId("like").Click())
	must(t, expect.Locator(cards.First().GetByTestId("unlike")).ToHaveCount(1))
	must(t, page.GetByTestId("nav-discussions").Click())
	must(t, expect.Locator(page.GetByTestId("feed-heading")).ToHaveText("My discussions"))
	must(t, expect.Locator(cards).ToHaveCount(1))
	must(t, expect.Locator(cards.First()).ToContainText("An older paper nobody you follow shared"))

	// "People I follow only": ada's like of another of cy's posts brings nothing.
	_, err = page.Goto(srv.URL + "/settings")
	must(t, err)
	must(t, page.GetByTestId("activity-off").Check())
	must(t, page.GetByTestId("save-activity").Click())
	must(t, expect.Locator(page.GetByTestId("flash")).ToContainText("only what people you follow share"))
	other := filterPost(f, "cy", "https://arxiv.org/abs/2403.05678", "Another paper of cy's", "", nil, 20*time.Hour)
	_, err = page.Goto(srv.URL + "/")
	must(t, err)
	must(t, expect.Locator(cards).ToHaveCount(1)) // what ada shared: the fence starts again without activity
	likeAs(f, "ada", other, time.Now())
	pollNow(t, page, homePoll)
	must(t, expect.Locator(pill).ToHaveCount(0))
}

// The "N new" polls of the home feed, and of a chronological feed.
var (
	homePoll   = regexp.MustCompile(`/feed/new\?`)
	chronoPoll = regexp.MustCompile(`[?&]new=`)
)

// pollNow has the open page's "N new" slot ask for its notice now (as it does by itself
// while its live stream is not open) and waits for the answer: what the pill shows then is
// what the server counts, not what it counted before.
func pollNow(t *testing.T, page playwright.Page, poll *regexp.Regexp) {
	t.Helper()
	_, err := page.ExpectResponse(poll, func() error {
		_, err := page.Evaluate(`htmx.trigger(document.getElementById("new-pill"), "poll")`)
		return err
	}, playwright.PageExpectResponseOptions{Timeout: playwright.Float(10000)})
	must(t, err)
}
