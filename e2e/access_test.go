package e2e

import (
	"testing"
	"time"
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
