package e2e

import (
	"context"
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
	if _, _, err := f.store.AddComment(context.Background(), viewerOf(f, "ada"), old, "This is the one to read.", time.Now(),
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
	time.Sleep(2500 * time.Millisecond) // two polls
	must(t, expect.Locator(pill).ToHaveCount(0))
}
