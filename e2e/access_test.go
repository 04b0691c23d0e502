package e2e

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"tributary"
	"tributary/db"
)

// A private account's post: invisible to a user who is not approved, visible after approval,
// gone again after removal, also on the feed page whose fencepost was committed before the
// removal.
func TestPrivateAccountApproveAndRemove(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("priv", "Pri Vate", false)
	f.user("reader", "Rea Der", false)
	f.user("pub", "Pub Lic", false)
	f.follow("reader", "pub")
	f.share("pub", "https://blog.example.com/public-note", "A public note", 3*time.Hour)

	owner := newPage(t)
	login(t, owner, srv.URL, "priv")
	_, err := owner.Goto(srv.URL + "/settings")
	must(t, err)
	must(t, owner.GetByTestId("visibility-private").Check())
	must(t, owner.GetByTestId("save-visibility").Click())
	must(t, expect.Locator(owner.GetByTestId("flash")).ToHaveText("Your posts are now private."))
	share(t, owner, srv.URL, "https://arxiv.org/abs/2411.12345", "A private paper")

	reader := newPage(t)
	login(t, reader, srv.URL, "reader")
	_, err = reader.Goto(srv.URL + "/u/priv")
	must(t, err)
	must(t, expect.Locator(reader.GetByTestId("private-notice")).ToBeVisible())
	must(t, expect.Locator(reader.GetByTestId("card")).ToHaveCount(0))
	must(t, reader.GetByTestId("follow").Click())
	must(t, expect.Locator(reader.GetByTestId("flash")).ToHaveText("Follow request sent to @priv."))
	must(t, expect.Locator(reader.GetByTestId("card")).ToHaveCount(0))
	must(t, reader.GetByTestId("nav-home").Click())
	must(t, expect.Locator(reader.GetByTestId("card")).ToHaveCount(1)) // only pub's note
	must(t, expect.Locator(reader.GetByTestId("feed")).Not().ToContainText("A private paper"))

	_, err = owner.Goto(srv.URL + "/settings")
	must(t, err)
	must(t, expect.Locator(owner.GetByTestId("request")).ToContainText("@reader"))
	must(t, owner.GetByTestId("approve").Click())
	must(t, expect.Locator(owner.GetByTestId("follower")).ToContainText("@reader"))

	// Approved: the private paper is in the reader's feed, in a newly committed fencepost.
	must(t, reader.GetByTestId("nav-home").Click())
	feed := reader.GetByTestId("feed")
	must(t, expect.Locator(feed).ToContainText("A private paper"))
	fencepost, err := feed.GetAttribute("data-fencepost")
	must(t, err)

	must(t, owner.GetByTestId("remove-follower").Click())
	must(t, expect.Locator(owner.GetByTestId("follower")).ToHaveCount(0))

	// The same committed fencepost is served again, without the paper.
	_, err = reader.Reload()
	must(t, err)
	must(t, expect.Locator(feed).ToHaveAttribute("data-fencepost", fencepost))
	must(t, expect.Locator(feed).Not().ToContainText("A private paper"))
	must(t, expect.Locator(feed).ToContainText("A public note"))
	_, err = reader.Goto(srv.URL + "/u/priv")
	must(t, err)
	must(t, expect.Locator(reader.GetByTestId("card")).ToHaveCount(0))
	// Nor does the anonymous front page or API ever show it.
	anon := newPage(t)
	_, err = anon.Goto(srv.URL + "/u/priv")
	must(t, err)
	must(t, expect.Locator(anon.GetByTestId("card")).ToHaveCount(0))
}

