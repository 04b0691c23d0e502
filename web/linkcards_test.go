package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"tributary"
)

// shareOn shares link as c (on c's instance) and returns the post and its item.
func (c *client) shareOn(ts *testSite, link, body string) (post, anchor int64) {
	c.a.t.Helper()
	ts.advance(time.Second)
	if r := c.post("/share", url.Values{"url": {link}, "body": {body}}); r.status != http.StatusSeeOther {
		c.a.t.Fatalf("share %s: %d %s", link, r.status, r.body)
	}
	if err := c.a.store.Pool.QueryRow(c.a.t.Context(), "SELECT id, anchor_id FROM posts WHERE url = $1 ORDER BY id DESC LIMIT 1", link).Scan(&post, &anchor); err != nil {
		c.a.t.Fatal(err)
	}
	return post, anchor
}

// A card saved through one instance (its fetch job ran there) shows on another's pages at
// once, although that instance had read the item without one: the "cards" change drops what
// it kept, and open pages there fill the card in.
func TestLinkCardsReachEveryInstance(t *testing.T) {
	ts := newTestSite(t)
	a, busA := ts.instance()
	b, _ := ts.instance()
	ada, bob := a.client(), b.client()
	ada.signup("ada")
	bob.signup("bob")
	bob.post("/u/ada/follow", url.Values{})
	post, anchor := ada.shareOn(ts, "https://example.com/rivers-paper", "")
	// The card's abstract marks it (its title becomes the untitled share's, card or not).
	const title, abstract = "Rivers of Text, as the Page Says", "Feeds that end are read to the end."
	for range 2 { // B reads the item, and keeps it as having no card
		if r := bob.get("/api/timeline"); strings.Contains(r.body, abstract) || !strings.Contains(r.body, `"id":`+itoa(anchor)) {
			t.Fatalf("B's page before the card: %.400s", r.body)
		}
		bob.get("/")
	}
	if err := a.store.SaveCard(t.Context(), anchor, tributary.LinkCard{Kind: "paper", Title: title,
		Authors: []string{"Ada Lovelace"}, Abstract: abstract}); err != nil {
		t.Fatal(err)
	}
	busA.Sync(t.Context()) // as a saved card wakes the instances (db.Store.CardSaved)
	for _, path := range []string{"/api/timeline", "/", "/i/" + itoa(anchor), "/p/" + itoa(post),
		"/talk?i=" + itoa(anchor) + ":" + itoa(post) + "&return=/"} {
		if r := bob.get(path); r.status != http.StatusOK || !strings.Contains(r.body, abstract) {
			t.Errorf("%s on B: %d, no card: %.400s", path, r.status, r.body)
		}
	}
}

