package views

import (
	"strings"
	"testing"
	"time"

	"tributary"
)

func renderCard(t *testing.T, it tributary.Item, now time.Time) string {
	t.Helper()
	var b strings.Builder
	if err := ItemCard(it, now, false, nil).Render(t.Context(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestItemCardSaysWhoSharedWhen: a ranked card says "You" for its reader's own share, shows
// beside the sharer it names that sharer's own time (not the item's newest share), and links
// its excerpt's @mentions and #tags.
func TestItemCardSaysWhoSharedWhen(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	selin := tributary.Sharer{UserRef: tributary.UserRef{ID: 2, Handle: "selin", Name: "Selin Huang"}, At: now.AddDate(0, 0, -9), Followed: true}
	other := tributary.Sharer{UserRef: tributary.UserRef{ID: 3, Handle: "otto", Name: "Otto"}, At: now.AddDate(0, 0, -3)}
	me := tributary.Sharer{UserRef: tributary.UserRef{ID: 1, Handle: "ann", Name: "Ann"}, At: now.AddDate(0, 0, -5), Self: true}
	base := tributary.Item{ID: 7, URL: "https://example.com/p", Title: "A paper", Date: now.AddDate(0, 0, -3),
		Excerpt: "see @ada on #ml"}
	for _, c := range []struct {
		name    string
		sharers []tributary.Sharer
		want    []string
		notWant []string
	}{
		{"a followee, named with their own time", []tributary.Sharer{selin, other},
			[]string{"Shared by <a class=\"sharer\" href=\"/u/selin\">Selin Huang</a>, whom you follow, and 1 other", ">9d</time>"},
			[]string{">3d</time>"}},
		{"the reader alone", []tributary.Sharer{me}, []string{"You shared this", ">5d</time>"}, []string{"whom you follow"}},
		{"the reader and others", []tributary.Sharer{me, selin, other}, []string{"You and 2 others shared this"}, []string{"whom you follow"}},
	} {
		it := base
		it.Sharers, it.ShareCount = c.sharers, len(c.sharers)
		html := renderCard(t, it, now)
		for _, w := range append(c.want, `<a href="/u/ada">@ada</a>`, `<a href="/t/ml">#ml</a>`) {
			if !strings.Contains(html, w) {
				t.Errorf("%s: the card lacks %q:\n%s", c.name, w, html)
			}
		}
		for _, w := range c.notWant {
			if strings.Contains(html, w) {
				t.Errorf("%s: the card has %q:\n%s", c.name, w, html)
			}
		}
	}
}

// TestCardsSayTheirAudience: post and item cards say who can see them, links to the group
// and the recipients, and a lock when they are not public; public ones say nothing.
func TestCardsSayTheirAudience(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	direct := &tributary.Audience{To: []string{"ada", "bob"}, Restricted: true}
	group := &tributary.Audience{Groups: []tributary.GroupRef{{Name: "tour", Title: "Tour Readers"}}, Restricted: true}
	post := func(a *tributary.Audience) string {
		var b strings.Builder
		p := tributary.Post{ID: 1, URL: "https://example.com/p", Title: "A post", CreatedAt: now, Audience: a}
		if err := PostCard(p, now, false, nil).Render(t.Context(), &b); err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(b.String()), " ") // as a browser shows it
	}
	item := func(a *tributary.Audience) string {
		html := renderCard(t, tributary.Item{ID: 1, URL: "https://example.com/p", Title: "An item", Date: now, Audience: a}, now)
		return strings.Join(strings.Fields(html), " ")
	}
	for _, render := range []func(*tributary.Audience) string{post, item} {
		html := render(direct)
		for _, w := range []string{`data-testid="audience-lock"`, `to <a href="/u/ada">@ada</a>, <a href="/u/bob">@bob</a>`} {
			if !strings.Contains(html, w) {
				t.Errorf("a direct's card lacks %q:\n%s", w, html)
			}
		}
		html = render(group)
		for _, w := range []string{`data-testid="audience-lock"`, `in <a href="/g/tour">Tour Readers</a>`} {
			if !strings.Contains(html, w) {
				t.Errorf("a group post's card lacks %q:\n%s", w, html)
			}
		}
		if html := render(nil); strings.Contains(html, "audience") {
			t.Errorf("a public card says who can see it:\n%s", html)
		}
	}
}

// TestItemPageSaysItsCounts: an item page counts its sharers as its card does and its
// shares, and when it lists fewer shares than there are, says which and links the rest.
func TestItemPageSaysItsCounts(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	render := func(it Item) string {
		var b strings.Builder
		if err := ItemPage(Page{Title: "x", Now: now}, it).Render(t.Context(), &b); err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(b.String()), " ")
	}
	html := render(Item{ID: 4, Title: "A paper", URL: "https://example.com/p", Shares: 612, Sharers: 528, Page: 2, PageSize: 200, Listed: 200})
	for _, w := range []string{"shared by 528 people · 612 shares", "Shares 201–400 of 612.", `href="/i/4?page=1"`, `href="/i/4?page=3"`} {
		if !strings.Contains(html, w) {
			t.Errorf("the item page lacks %q:\n%s", w, html)
		}
	}
	html = render(Item{ID: 4, Title: "A paper", URL: "https://example.com/p", Shares: 3, Sharers: 1, Page: 1, PageSize: 200, Listed: 3})
	if !strings.Contains(html, "shared by 1 person · 3 shares") || strings.Contains(html, "item-pager") {
		t.Errorf("a whole item page's counts or pager:\n%s", html)
	}
}
