package e2e

import (
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// Assertions wait up to 15 s: browser tests run in parallel on two shared cores.
var expect = playwright.NewPlaywrightAssertions(15000)

func signup(t *testing.T, page playwright.Page, base, handle string) {
	t.Helper()
	_, err := page.Goto(base + "/signup")
	must(t, err)
	must(t, page.GetByLabel("Handle").Fill(handle))
	must(t, page.GetByLabel("Password").Fill("correct horse battery"))
	must(t, page.GetByTestId("signup-submit").Click())
	must(t, expect.Locator(page.GetByTestId("nav-me")).ToHaveText("@"+handle))
}

func share(t *testing.T, page playwright.Page, base, url, title string) {
	t.Helper()
	_, err := page.Goto(base + "/share")
	must(t, err)
	must(t, page.GetByLabel("URL").Fill(url))
	must(t, page.GetByLabel("Title").Fill(title))
	must(t, page.GetByLabel("Comment").Fill("Worth reading."))
	must(t, page.GetByTestId("share-submit").Click())
	must(t, expect.Locator(page.GetByTestId("flash")).ToHaveText("Shared."))
}

func TestSignupShareAndSeeOwnPage(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	page := newPage(t)
	signup(t, page, srv.URL, "ada")
	share(t, page, srv.URL, "https://arxiv.org/pdf/2401.12345v2", "Attention, again")

	// The share lands on ada's own page as a card, with the URL fields derived.
	card := page.GetByTestId("card")
	must(t, expect.Locator(card).ToHaveCount(1))
	must(t, expect.Locator(card).ToContainText("Attention, again"))
	must(t, expect.Locator(card).ToContainText("arXiv"))
	must(t, expect.Locator(card).ToHaveAttribute("data-item-id", regexp.MustCompile(`^[0-9]+$`)))
	must(t, expect.Page(page).ToHaveURL(srv.URL+"/u/ada"))
}

func TestFollowerSeesShareOnHome(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	ada, grace := newPage(t), newPage(t)
	signup(t, ada, srv.URL, "ada")
	share(t, ada, srv.URL, "https://github.com/golang/go/tree/master/src", "The Go repository")

	signup(t, grace, srv.URL, "grace")
	must(t, expect.Locator(grace.GetByTestId("card")).ToHaveCount(0))
	_, err := grace.Goto(srv.URL + "/u/ada")
	must(t, err)
	must(t, grace.GetByTestId("follow").Click())
	must(t, expect.Locator(grace.GetByTestId("unfollow")).ToBeVisible())
	must(t, grace.GetByTestId("nav-home").Click())
	cards := grace.GetByTestId("card")
	must(t, expect.Locator(cards).ToHaveCount(1))
	must(t, expect.Locator(cards).ToContainText("The Go repository"))
	must(t, expect.Locator(cards).ToContainText("GitHub"))
}

func TestBadSignupShowsMessage(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	page := newPage(t)
	_, err := page.Goto(srv.URL + "/signup")
	must(t, err)
	must(t, page.GetByLabel("Handle").Fill("bad handle!"))
	must(t, page.GetByLabel("Password").Fill("correct horse battery"))
	must(t, page.GetByTestId("signup-submit").Click())
	must(t, expect.Locator(page.GetByTestId("error-handle")).ToContainText("may use only letters"))
}

var regexpSeen = regexp.MustCompile(`\bseen\b`)
