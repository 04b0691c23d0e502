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
