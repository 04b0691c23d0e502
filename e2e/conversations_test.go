package e2e

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"tributary"
)

// Conversations: likes and comments on cards, post pages and item pages, with and without
// JavaScript.

// sharedPost shares url as handle, an hour ago, and returns the post's id.
func sharedPost(f *fixture, handle, url, title string) int64 {
	f.t.Helper()
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: f.users[handle].ID, URL: url, Title: title,
		CreatedAt: time.Now().Add(-time.Hour)})
	if err != nil {
		f.t.Fatal(err)
	}
	id, err := f.store.CreatePost(context.Background(), p)
	if err != nil {
		f.t.Fatal(err)
	}
	return id
}

// pageAs opens a page with handle logged in.
func pageAs(t *testing.T, srv *server, handle string) playwright.Page {
	t.Helper()
	page := newPage(t)
	login(t, page, srv.URL, handle)
	return page
}

// cardTitled is the card of the page whose title is title.
func cardTitled(page playwright.Page, title string) playwright.Locator {
	return page.GetByTestId("card").Filter(playwright.LocatorFilterOptions{HasText: title})
}

// markDocument marks the open document; sameDocument then tells it was not replaced by a
// reload or a navigation.
func markDocument(t *testing.T, page playwright.Page) {
	t.Helper()
	_, err := page.Evaluate("() => { window.__conversationMark = true }")
	must(t, err)
}

func sameDocument(t *testing.T, page playwright.Page) {
	t.Helper()
	v, err := page.Evaluate("() => window.__conversationMark === true")
	must(t, err)
	if v != true {
		t.Fatalf("the page was reloaded (now at %s); want the action done in place", page.URL())
	}
}

// writeComment submits body from the comment form inside where.
func writeComment(t *testing.T, where playwright.Locator, body string) {
	t.Helper()
	must(t, where.GetByTestId("comment-body").Fill(body))
	must(t, where.GetByTestId("comment-submit").Click())
}

// acceptDialogs accepts every confirm the page asks and hands over its message.
func acceptDialogs(page playwright.Page) <-chan string {
	messages := make(chan string, 10)
	page.OnDialog(func(d playwright.Dialog) {
		messages <- d.Message()
		d.Accept()
	})
	return messages
}

// storedComments counts a post's comments in the database.
func storedComments(t *testing.T, f *fixture, postID int64) int {
	t.Helper()
	var n int
	must(t, f.store.Pool.QueryRow(context.Background(), "SELECT count(*) FROM comments WHERE post_id = $1", postID).Scan(&n))
	return n
}

// talkWorld is "reader", who follows ada, and ada's two posts: one to act on from her page
// (chronological post cards), one from the reader's home feed (ranked item cards).
func talkWorld(t *testing.T) *server {
	t.Helper()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada Lovelace", false)
	f.follow("reader", "ada")
	f.share("ada", "https://blog.example.com/ada/chrono", "Liked on her page", 2*time.Hour)
	f.share("ada", "https://blog.example.com/ada/ranked", "Liked on the home feed", 3*time.Hour)
	f.refresh()
	return srv
}

// talkPlaces are the two kinds of card: where they show and which post each test acts on.
var talkPlaces = []struct{ name, path, title string }{
	{"user page", "/u/ada", "Liked on her page"},
	{"home feed", "/", "Liked on the home feed"},
}

// Liking and commenting from a card swap the card's conversation line in place: the counts
// change, the page stays, and a reload shows them stored.
func TestLikeAndCommentFromACard(t *testing.T) {
	t.Parallel()
	srv := talkWorld(t)
	for _, place := range talkPlaces {
		t.Run(place.name, func(t *testing.T) {
			t.Parallel()
			page := pageAs(t, srv, "reader")
			_, err := page.Goto(srv.URL + place.path)
			must(t, err)
			talk := cardTitled(page, place.title).GetByTestId("talk")
			must(t, expect.Locator(talk.Locator(".talk-bar")).ToHaveAttribute("data-likes", "0"))
			markDocument(t, page)

			must(t, talk.GetByTestId("like").Click())
			must(t, expect.Locator(talk.Locator(".talk-bar")).ToHaveAttribute("data-likes", "1"))
			must(t, expect.Locator(talk.GetByTestId("like-count")).ToHaveText("1 like"))
			liked := talk.GetByTestId("unlike")
			must(t, expect.Locator(liked).ToHaveAttribute("aria-pressed", "true"))
			must(t, expect.Locator(liked).ToContainText("Liked"))
			sameDocument(t, page)

			must(t, liked.Click())
			must(t, expect.Locator(talk.Locator(".talk-bar")).ToHaveAttribute("data-likes", "0"))
			must(t, expect.Locator(talk.GetByTestId("like-count")).ToHaveText("No likes"))
			must(t, expect.Locator(talk.GetByTestId("like")).ToHaveAttribute("aria-pressed", "false"))
			sameDocument(t, page)

			must(t, talk.GetByTestId("comment-toggle").Click())
			writeComment(t, talk, "Worth a second read.")
			must(t, expect.Locator(talk.Locator(".talk-bar")).ToHaveAttribute("data-comments", "1"))
			must(t, expect.Locator(talk.GetByTestId("comments-link")).ToHaveText("1 comment"))
			must(t, expect.Locator(talk.GetByTestId("added")).ToContainText("Worth a second read."))
			must(t, talk.GetByTestId("like").Click())
			must(t, expect.Locator(talk.Locator(".talk-bar")).ToHaveAttribute("data-likes", "1"))
			sameDocument(t, page)

			_, err = page.Reload()
			must(t, err)
			must(t, expect.Locator(talk.Locator(".talk-bar")).ToHaveAttribute("data-comments", "1"))
			must(t, expect.Locator(talk.Locator(".talk-bar")).ToHaveAttribute("data-likes", "1"))
			must(t, expect.Locator(talk.GetByTestId("unlike")).ToHaveAttribute("aria-pressed", "true"))
		})
	}
}

