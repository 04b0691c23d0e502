package e2e

import (
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// With polling off, an open home page hears of a followee's share through its live stream
// (server-sent events): the pill appears, and brings the post above the page.
func TestLiveNoticeWithoutPolling(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "3600")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada Lovelace", false)
	f.follow("reader", "ada")
	f.share("ada", "https://blog.example.com/ada/first", "Ada's first post", time.Hour)
	f.refresh()

	page := pageAs(t, srv, "reader")
	var polls atomic.Int32
	poll := regexp.MustCompile(`/feed/new\?`)
	page.OnRequest(func(r playwright.Request) {
		if poll.MatchString(r.URL()) {
			polls.Add(1)
		}
	})
	opened, err := page.ExpectResponse(regexp.MustCompile(`/live\?src=`), func() error {
		_, err := page.Goto(srv.URL + "/")
		return err
	})
	must(t, err)
	if opened.Status() != 200 {
		t.Fatalf("the live stream answered %d", opened.Status())
	}
	cards := page.GetByTestId("card")
	must(t, expect.Locator(cards).ToHaveCount(1))
	pill := page.GetByTestId("new-pill")
	must(t, expect.Locator(pill).ToHaveCount(0))
	markDocument(t, page)

	f.share("ada", "https://blog.example.com/ada/second", "Ada's second post", 0)
	must(t, expect.Locator(pill).ToHaveText("1 new", playwright.LocatorAssertionsToHaveTextOptions{Timeout: playwright.Float(10000)}))
	must(t, pill.Click())
	must(t, expect.Locator(cards).ToHaveCount(2))
	must(t, expect.Locator(cards.First()).ToContainText("Ada's second post"))
	sameDocument(t, page)
	if n := polls.Load(); n != 0 {
		t.Errorf("the page polled %d times with its live stream open", n)
	}
}
