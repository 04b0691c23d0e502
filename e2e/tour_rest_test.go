package e2e

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"tributary"
)

// The rest of the newcomer's tour (issue 44, point 18): Hide can be undone without
// JavaScript, and a user page's follower and following counts lead to their lists.

// Without JavaScript, Hide posts a form and comes back to the feed with a notice holding an
// Undo that brings the card back.
func TestHideUndoWithoutJavaScript(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada Lovelace", false)
	f.follow("reader", "ada")
	const paper = "A paper to hide and bring back"
	filterPost(f, "ada", "https://arxiv.org/abs/2402.04321", paper, "", nil, 3*time.Hour)
	filterPost(f, "ada", "https://blog.example.com/ada/stays", "A post that stays", "", nil, 4*time.Hour)
	f.refresh()

	page := newPageWith(t, playwright.BrowserNewContextOptions{JavaScriptEnabled: playwright.Bool(false)})
	login(t, page, srv.URL, "reader")
	_, err := page.Goto(srv.URL + "/")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("card")).ToHaveCount(2))
	must(t, cardTitled(page, paper).GetByTestId("hide").Click())
	must(t, expect.Locator(page.GetByTestId("flash")).ToContainText("Hidden from your feeds."))
	must(t, expect.Locator(cardTitled(page, paper)).ToHaveCount(0))
	if u := page.URL(); strings.TrimSuffix(u, "?") != srv.URL+"/" {
		t.Errorf("after Hide the page is %s, want the feed", u)
	}

	must(t, page.GetByTestId("flash").GetByTestId("flash-undo").Click())
	must(t, expect.Locator(page.GetByTestId("flash")).ToHaveText("Back in your feeds."))
	if u := page.URL(); strings.TrimSuffix(u, "?") != srv.URL+"/" {
		t.Errorf("after Undo the page is %s, want the feed", u)
	}
	must(t, expect.Locator(cardTitled(page, paper)).ToHaveCount(1))
	must(t, expect.Locator(page.GetByTestId("card")).ToHaveCount(2))
}

// The counts on a user page are links to the lists they count.
func TestFollowCountsLeadToTheirLists(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("ada", "Ada Lovelace", false)
	f.user("bob", "Bob Builder", false)
	f.user("cy", "Cy Young", false)
	f.follow("bob", "ada")
	f.follow("cy", "ada")
	f.follow("ada", "cy")

	page := newPage(t)
	_, err := page.Goto(srv.URL + "/u/ada")
	must(t, err)
	must(t, page.GetByTestId("followers-link").Click())
	must(t, expect.Locator(page.GetByTestId("feed-heading")).ToHaveText("Followers of Ada Lovelace"))
	people := page.GetByTestId("follow-list-person")
	must(t, expect.Locator(people).ToHaveText([]string{"Bob Builder @bob", "Cy Young @cy"}))
	must(t, people.GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "Cy Young"}).Click())
	must(t, expect.Locator(page.GetByTestId("following-count")).ToHaveText("1"))
	must(t, page.GetByTestId("following-link").Click())
	must(t, expect.Locator(page.GetByTestId("feed-heading")).ToHaveText("People Cy Young follows"))
	must(t, expect.Locator(people).ToHaveText([]string{"Ada Lovelace @ada"}))
}

// An author's edit reaches the open pages that show the post's card, over their live
// streams: the reader sees the new title, text and tags marked "edited", without a reload
// (issue 44, point 13).
func TestLiveCardsFollowAnEdit(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "3600")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada Lovelace", false)
	post := filterPost(f, "ada", "https://blog.example.com/ada/draft", "Ada's first draft", "Rough notes.", nil, 30*time.Hour)

	page := pageAs(t, srv, "reader")
	_, err := page.ExpectResponse(regexp.MustCompile(`/live\?src=`), func() error {
		_, err := page.Goto(srv.URL + "/u/ada")
		return err
	})
	must(t, err)
	card := page.GetByTestId("card")
	must(t, expect.Locator(card).ToHaveCount(1))
	must(t, expect.Locator(card.GetByTestId("edited")).ToHaveCount(0))
	markDocument(t, page)

	e, err := tributary.PrepareEdit("Ada's final word", "Polished notes on #lattices.", []string{"maths"})
	must(t, err)
	must(t, f.store.EditPost(context.Background(), f.users["ada"].ID, post, e, time.Now()))
	live := playwright.LocatorAssertionsToHaveTextOptions{Timeout: playwright.Float(10000)}
	must(t, expect.Locator(card.Locator(".card-title")).ToHaveText("Ada's final word", live))
	must(t, expect.Locator(card.Locator(".excerpt")).ToHaveText("Polished notes on #lattices."))
	must(t, expect.Locator(card.GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "#maths"})).ToHaveAttribute("href", "/t/maths"))
	must(t, expect.Locator(card.GetByTestId("edited")).ToBeVisible())
	sameDocument(t, page)
}