// Without JavaScript the same forms post and come back to the page they were on, updated.
func TestLikeAndCommentWithoutJavaScript(t *testing.T) {
	t.Parallel()
	srv := talkWorld(t)
	for _, place := range talkPlaces {
		t.Run(place.name, func(t *testing.T) {
			t.Parallel()
			page := newPageWith(t, playwright.BrowserNewContextOptions{JavaScriptEnabled: playwright.Bool(false),
				Viewport: &playwright.Size{Width: 1100, Height: 900}})
			login(t, page, srv.URL, "reader")
			_, err := page.Goto(srv.URL + place.path)
			must(t, err)
			// The home feed comes back as "/?" (its base without a cursor): the same page.
			here := regexp.MustCompile("^" + regexp.QuoteMeta(srv.URL+place.path) + `\??$`)
			talk := cardTitled(page, place.title).GetByTestId("talk")

			must(t, talk.GetByTestId("like").Click())
			must(t, expect.Locator(talk.Locator(".talk-bar")).ToHaveAttribute("data-likes", "1"))
			must(t, expect.Page(page).ToHaveURL(here))
			must(t, expect.Locator(talk.GetByTestId("unlike")).ToHaveAttribute("aria-pressed", "true"))

			must(t, talk.GetByTestId("comment-toggle").Click())
			writeComment(t, talk, "Read it twice, without scripts.")
			must(t, expect.Locator(talk.Locator(".talk-bar")).ToHaveAttribute("data-comments", "1"))
			must(t, expect.Page(page).ToHaveURL(here))
			must(t, expect.Locator(talk.GetByTestId("comments-link")).ToHaveText("1 comment"))
			must(t, expect.Locator(talk.Locator(".talk-bar")).ToHaveAttribute("data-likes", "1"))

			must(t, talk.GetByTestId("unlike").Click())
			must(t, expect.Locator(talk.Locator(".talk-bar")).ToHaveAttribute("data-likes", "0"))
			must(t, expect.Page(page).ToHaveURL(here))
		})
	}
}

