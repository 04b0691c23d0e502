package e2e

import (
	"testing"
)

// An author edits a post from its card: the card shows the new title, marked edited.
func TestAuthorEditsAPostFromItsCard(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	page := newPage(t)
	signup(t, page, srv.URL, "ada")
	share(t, page, srv.URL, "https://example.com/draft", "First draft")

	must(t, page.GetByTestId("edit-post").Click())
	must(t, page.GetByLabel("Title").Fill("Second draft"))
	must(t, page.GetByTestId("edit-submit").Click())
	must(t, expect.Locator(page.GetByTestId("flash")).ToHaveText("Saved."))
	card := page.GetByTestId("card").First()
	must(t, expect.Locator(card).ToContainText("Second draft"))
	must(t, expect.Locator(card.GetByTestId("edited")).ToBeVisible())
}

// After a refused share the form keeps "My feed" unticked, so the next submit goes where
// it was meant to.
func TestShareFormKeepsMyFeedUnticked(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	page := newPage(t)
	signup(t, page, srv.URL, "ada")
	_, err := page.Goto(srv.URL + "/share")
	must(t, err)
	must(t, page.GetByLabel("URL").Fill("https://example.com/x"))
	must(t, page.GetByTestId("to-own").Uncheck())
	must(t, page.GetByTestId("share-submit").Click())
	must(t, expect.Locator(page.GetByTestId("error-to")).ToBeVisible())
	must(t, expect.Locator(page.GetByTestId("to-own")).Not().ToBeChecked())
	must(t, expect.Locator(page.GetByTestId("direct-rule")).ToBeVisible())
}
