package e2e

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"tributary"
)

// shareTagged is a share of the fixture's with tags.
func (f *fixture) shareTagged(handle, url, title string, ago time.Duration, tags ...string) {
	f.t.Helper()
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: f.users[handle].ID, URL: url, Title: title, Tags: tags,
		CreatedAt: time.Now().Add(-ago)})
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.store.CreatePost(context.Background(), p); err != nil {
		f.t.Fatal(err)
	}
}

// A newcomer's first run: sign up, pick tags, see suggestions (the tags' sharers, trusted
// members), follow three in place (focus stays on the button), and the home feed has their
// items, with the front page's items below it instead of an empty feed.
func TestNewcomerFirstRun(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("vera", "Vera Vip", true)
	f.user("victor", "Victor Vip", true)
	f.user("tia", "Tia Tagger", false)
	f.user("pat", "Pat Plain", false)
	f.shareTagged("tia", "https://arxiv.org/abs/2401.20001", "Tia on sparse models", 2*time.Hour, "ml")
	f.shareTagged("pat", "https://blog.example.com/pat", "Pat's garden", 2*time.Hour, "gardening")
	f.share("vera", "https://arxiv.org/abs/2401.20002", "Vera's paper", 3*time.Hour)
	f.share("victor", "https://github.com/acme/victor", "Victor's repository", 4*time.Hour)
	f.refresh()

	page := newPage(t)
	signup(t, page, srv.URL, "newt")
	must(t, expect.Page(page).ToHaveURL(srv.URL+"/welcome"))
	must(t, page.GetByRole("checkbox", playwright.PageGetByRoleOptions{Name: "#ml"}).Check())
	must(t, page.GetByTestId("welcome-next").Click())
	must(t, expect.Page(page).ToHaveURL(srv.URL+"/people"))
	people := page.GetByTestId("suggestions").GetByTestId("person")
	must(t, expect.Locator(people).ToHaveCount(3)) // tia for the tag, then the trusted members; not pat
	must(t, expect.Locator(people.First()).ToHaveAttribute("data-handle", "tia"))
	must(t, expect.Locator(people.First().GetByTestId("person-why")).ToHaveText("Shared 1 post on your tags lately"))

	for _, h := range []string{"tia", "vera", "victor"} {
		row := page.Locator(`[data-testid="suggestions"] [data-handle="` + h + `"]`)
		must(t, row.GetByTestId("person-follow").Click())
		following := row.GetByTestId("person-unfollow")
		must(t, expect.Locator(following).ToHaveText(regexp.MustCompile(`^Following @`+h)))
		must(t, expect.Locator(following).ToBeFocused())
	}

	must(t, page.GetByTestId("nav-home").Click())
	feed := page.GetByTestId("feed")
	for _, title := range []string{"Tia on sparse models", "Vera's paper", "Victor's repository"} {
		must(t, expect.Locator(feed).ToContainText(title))
	}
	must(t, expect.Locator(feed.GetByTestId("card")).ToHaveCount(3))
	must(t, expect.Locator(page.GetByTestId("empty")).ToHaveCount(0))
	// Still a newcomer (three followees), but nobody is left to suggest: pat shares no picked
	// tag and is no trusted member.
	must(t, expect.Locator(page.GetByTestId("suggestions")).ToHaveCount(0))

	// Another newcomer, following nobody, gets the front page's items marked, not "empty".
	other := newPage(t)
	signup(t, other, srv.URL, "otto")
	_, err := other.Goto(srv.URL + "/")
	must(t, err)
	popular := other.GetByTestId("popular")
	must(t, expect.Locator(popular.GetByTestId("card")).ToHaveCount(2))
	must(t, expect.Locator(popular.GetByTestId("popular-mark").First()).ToHaveText("Popular now"))
	must(t, expect.Locator(other.GetByTestId("empty")).ToHaveCount(0))
	must(t, expect.Locator(other.GetByTestId("suggestions").GetByTestId("person")).ToHaveCount(2))
	_, err = other.Goto(srv.URL + "/people?q=pat")
	must(t, err)
	must(t, expect.Locator(other.GetByTestId("people-results").GetByTestId("person")).ToHaveAttribute("data-handle", "pat"))
}
