package e2e

import (
	"context"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"tributary"
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

// An open page's cards follow their conversation and their access live: a comment and a like
// show on the card (a half-written comment stays), and when the author goes private the
// cards leave the page of a reader who may no longer read them.
func TestLiveCardsFollowTalkAndAccess(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "3600")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada Lovelace", false)
	f.user("bob", "Bob Stone", false)
	first := filterPost(f, "ada", "https://blog.example.com/ada/one", "Ada's first post", "", nil, 30*time.Hour)
	filterPost(f, "ada", "https://blog.example.com/ada/two", "Ada's second post", "", nil, 29*time.Hour)

	page := pageAs(t, srv, "reader")
	_, err := page.ExpectResponse(regexp.MustCompile(`/live\?src=`), func() error {
		_, err := page.Goto(srv.URL + "/u/ada")
		return err
	})
	must(t, err)
	cards := page.GetByTestId("card")
	must(t, expect.Locator(cards).ToHaveCount(2))
	card := cardTitled(page, "Ada's first post")
	must(t, expect.Locator(card.GetByTestId("comments-link")).ToHaveText("No comments"))
	must(t, card.GetByTestId("comment-toggle").Click())
	must(t, card.GetByTestId("comment-body").Fill("A thought I have not sent yet"))
	markDocument(t, page)

	live := playwright.LocatorAssertionsToHaveTextOptions{Timeout: playwright.Float(10000)}
	if _, _, err := f.store.AddComment(context.Background(), viewerOf(f, "bob"), first, "Worth reading.", time.Now(),
		tributary.DefaultBumpRule); err != nil {
		t.Fatal(err)
	}
	must(t, expect.Locator(card.GetByTestId("comments-link")).ToHaveText("1 comment", live))
	likeAs(f, "bob", first, time.Now())
	must(t, expect.Locator(card.GetByTestId("like-count")).ToHaveText("1 like", live))
	must(t, expect.Locator(card.GetByTestId("likers")).ToContainText("Bob Stone"))
	must(t, expect.Locator(card.GetByTestId("comment-body")).ToHaveValue("A thought I have not sent yet"))
	sameDocument(t, page)

	if err := f.store.SetVisibility(context.Background(), f.users["ada"].ID, "private", time.Now()); err != nil {
		t.Fatal(err)
	}
	must(t, expect.Locator(cards).ToHaveCount(0, playwright.LocatorAssertionsToHaveCountOptions{Timeout: playwright.Float(10000)}))
	sameDocument(t, page)
}
