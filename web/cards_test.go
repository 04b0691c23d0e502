package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"tributary/site"
)

// talkPage is the talk of each item of a home page, by item.
func (c *client) talkPage() map[int64]string {
	c.a.t.Helper()
	out := map[int64]string{}
	for _, it := range c.apiPage("limit=10").Items {
		out[it.ID] = string(it.Talk)
	}
	return out
}

// TestKeptTalkShowsOwnAndOthersWrites: an instance makes cards of the talk it keeps, yet a
// reader's like or comment shows on their very next page (before the event path has come
// round), and another's, on every instance, once the path has.
func TestKeptTalkShowsOwnAndOthersWrites(t *testing.T) {
	ts := newTestSite(t)
	// A's wake-ups come at most every half second: a page right after a write comes before
	// the write has come round.
	a, busA := ts.instance(func(b *site.Bus) { b.WakeEvery = 500 * time.Millisecond })
	b, _ := ts.instance()

	ada := a.client()
	ada.signup("ada")
	for i := range 3 {
		ts.advance(time.Minute)
		if r := ada.post("/share", url.Values{"url": {fmt.Sprintf("https://example.com/kept/%d", i)}}); r.status != http.StatusSeeOther {
			t.Fatalf("share: %d %s", r.status, r.body)
		}
	}
	var post, anchor int64
	if err := a.store.Pool.QueryRow(t.Context(), `SELECT id, anchor_id FROM posts WHERE url = 'https://example.com/kept/1'`).Scan(&post, &anchor); err != nil {
		t.Fatal(err)
	}
	bob, cy := a.client(), b.client()
	bob.signup("bob")
	cy.signup("cy")
	bob.post("/u/ada/follow", url.Values{})
	cy.post("/u/ada/follow", url.Values{})
	for range 3 { // the first page reads and keeps the items' talk; the next ones use it
		bob.talkPage()
		cy.talkPage()
		cy.on(a).talkPage()
	}

	want := func(who *client, step, talk string) {
		t.Helper()
		if got := who.talkPage()[anchor]; got != talk {
			t.Errorf("%s: %s", step, got)
		}
	}
	p := "/p/" + itoa(post)
	for _, step := range []struct {
		path, form string
		bob, cy    string
	}{
		{p + "/like", "", `{"like_count":1,"comment_count":0,"liked":true,"likers":[]}`,
			`{"like_count":1,"comment_count":0,"liked":false,"likers":[{"id":2,"handle":"bob","name":"bob","vip":false}]}`},
		{p + "/comments", "Kept?", `{"like_count":1,"comment_count":1,"liked":true,"likers":[]}`,
			`{"like_count":1,"comment_count":1,"liked":false,"likers":[{"id":2,"handle":"bob","name":"bob","vip":false}]}`},
		{p + "/unlike", "", `{"like_count":0,"comment_count":1,"liked":false,"likers":[]}`,
			`{"like_count":0,"comment_count":1,"liked":false,"likers":[]}`},
	} {
		r := bob.post(step.path, url.Values{"body": {step.form}, "return": {"/"}})
		if r.status != http.StatusSeeOther {
			t.Fatalf("%s: %d %s", step.path, r.status, r.body)
		}
		want(bob, step.path+", bob's next page", step.bob) // no wait: the redirect's page
		busA.Sync(t.Context())                             // every instance has heard of it
		want(cy, step.path+", cy on B", step.cy)
		want(cy.on(a), step.path+", cy on A", step.cy)
		want(bob.on(b), step.path+", bob on B", step.bob)
	}
}
