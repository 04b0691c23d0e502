package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// Hide and mute in Chromium: a muted word leaves or collapses cards everywhere the reader
// reads, a hidden post leaves and comes back from /hidden.

// A muted word takes the cards with it (title, text or tags; whole words, any case) out of
// the reader's home feed, user and tag feeds and their JSON; in collapse mode they show
// folded behind "show anyway"; unmuting brings them back.
func TestMuteWordHidesThenCollapsesCards(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada Lovelace", false)
	f.user("bob", "Bob Builder", false)
	f.follow("reader", "ada")
	f.follow("reader", "bob")
	physics := []string{"physics"}
	filterPost(f, "ada", "https://blog.example.com/ada/qec", "Quantum error correction, explained", "", physics, 2*time.Hour)
	filterPost(f, "bob", "https://blog.example.com/bob/lattices", "A note on lattices", "", []string{"physics", "quantum"}, 3*time.Hour)
	filterPost(f, "ada", "https://blog.example.com/ada/weekly", "Weekly reading", "Mostly QUANTUM things this week.", physics, 4*time.Hour)
	filterPost(f, "bob", "https://blog.example.com/bob/film", "Quantumania is a film", "", physics, 5*time.Hour)
	filterPost(f, "ada", "https://blog.example.com/ada/garden", "Gardening tips", "", physics, 6*time.Hour)
	f.refresh()
	muted := []string{"Quantum error correction, explained", "A note on lattices", "Weekly reading"}
	kept := []string{"Quantumania is a film", "Gardening tips"}
	all := append(slices.Clone(muted), kept...)
	adas := []string{"Quantum error correction, explained", "Weekly reading", "Gardening tips"}

	page := pageAs(t, srv, "reader")
	cards := page.GetByTestId("card")
	must(t, expect.Locator(cards).ToHaveCount(5))

	// mute mutes word (spelled so that it cleans to "quantum") from /hidden.
	mute := func(word string, collapse bool) {
		t.Helper()
		_, err := page.Goto(srv.URL + "/hidden")
		must(t, err)
		form := page.GetByTestId("mute-form")
		must(t, form.GetByLabel("Word or phrase").Fill(word))
		mode := "hide"
		if collapse {
			mode = "collapse"
		}
		must(t, form.Locator(`input[name="mode"][value="`+mode+`"]`).Check())
		must(t, page.GetByTestId("mute").Click())
		must(t, expect.Locator(page.GetByTestId("flash")).ToHaveText("Muted “quantum”."))
	}
	visit := func(path string) {
		t.Helper()
		_, err := page.Goto(srv.URL + path)
		must(t, err)
	}

	// Left out.
	mute("  Quantum ", false)
	row := page.GetByTestId("mute-row")
	must(t, expect.Locator(row).ToHaveCount(1))
	must(t, expect.Locator(row).ToContainText("quantum"))
	must(t, expect.Locator(row).ToContainText("left out"))
	for _, c := range []struct {
		path string
		want []string
	}{{"/", kept}, {"/u/ada", []string{"Gardening tips"}}, {"/t/physics", kept}} {
		visit(c.path)
		must(t, expect.Locator(page.GetByTestId("feed")).ToBeVisible())
		must(t, expect.Locator(cards).ToHaveCount(len(c.want)))
		if got := cardTitles(t, page); !sameSet(got, c.want) {
			t.Errorf("%s with “quantum” muted shows %q, want %q", c.path, got, c.want)
		}
		must(t, expect.Locator(page.GetByTestId("muted-card")).ToHaveCount(0))
	}
	if got := timelineTitles(t, page, srv.URL); !sameSet(got, kept) {
		t.Errorf("/api/timeline with “quantum” muted has %q, want %q", got, kept)
	}
	if got := chronoTitles(t, page, srv.URL+"/t/physics"); !sameSet(got, kept) {
		t.Errorf("/t/physics?format=json with “quantum” muted has %q, want %q", got, kept)
	}

	// Collapsed: the same word again, now folded behind "show anyway".
	mute("quantum", true)
	must(t, expect.Locator(row).ToHaveCount(1))
	must(t, expect.Locator(row).ToContainText("collapsed"))
	for _, c := range []struct {
		path        string
		all, folded []string
	}{{"/", all, muted}, {"/t/physics", all, muted}} {
		visit(c.path)
		must(t, expect.Locator(cards).ToHaveCount(len(c.all)))
		folded := page.GetByTestId("muted-card")
		must(t, expect.Locator(folded).ToHaveCount(len(c.folded)))
		must(t, expect.Locator(folded.Locator(":scope > summary")).ToHaveText(slices.Repeat([]string{"Muted: “quantum” · show anyway"}, len(c.folded))))
		for _, title := range c.folded {
			box := folded.Filter(playwright.LocatorFilterOptions{HasText: title})
			must(t, expect.Locator(box).ToHaveCount(1))
			must(t, expect.Locator(box.GetByTestId("card")).ToBeHidden())
		}
		for _, title := range c.all {
			if !slices.Contains(c.folded, title) {
				must(t, expect.Locator(cardTitled(page, title)).ToBeVisible())
			}
		}
	}
	// On /t/physics (the last page): "show anyway" opens a folded card.
	box := page.GetByTestId("muted-card").Filter(playwright.LocatorFilterOptions{HasText: "Weekly reading"})
	must(t, box.Locator(":scope > summary").Click())
	must(t, expect.Locator(box.GetByTestId("card")).ToBeVisible())
	must(t, expect.Locator(box.GetByTestId("card")).ToContainText("Mostly QUANTUM things this week."))
	visit("/")
	box = page.GetByTestId("muted-card").Filter(playwright.LocatorFilterOptions{HasText: "A note on lattices"})
	must(t, box.Locator(":scope > summary").Click())
	must(t, expect.Locator(box.GetByTestId("card")).ToBeVisible())
	var tl struct {
		Items []struct {
			Title string `json:"title"`
			Muted string `json:"muted"`
		} `json:"items"`
	}
	getJSON(t, page, srv.URL+"/api/timeline", &tl)
	for _, it := range tl.Items {
		want := ""
		if slices.Contains(muted, it.Title) {
			want = "quantum"
		}
		if it.Muted != want {
			t.Errorf("/api/timeline: %q has muted %q, want %q", it.Title, it.Muted, want)
		}
	}
	if len(tl.Items) != 5 {
		t.Errorf("/api/timeline with “quantum” collapsed has %d items, want 5", len(tl.Items))
	}

	// Unmuted: everything is back, unfolded.
	visit("/hidden")
	must(t, row.GetByTestId("unmute").Click())
	must(t, expect.Locator(page.GetByTestId("flash")).ToHaveText("Unmuted “quantum”."))
	must(t, expect.Locator(row).ToHaveCount(0))
	for _, c := range []struct {
		path string
		want []string
	}{{"/", all}, {"/u/ada", adas}} {
		visit(c.path)
		must(t, expect.Locator(cards).ToHaveCount(len(c.want)))
		must(t, expect.Locator(page.GetByTestId("muted-card")).ToHaveCount(0))
		if got := cardTitles(t, page); !sameSet(got, c.want) {
			t.Errorf("%s after unmuting shows %q, want %q", c.path, got, c.want)
		}
	}
}

