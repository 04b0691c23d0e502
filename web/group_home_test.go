package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// A post shared only to a group reaches its members' home feeds, the card saying which of
// their groups brought it; a reader who is not a member does not get it.
func TestGroupPostOnMembersHomeSaysItsGroup(t *testing.T) {
	a := newApp(t)
	ada, bob, cy := a.client(), a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	cy.signup("cy")
	if r := ada.post("/groups", url.Values{"name": {"lab"}, "access": {"public"}}); r.status != http.StatusSeeOther {
		t.Fatalf("group: %d %s", r.status, r.body)
	}
	if r := bob.post("/g/lab/join", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("join: %d %s", r.status, r.body)
	}
	if r := cy.post("/u/ada/follow", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("follow: %d", r.status)
	}
	a.now = a.now.Add(time.Second)
	if r := ada.post("/share", url.Values{"url": {"https://example.com/lab-notes"}, "title": {"LABNOTES"},
		"group": {"lab"}, "dest": {"1"}}); r.status != http.StatusSeeOther {
		t.Fatalf("share: %d %s", r.status, r.body)
	}
	a.now = a.now.Add(time.Minute)
	r := bob.get("/")
	if r.status != http.StatusOK || !strings.Contains(r.body, "LABNOTES") {
		t.Fatalf("bob's home: status %d, want the lab's post in it", r.status)
	}
	if !strings.Contains(r.body, `data-testid="audience"`) || !strings.Contains(stripTags(r.body), "in lab") ||
		!strings.Contains(r.body, `data-testid="why-group"`) {
		t.Fatalf("the card does not say which group brought it: %s", r.body)
	}
	if r := cy.get("/"); strings.Contains(r.body, "LABNOTES") {
		t.Fatal("cy follows ada but is no member of lab: the group-only post is in her home")
	}

	// Ada's comment on it brings it to cy's home by her activity (seed 003: a home feed
	// subscribes to followees' comments), the card saying so and where the post is.
	var post int64
	if err := a.store.Pool.QueryRow(t.Context(), "SELECT id FROM posts ORDER BY id DESC LIMIT 1").Scan(&post); err != nil {
		t.Fatal(err)
	}
	ada.shareAs("https://example.com/ada-own") // cy's home holds something: it has a fencepost
	a.now = a.now.Add(time.Minute)
	first := cy.activityPage()
	a.now = a.now.Add(time.Minute)
	if r := ada.post("/p/"+itoa(post)+"/comments", url.Values{"body": {"Notes from today."}}); r.status != http.StatusSeeOther {
		t.Fatalf("comment: %d %s", r.status, r.body)
	}
	a.now = a.now.Add(time.Minute)
	if got := cy.newSince(first.Fencepost); got != "1 new" {
		t.Fatalf("cy's pill after ada commented on her group post: %q, want \"1 new\"", got)
	}
	r = cy.get("/feed/new/items?fencepost=" + url.QueryEscape(first.Fencepost))
	text := strings.Join(strings.Fields(stripTags(r.body)), " ")
	if r.status != http.StatusOK || !strings.Contains(r.body, "LABNOTES") || !strings.Contains(r.body, `data-testid="audience"`) ||
		!strings.Contains(text, "in lab") || !strings.Contains(text, "commented") {
		t.Fatalf("cy's new items: status %d, want the lab's post with ada's comment as its reason and its group: %s", r.status, text)
	}
}