// On the post page a commenter edits and deletes their comments in place; the post's author
// may delete others' comments on it (not edit them); anyone else gets neither control.
func TestEditAndDeleteComments(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("ada", "Ada Lovelace", false)
	f.user("bob", "Bob Builder", false)
	f.user("cy", "Cy Young", false)
	postURL := fmt.Sprintf("%s/p/%d", srv.URL, sharedPost(f, "ada", "https://blog.example.com/ada/edit", "A post to discuss"))

	bob := pageAs(t, srv, "bob")
	_, err := bob.Goto(postURL)
	must(t, err)
	conv := bob.GetByTestId("conversation")
	comments := conv.GetByTestId("comment")
	writeComment(t, conv, "First thoughts")
	must(t, expect.Locator(comments).ToHaveCount(1))
	writeComment(t, conv, "A second thought")
	must(t, expect.Locator(comments).ToHaveCount(2))
	must(t, expect.Locator(conv).ToHaveAttribute("data-comments", "2"))
	markDocument(t, bob)

	must(t, comments.First().GetByTestId("edit-comment").Click())
	must(t, conv.GetByTestId("edit-body").Fill("First thoughts, revised"))
	must(t, conv.GetByTestId("save-comment").Click())
	must(t, expect.Locator(comments.First().GetByTestId("comment-text")).ToHaveText("First thoughts, revised"))
	must(t, expect.Locator(comments.First().GetByTestId("edited")).ToHaveText("(edited)"))
	must(t, expect.Locator(comments.Nth(1).GetByTestId("edited")).ToHaveCount(0))
	sameDocument(t, bob)

	asked := acceptDialogs(bob)
	must(t, comments.Nth(1).GetByTestId("delete-comment").Click())
	must(t, expect.Locator(comments).ToHaveCount(1))
	must(t, expect.Locator(conv).ToHaveAttribute("data-comments", "1"))
	must(t, expect.Locator(conv).Not().ToContainText("A second thought"))
	if got, want := <-asked, "Delete this comment?"; got != want {
		t.Errorf("confirm asked %q, want %q", got, want)
	}
	sameDocument(t, bob)

	cy := pageAs(t, srv, "cy")
	_, err = cy.Goto(postURL)
	must(t, err)
	must(t, expect.Locator(cy.GetByTestId("comment")).ToHaveCount(1))
	must(t, expect.Locator(cy.GetByTestId("edit-comment")).ToHaveCount(0))
	must(t, expect.Locator(cy.GetByTestId("delete-comment")).ToHaveCount(0))

	ada := pageAs(t, srv, "ada")
	_, err = ada.Goto(postURL)
	must(t, err)
	bobs := ada.GetByTestId("comment").Filter(playwright.LocatorFilterOptions{HasText: "First thoughts, revised"})
	must(t, expect.Locator(bobs.GetByTestId("edit-comment")).ToHaveCount(0))
	acceptDialogs(ada)
	must(t, bobs.GetByTestId("delete-comment").Click())
	must(t, expect.Locator(ada.GetByTestId("comment")).ToHaveCount(0))
	must(t, expect.Locator(ada.GetByTestId("conversation")).ToHaveAttribute("data-comments", "0"))

	_, err = bob.Reload()
	must(t, err)
	must(t, expect.Locator(conv).ToHaveAttribute("data-comments", "0"))
	must(t, expect.Locator(comments).ToHaveCount(0))
}

// The post page lists its comments in order with their mentions and tags as links and names
// its likers; an empty comment is refused with a message and nothing is stored.
func TestPostPageThread(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("ada", "Ada Lovelace", false)
	f.user("bob", "Bob Builder", false)
	f.user("cy", "Cy Young", false)
	id := sharedPost(f, "ada", "https://blog.example.com/ada/thread", "A post with a thread")
	postURL := fmt.Sprintf("%s/p/%d", srv.URL, id)

	bob, cy := pageAs(t, srv, "bob"), pageAs(t, srv, "cy")
	thread := []struct {
		page     playwright.Page
		by, text string
	}{
		{bob, "Bob Builder", "Great read."},
		{cy, "Cy Young", "Thanks @ada, more on #transformers please."},
		{bob, "Bob Builder", "Agreed."},
	}
	for _, p := range []playwright.Page{bob, cy} {
		_, err := p.Goto(postURL)
		must(t, err)
		must(t, p.GetByTestId("like").Click())
		must(t, expect.Locator(p.GetByTestId("unlike")).ToBeVisible())
	}
	for i, c := range thread {
		writeComment(t, c.page.GetByTestId("conversation"), c.text)
		must(t, expect.Locator(c.page.GetByTestId("comment")).ToHaveCount(i+1))
	}

	ada := pageAs(t, srv, "ada")
	_, err := ada.Goto(postURL)
	must(t, err)
	conv := ada.GetByTestId("conversation")
	comments := conv.GetByTestId("comment")
	must(t, expect.Locator(conv).ToHaveAttribute("data-comments", "3"))
	must(t, expect.Locator(conv).ToHaveAttribute("data-likes", "2"))
	must(t, expect.Locator(comments.GetByTestId("comment-text")).ToHaveText([]string{thread[0].text, thread[1].text, thread[2].text}))
	for i, c := range thread {
		must(t, expect.Locator(comments.Nth(i)).ToContainText(c.by))
	}
	likers := conv.GetByTestId("likers")
	must(t, expect.Locator(likers).ToContainText("Liked by"))
	must(t, expect.Locator(likers.GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "Bob Builder"})).ToHaveAttribute("href", "/u/bob"))
	must(t, expect.Locator(likers.GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "Cy Young"})).ToHaveAttribute("href", "/u/cy"))
	mentioning := comments.Nth(1)
	must(t, expect.Locator(mentioning.GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "#transformers"})).ToHaveAttribute("href", "/t/transformers"))
	must(t, expect.Locator(mentioning.GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "@ada"})).ToHaveAttribute("href", "/u/ada"))

	// A comment of nothing but spaces passes the browser's own check (required) and is
	// refused by the server, with and without JavaScript; neither is stored.
	writeComment(t, conv, "   ")
	must(t, expect.Locator(conv.GetByTestId("comment-error")).ToHaveText("Write something to comment."))

	noJS := newPageWith(t, playwright.BrowserNewContextOptions{JavaScriptEnabled: playwright.Bool(false)})
	login(t, noJS, srv.URL, "ada")
	_, err = noJS.Goto(postURL)
	must(t, err)
	writeComment(t, noJS.GetByTestId("conversation"), "   ")
	must(t, expect.Locator(noJS.GetByTestId("comment-error")).ToHaveText("Write something to comment."))

	if got := storedComments(t, f, id); got != 3 {
		t.Errorf("%d comments stored after the refused ones, want 3", got)
	}
	_, err = ada.Reload()
	must(t, err)
	must(t, expect.Locator(conv).ToHaveAttribute("data-comments", "3"))
}