// "Hide" swaps the card for a stub with an undo; hidden, the item (both shares of its link)
// leaves the home feed, the sharers' pages and the JSON until "Unhide" on /hidden.
func TestHidePostAndUnhideIt(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada Lovelace", false)
	f.user("bob", "Bob Builder", false)
	f.follow("reader", "ada")
	f.follow("reader", "bob")
	const paper, bobsShare = "A paper to hide", "Bob on the paper"
	filterPost(f, "ada", "https://arxiv.org/abs/2402.01234", paper, "", nil, 3*time.Hour)
	filterPost(f, "bob", "https://arxiv.org/pdf/2402.01234v1", bobsShare, "", nil, 2*time.Hour)
	filterPost(f, "ada", "https://blog.example.com/ada/keep", "Keep me", "", nil, 4*time.Hour)
	filterPost(f, "bob", "https://blog.example.com/bob/keep", "Keep me too", "", nil, 5*time.Hour)
	f.refresh()

	page := pageAs(t, srv, "reader")
	cards := page.GetByTestId("card")
	must(t, expect.Locator(cards).ToHaveCount(3))
	item := page.Locator(`[data-testid="card"][data-sharers="2"]`)
	must(t, expect.Locator(item).ToHaveCount(1))
	itemTitle, err := item.Locator(".card-title").TextContent()
	must(t, err)
	itemTitle = strings.TrimSpace(itemTitle)
	markDocument(t, page)

	// Hide, then undo, in place.
	must(t, item.GetByTestId("hide").Click())
	stub := page.GetByTestId("hidden-stub")
	must(t, expect.Locator(stub).ToContainText("Hidden from your feeds."))
	must(t, expect.Locator(cards).ToHaveCount(2))
	must(t, stub.GetByTestId("undo-hide").Click())
	must(t, expect.Locator(page.GetByTestId("unhidden-stub")).ToHaveText("Back in your feeds."))
	sameDocument(t, page)
	_, err = page.Reload()
	must(t, err)
	must(t, expect.Locator(cards).ToHaveCount(3))

	// Hide it for good: gone after a reload, from every feed of the reader.
	must(t, item.GetByTestId("hide").Click())
	must(t, expect.Locator(stub).ToHaveCount(1))
	hiddenPost, err := stub.GetAttribute("data-post-id")
	must(t, err)
	_, err = page.Reload()
	must(t, err)
	must(t, expect.Locator(cards).ToHaveCount(2))
	must(t, expect.Locator(stub).ToHaveCount(0))
	for _, title := range []string{paper, bobsShare} {
		must(t, expect.Locator(page.GetByTestId("feed")).Not().ToContainText(title))
	}
	if got := timelineTitles(t, page, srv.URL); slices.Contains(got, itemTitle) || len(got) != 2 {
		t.Errorf("/api/timeline after hiding %q has %q", itemTitle, got)
	}
	for _, u := range []struct{ handle, kept, gone string }{{"ada", "Keep me", paper}, {"bob", "Keep me too", bobsShare}} {
		_, err = page.Goto(srv.URL + "/u/" + u.handle)
		must(t, err)
		must(t, expect.Locator(cards).ToHaveCount(1))
		must(t, expect.Locator(cards).ToContainText(u.kept))
		if got := chronoTitles(t, page, srv.URL+"/u/"+u.handle); !slices.Equal(got, []string{u.kept}) {
			t.Errorf("/u/%s?format=json after hiding has %q, want only %q", u.handle, got, u.kept)
		}
	}

	// /hidden lists it; "Unhide" brings it back everywhere.
	_, err = page.Goto(srv.URL + "/hidden")
	must(t, err)
	rows := page.GetByTestId("hidden-row")
	must(t, expect.Locator(rows).ToHaveCount(1))
	must(t, expect.Locator(rows).ToHaveAttribute("data-post-id", hiddenPost))
	must(t, rows.GetByTestId("unhide").Click())
	must(t, expect.Locator(page.GetByTestId("flash")).ToHaveText("Back in your feeds."))
	must(t, expect.Locator(rows).ToHaveCount(0))
	must(t, expect.Locator(page.GetByTestId("empty")).ToBeVisible())
	must(t, page.GetByTestId("nav-home").Click())
	must(t, expect.Locator(cards).ToHaveCount(3))
	must(t, expect.Locator(cardTitled(page, itemTitle)).ToHaveCount(1))
	_, err = page.Goto(srv.URL + "/u/bob")
	must(t, err)
	must(t, expect.Locator(cards).ToHaveCount(2))

	// A post card on a user's page hides the same way.
	keep := cardTitled(page, "Keep me too")
	must(t, keep.GetByTestId("hide").Click())
	must(t, expect.Locator(stub).ToHaveCount(1))
	must(t, expect.Locator(cards).ToHaveCount(1))
	_, err = page.Reload()
	must(t, err)
	must(t, expect.Locator(cards).ToHaveCount(1))
	must(t, expect.Locator(cards).ToContainText(bobsShare))
	must(t, page.GetByTestId("nav-home").Click())
	must(t, expect.Locator(cards).ToHaveCount(2))
	must(t, expect.Locator(page.GetByTestId("feed")).Not().ToContainText("Keep me too"))
}