// The people pages and a newcomer's home feed never offer anyone in a ban with the viewer,
// either way, nor their shares; suggestions leave private accounts out; anonymous visitors
// are sent to log in.
func TestPeoplePagesApplyAccess(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("val", "Val Viewer", false)
	f.user("vip", "Vi Pea", true)
	f.user("banner", "Ban Ner", true)
	f.user("banned", "Ban Ned", true)
	f.user("hermit", "Her Mit", true)
	f.share("vip", "https://arxiv.org/abs/2401.30001", "The trusted paper", 2*time.Hour)
	f.share("banner", "https://arxiv.org/abs/2401.30002", "The banner's paper", 2*time.Hour)
	f.share("banned", "https://arxiv.org/abs/2401.30003", "The banned one's paper", 2*time.Hour)
	ctx := context.Background()
	must(t, f.store.Ban(ctx, f.users["banner"].ID, f.users["val"].ID))
	must(t, f.store.Ban(ctx, f.users["val"].ID, f.users["banned"].ID))
	must(t, f.store.SetVisibility(ctx, f.users["hermit"].ID, tributary.AccessPrivate, time.Now()))
	f.refresh()

	anon := newPage(t)
	for _, p := range []string{"/people", "/welcome"} {
		_, err := anon.Goto(srv.URL + p)
		must(t, err)
		must(t, expect.Page(anon).ToHaveURL(regexp.MustCompile(`/login\?next=`)))
	}

	page := pageAs(t, srv, "val")
	must(t, expect.Locator(page.GetByTestId("suggestions").GetByTestId("person")).ToHaveCount(1))
	must(t, expect.Locator(page.GetByTestId("suggestions").GetByTestId("person")).ToHaveAttribute("data-handle", "vip"))
	popular := page.GetByTestId("popular")
	must(t, expect.Locator(popular.GetByTestId("card")).ToHaveCount(1))
	must(t, expect.Locator(popular).ToContainText("The trusted paper"))
	_, err := page.Goto(srv.URL + "/people?q=ban")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("people-none")).ToBeVisible())
	_, err = page.Goto(srv.URL + "/people?q=her")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("people-results").GetByTestId("person")).ToHaveAttribute("data-handle", "hermit"))
	must(t, expect.Locator(page.GetByTestId("suggestions").GetByTestId("person")).ToHaveCount(1))
}

// A notification shows only while its recipient may read its subject: a mention in a post
// that went private leaves /notifications (and its count), a deleted comment's too, a ban
// hides the banned one's; anonymous visitors are sent to log in, and nobody opens another's.
func TestNotificationsFollowAccess(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("bea", "Bea Reader", false)
	f.user("ann", "Ann Writer", false)
	f.user("cy", "Cy Other", false)
	ctx := context.Background()
	post := sharedPost(f, "bea", "https://blog.example.com/bea/paper", "Bea's paper")
	note := filterPost(f, "ann", "https://blog.example.com/ann/note", "Ann's note", "cc @bea", nil, 0)
	// The mention's fan-out job's work, done here (the server's job may run it too: once is once).
	_, err := f.store.FanOut(ctx, db.FanOutArgs{PostID: note})
	must(t, err)
	c, _, err := f.store.AddComment(ctx, viewerOf(f, "ann"), post, "A fine paper", time.Now(), tributary.DefaultBumpRule)
	must(t, err)
	likeAs(f, "cy", post, time.Now())

	page := pageAs(t, srv, "bea")
	lines := page.GetByTestId("notification")
	see := func(n int) {
		t.Helper()
		must(t, expect.Locator(lines).ToHaveCount(n, playwright.LocatorAssertionsToHaveCountOptions{Timeout: playwright.Float(15000)}))
	}
	visit := func() {
		t.Helper()
		_, err := page.Goto(srv.URL + "/notifications")
		must(t, err)
	}
	visit()
	see(3)
	must(t, expect.Locator(page.Locator("#nav-notifications")).ToHaveAttribute("data-unread", "3"))

	must(t, f.store.SetVisibility(ctx, f.users["ann"].ID, "private", time.Now()))
	visit()
	see(2)
	must(t, expect.Locator(page.GetByTestId("notifications")).Not().ToContainText("mentioned you"))
	must(t, expect.Locator(page.Locator("#nav-notifications")).ToHaveAttribute("data-unread", "2"))

	_, err = f.store.DeleteComment(ctx, viewerOf(f, "ann"), c.ID)
	must(t, err)
	must(t, f.store.Ban(ctx, f.users["cy"].ID, f.users["bea"].ID))
	visit()
	see(0)
	must(t, expect.Locator(page.GetByTestId("no-notifications")).ToBeVisible())
	must(t, expect.Locator(page.Locator("#nav-notifications")).ToHaveAttribute("data-unread", "0"))
	must(t, f.store.Unban(ctx, f.users["cy"].ID, f.users["bea"].ID))
	visit()
	see(1) // the like comes back with access
	id, err := lines.GetByTestId("notification-open").GetAttribute("href")
	must(t, err)

	other := pageAs(t, srv, "cy")
	res, err := other.Goto(srv.URL + id)
	must(t, err)
	if res.Status() != 404 {
		t.Errorf("another reader opening %s: status %d, want 404", id, res.Status())
	}
	anon := newPage(t)
	_, err = anon.Goto(srv.URL + "/notifications")
	must(t, err)
	must(t, expect.Page(anon).ToHaveURL(regexp.MustCompile(`/login`)))
}