// A card shows only with a share the viewer may read: an item shared only in a private feed
// shows its card on no page, fragment, JSON or live fill-in of a stranger, and the share
// form's preview does not take it from the database for them (nor what the share says).
func TestLinkCardsShowNoUnreadableShare(t *testing.T) {
	ts := newTestSite(t)
	a, busA := ts.instance()
	b, _ := ts.instance()
	ada, carol, dave := a.client(), a.client(), b.client()
	ada.signup("ada")
	carol.signup("carol")
	dave.signup("dave")
	if r := carol.post("/settings/visibility", url.Values{"visibility": {"private"}}); r.status != http.StatusSeeOther {
		t.Fatalf("carol goes private: %d", r.status)
	}
	dave.post("/u/ada/follow", url.Values{})
	dave.post("/u/carol/follow", url.Values{}) // a request, never approved
	const secretURL = "https://example.com/secret-rivers"
	secretPost, secret := carol.shareOn(ts, secretURL, "carol's private note")
	publicPost, public := ada.shareOn(ts, "https://example.com/public-rivers", "")
	const secretTitle, publicTitle = "Secret Rivers Card", "Public Rivers Card"
	for id, title := range map[int64]string{secret: secretTitle, public: publicTitle} {
		if err := a.store.SaveCard(t.Context(), id, tributary.LinkCard{Kind: "paper", Title: title,
			Authors: []string{"Ada Lovelace"}, Abstract: title + " abstract"}); err != nil {
			t.Fatal(err)
		}
	}
	busA.Sync(t.Context())
	// carol reads her own card (the test can see one), on B as well.
	for _, c := range []*client{carol, carol.on(b)} {
		if r := c.get("/talk?i=" + itoa(secret) + ":" + itoa(secretPost) + "&return=/"); !strings.Contains(r.body, secretTitle) {
			t.Fatalf("carol's own fill-in lacks her card: %.400s", r.body)
		}
	}
	talk := func(pairs ...int64) string {
		var s []string
		for i := 0; i < len(pairs); i += 2 {
			s = append(s, itoa(pairs[i])+":"+itoa(pairs[i+1]))
		}
		return "/talk?return=/&i=" + strings.Join(s, ",")
	}
	q := url.QueryEscape("rivers")
	for _, c := range []*client{dave, dave.on(a)} {
		for _, path := range []string{"/", "/api/timeline", "/?format=json", "/u/carol", "/u/carol?format=json",
			"/p/" + itoa(secretPost), "/i/" + itoa(secret), "/search?q=" + q, "/api/search?q=" + q,
			"/talk?return=/&p=" + itoa(secretPost) + "," + itoa(publicPost),
			talk(secret, secretPost), talk(secret, publicPost), talk(public, secretPost), talk(public, publicPost, secret, secretPost),
			"/share/preview?url=" + url.QueryEscape(secretURL)} {
			r := c.get(path)
			for _, leak := range []string{secretTitle, "carol's private note", "secret-rivers"} {
				if strings.Contains(r.body, leak) {
					t.Errorf("%s on %s shows %q: %.600s", path, c.a.srv.URL, leak, r.body)
				}
			}
		}
		// ... while the public item's card shows, there and in a fill-in.
		for _, path := range []string{"/api/timeline", talk(public, publicPost)} {
			if r := c.get(path); !strings.Contains(r.body, publicTitle) {
				t.Errorf("%s: the readable card is missing: %.400s", path, r.body)
			}
		}
	}
}

// A card's text shows once on the pages of its post and of its item: whole in the post's
// card, and in an item's head with its discussions' cards showing none of it; feeds show
// its first lines.
func TestLinkCardTextShowsOnceOnItsPages(t *testing.T) {
	ts := newTestSite(t)
	a, _ := ts.instance()
	ada, bob := a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	bob.post("/u/ada/follow", url.Values{})
	cards := []tributary.LinkCard{
		{Kind: "paper", Title: "Rivers, a Paper", Authors: []string{"Ada Lovelace"}, Abstract: "Feeds that end are read to the end."},
		{Kind: "model", Title: "rivers/tiny · Hugging Face", Description: "On a journey to read rivers."},
	}
	for i, card := range cards {
		text := card.Abstract + card.Description
		post, anchor := ada.shareOn(ts, "https://example.com/rivers-"+itoa(int64(i)), "")
		if err := a.store.SaveCard(t.Context(), anchor, card); err != nil {
			t.Fatal(err)
		}
		if r := bob.post("/p/"+itoa(post)+"/comments", url.Values{"body": {"Read it."}}); r.status != http.StatusSeeOther {
			t.Fatalf("comment: %d %s", r.status, r.body)
		}
		for _, path := range []string{"/p/" + itoa(post), "/i/" + itoa(anchor), "/"} {
			if r := bob.get(path); r.status != http.StatusOK || strings.Count(r.body, text) != 1 {
				t.Errorf("%s shows the card's text %d times, not once: %.600s", path, strings.Count(r.body, text), r.body)
			}
		}
		if r := bob.get("/p/" + itoa(post)); !strings.Contains(r.body, `data-testid="link-card-full"`) ||
			(card.Abstract != "" && !strings.Contains(r.body, "Ada Lovelace")) {
			t.Errorf("the post's page shows no whole card: %.600s", r.body)
		}
	}
}
