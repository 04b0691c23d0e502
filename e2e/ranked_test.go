package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
	"golang.org/x/crypto/bcrypt"

	"tributary"
	"tributary/db"
)

// fixture writes straight into the server's database: what the UI cannot do (VIPs).
type fixture struct {
	t     *testing.T
	store *db.Store
	users map[string]tributary.User
}

func newFixture(t *testing.T, srv *server) *fixture {
	t.Helper()
	pool, err := db.Open(context.Background(), srv.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return &fixture{t: t, store: db.NewStore(pool), users: map[string]tributary.User{}}
}

var passwordHash = func() string {
	h, _ := bcrypt.GenerateFromPassword([]byte("correct horse battery"), bcrypt.MinCost)
	return string(h)
}()

func (f *fixture) user(handle, name string, vip bool) {
	f.t.Helper()
	u, err := f.store.CreateUser(context.Background(), db.NewUser{Handle: handle, DisplayName: name, VIP: vip,
		PasswordHash: passwordHash, CreatedAt: time.Now()})
	if err != nil {
		f.t.Fatal(err)
	}
	f.users[handle] = u
}

func (f *fixture) share(handle, url, title string, ago time.Duration, links ...tributary.Link) {
	f.t.Helper()
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: f.users[handle].ID, URL: url, Title: title, Links: links,
		CreatedAt: time.Now().Add(-ago)})
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.store.CreatePost(context.Background(), p); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) follow(follower, followed string) {
	f.t.Helper()
	if _, err := f.store.Follow(context.Background(), f.users[follower].ID, f.users[followed].ID); err != nil {
		f.t.Fatal(err)
	}
}

// refresh rebuilds the snapshot and waits until the server has heard of the fixture's
// changes, so that none of them clears its anonymous cache after the test's first request.
func (f *fixture) refresh() {
	f.t.Helper()
	ctx := context.Background()
	// The server's own refresh at start may still hold the refresh lock: this one waits for
	// it rather than be skipped.
	for {
		if err := f.store.AwaitRefresh(ctx); err != nil {
			f.t.Fatal(err)
		}
		res, err := f.store.RefreshSnapshot(ctx, time.Now())
		if err != nil {
			f.t.Fatal(err)
		}
		if !res.Skipped {
			break
		}
	}
	token, err := f.store.Wake(ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		n, err := f.store.Lagging(ctx, token, 5*time.Second)
		if err != nil {
			f.t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("the server has not caught up after the fixture's changes (%d lagging)", n)
		}
	}
}

func login(t *testing.T, page playwright.Page, base, handle string) {
	t.Helper()
	loginWith(t, page, base, handle, "correct horse battery")
}

// loginWith logs handle in through the log-in form with password.
func loginWith(t *testing.T, page playwright.Page, base, handle, password string) {
	t.Helper()
	_, err := page.Goto(base + "/login")
	must(t, err)
	must(t, page.GetByLabel("Handle").Fill(handle))
	must(t, page.GetByLabel("Password").Fill(password))
	must(t, page.GetByTestId("login-submit").Click())
	must(t, expect.Locator(page.GetByTestId("nav-me")).ToHaveText("@"+handle))
}

func TestAnonymousFrontPageShowsRankedCards(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	f := newFixture(t, srv)
	f.user("vera", "Vera VIP", true)
	f.user("nobody", "No Body", false)
	f.share("vera", "https://arxiv.org/abs/2401.11111", "A scientific paper", 2*time.Hour)
	f.share("vera", "https://blog.example.com/essay", "A blog essay", time.Hour)
	f.share("nobody", "https://arxiv.org/abs/2401.22222", "Not from a VIP", time.Hour)
	f.refresh()

	page := newPage(t)
	_, err := page.Goto(srv.URL + "/")
	must(t, err)
	cards := page.GetByTestId("card")
	must(t, expect.Locator(cards).ToHaveCount(2))
	// Ranked, not chronological: the paper (sci ×6) outranks the newer blog post.
	must(t, expect.Locator(cards.First()).ToContainText("A scientific paper"))
	must(t, expect.Locator(cards.Nth(1)).ToContainText("A blog essay"))
	must(t, expect.Locator(page.GetByTestId("feed")).ToHaveAttribute("data-path", "snapshot"))
	// Reloading within a minute is served from the anonymous cache.
	_, err = page.Reload()
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("feed")).ToHaveAttribute("data-path", "cache"))
	// "Why am I seeing this" opens inline with the score's terms.
	must(t, cards.First().GetByText("Why am I seeing this?").Click())
	must(t, expect.Locator(cards.First().GetByTestId("why")).ToContainText("Scientific source"))
}

func TestPaperAndTweetsCollapseIntoOneCard(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada Lovelace", false)
	f.user("bob", "Bob Builder", false)
	f.user("cy", "Cy Twitter", false)
	for _, h := range []string{"ada", "bob", "cy"} {
		f.follow("reader", h)
	}
	f.share("ada", "https://arxiv.org/pdf/2401.33333v2", "Sparse attention at scale", 3*time.Hour)
	f.share("bob", "https://twitter.com/bob/status/42?s=20", "Bob on the sparse attention paper", 2*time.Hour,
		tributary.Link{URL: "https://arxiv.org/abs/2401.33333", Image: "/preview/sparse.svg"})
	f.share("cy", "https://x.com/cy/status/43", "Cy on it too", time.Hour, tributary.Link{URL: "https://arxiv.org/abs/2401.33333v1"})
	f.share("cy", "https://github.com/acme/other", "Something else", time.Hour)
	f.refresh()

	page := newPage(t)
	login(t, page, srv.URL, "reader")
	cards := page.GetByTestId("card")
	must(t, expect.Locator(cards).ToHaveCount(2))
	paper := cards.Filter(playwright.LocatorFilterOptions{HasText: "arXiv"})
	must(t, expect.Locator(paper).ToHaveCount(1))
	must(t, expect.Locator(paper).ToHaveAttribute("data-sharers", "3"))
	must(t, expect.Locator(paper.Locator(".stack .avatar")).ToHaveCount(3))
	must(t, expect.Locator(paper).ToContainText("and 2 others"))
}
