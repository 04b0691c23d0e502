package e2e

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// A reader makes a list from the Lists page, puts two of the people they follow in it (one
// from the list's page, one from her own page), and the list's feed shows only their shares;
// a new share by one of them comes through the list's own "N new" pill.
func TestListShowsOnlyItsMembers(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "1")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada Lovelace", false)
	f.user("bob", "Bob Builder", false)
	f.user("cy", "Cy Young", false)
	for _, h := range []string{"ada", "bob", "cy"} {
		f.follow("reader", h)
	}
	f.share("ada", "https://arxiv.org/abs/2404.00001", "Ada's paper", time.Hour)
	f.share("bob", "https://github.com/bob/tool", "Bob's tool", 2*time.Hour)
	f.share("cy", "https://cy.example.com/essay", "Cy's essay", 3*time.Hour)
	f.refresh()

	page := pageAs(t, srv, "reader")
	must(t, page.GetByTestId("nav-lists").Click())
	must(t, expect.Locator(page.GetByTestId("no-lists")).ToBeVisible())
	must(t, page.Locator("#f-name").Fill("Builders"))
	must(t, page.GetByTestId("create-list").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/lists/[0-9]+$`)))
	must(t, expect.Locator(page.GetByTestId("list-name")).ToHaveText("Builders"))
	must(t, expect.Locator(page.GetByTestId("empty")).ToBeVisible())
	listURL := page.URL()

	// Ada from the list's page; bob from his own page.
	must(t, page.Locator("#f-handle").Fill("ada"))
	must(t, page.GetByTestId("add-member").Click())
	must(t, expect.Locator(page.GetByTestId("flash")).ToHaveText("@ada is in the list."))
	_, err := page.Goto(srv.URL + "/u/bob")
	must(t, err)
	must(t, page.GetByTestId("list-buttons").Locator("summary").Click())
	must(t, page.GetByTestId("list-add").Filter(playwright.LocatorFilterOptions{HasText: "Builders"}).Click())
	must(t, expect.Locator(page.GetByTestId("flash")).ToHaveText("@bob is in the list."))
	must(t, page.GetByTestId("list-buttons").Locator("summary").Click())
	must(t, expect.Locator(page.GetByTestId("list-remove")).ToHaveText("✓ Builders"))

	_, err = page.Goto(listURL)
	must(t, err)
	cards := page.GetByTestId("card")
	must(t, expect.Locator(cards).ToHaveCount(2))
	must(t, expect.Locator(cardTitled(page, "Ada's paper")).ToHaveCount(1))
	must(t, expect.Locator(cardTitled(page, "Bob's tool")).ToHaveCount(1))
	must(t, expect.Locator(cardTitled(page, "Cy's essay")).ToHaveCount(0))
	must(t, expect.Locator(page.GetByTestId("list-member")).ToHaveCount(2))
	markDocument(t, page)

	// A share by cy does not come into the list; one by bob does, through the pill.
	f.share("cy", "https://cy.example.com/second", "Cy's second essay", 0)
	pollNow(t, page, homePoll)
	pill := page.GetByTestId("new-pill")
	must(t, expect.Locator(pill).ToHaveCount(0))
	f.share("bob", "https://github.com/bob/second", "Bob's second tool", 0)
	must(t, expect.Locator(pill).ToHaveText("1 new", playwright.LocatorAssertionsToHaveTextOptions{Timeout: playwright.Float(10000)}))
	must(t, pill.Click())
	must(t, expect.Locator(cards).ToHaveCount(3))
	must(t, expect.Locator(cards.First()).ToContainText("Bob's second tool"))
	sameDocument(t, page)

	// The home feed still has everyone; made exclusive, the list takes bob's and ada's out.
	must(t, page.GetByTestId("manage-list").Locator("summary").Click())
	must(t, page.GetByTestId("list-exclusive").Click())
	must(t, expect.Locator(page.GetByTestId("flash")).ToContainText("no longer appear in your home feed"))
	must(t, page.GetByTestId("nav-home").Click())
	must(t, expect.Locator(cardTitled(page, "Cy's essay")).ToHaveCount(1))
	must(t, expect.Locator(cardTitled(page, "Ada's paper")).ToHaveCount(0))
	must(t, expect.Locator(cardTitled(page, "Bob's tool")).ToHaveCount(0))
}

// A search typed in the header with an operator finds the author's matching posts, marks
// the words, and scrolls through every result; a query that does not parse says why.
func TestSearchFromHeaderScrolls(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada Lovelace", false)
	f.user("bob", "Bob Builder", false)
	const n = 45 // more than two pages
	for i := range n {
		f.share("ada", fmt.Sprintf("https://arxiv.org/abs/2405.%05d", i), fmt.Sprintf("Quantum error correction, part %d", i), time.Duration(i+1)*time.Minute)
	}
	f.share("bob", "https://arxiv.org/abs/2405.99999", "Quantum advantage claims, revisited", time.Minute)
	f.share("ada", "https://arxiv.org/abs/2405.88888", "Classical shadows", time.Minute)

	page := pageAs(t, srv, "reader")
	box := page.GetByTestId("search-input")
	must(t, box.Fill("from:ada quantum"))
	must(t, box.Press("Enter"))
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/search\?q=from%3Aada\+quantum$`)))
	must(t, expect.Locator(box).ToHaveValue("from:ada quantum"))
	cards := page.GetByTestId("card")
	must(t, expect.Locator(cards.First().Locator("mark")).ToHaveText("Quantum"))
	// Scroll to the last card until every result is there: each scroll waits for the next
	// page's first card.
	for range 10 {
		c, err := cards.Count()
		must(t, err)
		if c >= n {
			break
		}
		must(t, cards.Last().ScrollIntoViewIfNeeded())
		must(t, expect.Locator(cards.Nth(c)).ToBeAttached())
	}
	must(t, expect.Locator(cards).ToHaveCount(n))
	must(t, expect.Locator(page.GetByTestId("end")).ToBeVisible())
	must(t, expect.Locator(page.GetByText("Quantum advantage claims")).ToHaveCount(0))
	must(t, expect.Locator(page.GetByText("Classical shadows")).ToHaveCount(0))

	must(t, box.Fill(`"unterminated`))
	must(t, box.Press("Enter"))
	must(t, expect.Locator(page.GetByTestId("search-error")).ToContainText("position 1"))
	must(t, box.Fill("nothing-matches-this"))
	must(t, box.Press("Enter"))
	must(t, expect.Locator(page.GetByTestId("empty")).ToContainText("No posts or comments match"))
}
