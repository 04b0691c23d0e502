package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The best of the week is the items most shared and discussed in the last seven days, for
// everyone, from the snapshot: an item shared by more people comes first, one with a private
// share shows it only to who may read it, and one older than a week is not there.
func TestBestOf(t *testing.T) {
	a := newApp(t)
	ada, bob, cy, anon := a.client(), a.client(), a.client(), a.client()
	for h, c := range map[string]*client{"ada": ada, "bob": bob, "cy": cy} {
		c.signup(h)
	}
	_, old := ada.shareAs("https://arxiv.org/abs/2407.00001")
	a.now = a.now.Add(8 * 24 * time.Hour)
	_, popular := ada.shareAs("https://arxiv.org/abs/2407.00002")
	bob.shareAs("https://arxiv.org/abs/2407.00002")
	_, single := ada.shareAs("https://arxiv.org/abs/2407.00004")
	_, quiet := cy.shareAs("https://arxiv.org/abs/2407.00003")
	if r := cy.post("/settings/visibility", url.Values{"visibility": {"private"}}); r.status != http.StatusSeeOther {
		t.Fatalf("visibility: %d", r.status)
	}
	_, secret := cy.shareAs("https://blog.example.com/cy-secret")
	ada.post("/u/cy/follow", url.Values{})
	cy.post("/settings/requests/ada/approve", url.Values{})
	if _, err := a.store.RefreshSnapshot(t.Context(), a.now); err != nil {
		t.Fatal(err)
	}

	page := anon.get("/best")
	if page.status != http.StatusOK {
		t.Fatalf("GET /best: %d", page.status)
	}
	at := func(body string, anchor int64) int { return strings.Index(body, `data-item-id="`+itoa(anchor)+`"`) }
	if at(page.body, popular) < 0 || at(page.body, single) < at(page.body, popular) || at(page.body, old) >= 0 {
		t.Fatalf("best of: want the item two people shared, then the one one shared, and not the older one: %s", stripTags(page.body))
	}
	for _, anchor := range []int64{quiet, secret} {
		if at(page.body, anchor) >= 0 {
			t.Errorf("anonymous best of shows item %d of a private account", anchor)
		}
	}
	if p := ada.get("/best"); at(p.body, secret) >= 0 {
		t.Errorf("the best of is what was shared publicly: a private share is not in it")
	}
}