// Two shares of one link: the item page shows both, each with its own discussion, and the
// item card's comments link on the home feed leads there.
func TestItemPageGathersShares(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada Lovelace", false)
	f.user("bob", "Bob Builder", false)
	f.follow("reader", "ada")
	f.follow("reader", "bob")
	sharedPost(f, "ada", "https://arxiv.org/abs/2401.55555", "Sparse mixtures of experts")
	sharedPost(f, "bob", "https://arxiv.org/pdf/2401.55555v1", "Bob on sparse mixtures")
	f.refresh()

	page := pageAs(t, srv, "reader")
	card := page.GetByTestId("card")
	must(t, expect.Locator(card).ToHaveCount(1))
	must(t, expect.Locator(card).ToHaveAttribute("data-sharers", "2"))
	anchor, err := card.GetAttribute("data-item-id")
	must(t, err)
	itemURL := srv.URL + "/i/" + anchor
	_, err = page.Goto(itemURL)
	must(t, err)
	// The first share opens the discussion; the other, not yet talked about, is listed.
	shares := page.GetByTestId("share")
	must(t, expect.Locator(shares).ToHaveCount(1))
	adas := shares.Filter(playwright.LocatorFilterOptions{HasText: "Ada Lovelace"})
	must(t, expect.Locator(adas).ToHaveCount(1))
	quiet := page.GetByTestId("quiet-shares")
	must(t, expect.Locator(quiet).ToContainText("Bob Builder"))
	writeComment(t, adas.GetByTestId("conversation"), "On Ada's share")
	must(t, expect.Locator(adas.GetByTestId("comment-text")).ToHaveText([]string{"On Ada's share"}))

	// Bob's share has its own discussion, on its page.
	must(t, quiet.GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "Bob Builder"}).Locator("xpath=following-sibling::a[1]").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/p/[0-9]+$`)))
	writeComment(t, page.GetByTestId("conversation"), "On Bob's share")
	// As a reader would: the comment shows before the like (without a live stream, the
	// comment's answer, made before the like, would otherwise swap the like's count back).
	must(t, expect.Locator(page.GetByTestId("comment-text")).ToHaveText([]string{"On Bob's share"}))
	must(t, page.GetByTestId("like").Click())
	must(t, expect.Locator(page.GetByTestId("conversation")).ToHaveAttribute("data-likes", "1"))

	// Back on the item page both shares show, each with its own thread and likes.
	_, err = page.Goto(itemURL)
	must(t, err)
	must(t, expect.Locator(shares).ToHaveCount(2))
	bobs := shares.Filter(playwright.LocatorFilterOptions{HasText: "Bob Builder"})
	must(t, expect.Locator(bobs.GetByTestId("comment-text")).ToHaveText([]string{"On Bob's share"}))
	must(t, expect.Locator(bobs.GetByTestId("conversation")).ToHaveAttribute("data-likes", "1"))
	must(t, expect.Locator(adas.GetByTestId("conversation")).ToHaveAttribute("data-likes", "0"))
	must(t, expect.Locator(adas.GetByTestId("comment-text")).ToHaveText([]string{"On Ada's share"}))

	// The home feed's card counts both discussions and leads to them.
	must(t, page.GetByTestId("nav-home").Click())
	talk := card.GetByTestId("talk")
	must(t, expect.Locator(talk.Locator(".talk-bar")).ToHaveAttribute("data-comments", "2"))
	must(t, expect.Locator(talk.GetByTestId("comments-link")).ToHaveText("2 comments"))
	must(t, talk.GetByTestId("comments-link").Click())
	must(t, expect.Page(page).ToHaveURL(itemURL))
	must(t, expect.Locator(shares).ToHaveCount(2))
}
