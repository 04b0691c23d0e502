package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// An author edits a post's title, text and tags: the card says "edited", the link stays,
// the tag feeds and search follow. Anyone else gets 404, a cross-origin post 403.
func TestAuthorEditsAPost(t *testing.T) {
	a := newApp(t)
	ada, bob := a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	if r := ada.post("/share", url.Values{"url": {"https://example.com/notes"}, "title": {"First draft"},
		"body": {"About lattices"}, "tags": {"stale"}}); r.status != http.StatusSeeOther {
		t.Fatalf("share: status %d", r.status)
	}
	var id int64
	if err := a.store.Pool.QueryRow(t.Context(), "SELECT id FROM posts ORDER BY id DESC LIMIT 1").Scan(&id); err != nil {
		t.Fatal(err)
	}
	edit := "/posts/" + itoa(id) + "/edit"
	changed := url.Values{"title": {"Second draft"}, "body": {"Now about #holography"}, "tags": {"fresh"}}

	if r := ada.get(edit); r.status != http.StatusOK || !strings.Contains(r.body, `value="First draft"`) || !strings.Contains(r.body, "About lattices") {
		t.Errorf("the author's edit form: status %d, or without the post's text", r.status)
	}
	for _, tc := range []struct {
		name string
		do   func() response
		want int
	}{
		{"someone else's form", func() response { return bob.get(edit) }, http.StatusNotFound},
		{"someone else's edit", func() response { return bob.post(edit, changed) }, http.StatusNotFound},
		{"no such post", func() response { return ada.get("/posts/999999/edit") }, http.StatusNotFound},
		{"a cross-origin edit", func() response {
			return ada.do("POST", edit, changed, http.Header{"Origin": {"https://evil.example"}})
		}, http.StatusForbidden},
		{"a title too long", func() response {
			return ada.post(edit, url.Values{"title": {strings.Repeat("x", 301)}})
		}, http.StatusBadRequest},
	} {
		if r := tc.do(); r.status != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, r.status, tc.want)
		}
	}
	if r := ada.get("/p/" + itoa(id)); !strings.Contains(r.body, "First draft") || strings.Contains(r.body, `data-testid="edited"`) {
		t.Fatalf("the refused edits changed the post")
	}

	r := ada.post(edit, changed)
	if r.status != http.StatusSeeOther || r.location != "/p/"+itoa(id) {
		t.Fatalf("edit: status %d to %q, want 303 to the post", r.status, r.location)
	}
	page := bob.get("/p/" + itoa(id)).body
	if !strings.Contains(page, "Second draft") || !strings.Contains(page, "holography") || !strings.Contains(page, `data-testid="edited"`) {
		t.Errorf("the post's page does not show the edit, marked edited")
	}
	var link string
	if err := a.store.Pool.QueryRow(t.Context(), "SELECT url FROM posts WHERE id = $1", id).Scan(&link); err != nil || link != "https://example.com/notes" {
		t.Errorf("the link is %q (%v), want it kept", link, err)
	}
	for _, c := range []struct {
		page string
		want bool
	}{{"/t/fresh", true}, {"/t/holography", true}, {"/t/stale", false}, {"/search?q=holography", true}, {"/search?q=lattices", false}} {
		if got := strings.Contains(bob.get(c.page).body, "Second draft"); got != c.want {
			t.Errorf("%s shows the edited post: %v, want %v", c.page, got, c.want)
		}
	}
	// Open pages and every instance hear of it through the change stream.
	var n int
	if err := a.store.Pool.QueryRow(t.Context(), "SELECT count(*) FROM site_changes WHERE kind = 'talk' AND $1 = ANY(ids)", id).Scan(&n); err != nil || n == 0 {
		t.Errorf("no change recorded for the edit (%v)", err)
	}
}

// An edit reaches open pages as a change of the post's talk: GET /talk then brings the
// edited post's card its new title, text and "edited", to readers who may read it only
// (issue 44, point 13).
func TestTalkNowBringsAnEditedPostsText(t *testing.T) {
	a := newApp(t)
	ada, bob, carol := a.client(), a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	carol.signup("carol")
	bob.post("/u/ada/follow", url.Values{})
	ada.post("/settings/visibility", url.Values{"visibility": {"private"}})
	ada.post("/settings/requests/bob/approve", nil)
	post, _ := ada.shareAs("https://example.com/edited-live")
	if r := ada.post("/posts/"+itoa(post)+"/edit", url.Values{"title": {"A better title"}, "body": {"Now with #words"}, "tags": {"fresh"}}); r.status != http.StatusSeeOther {
		t.Fatalf("edit: status %d %s", r.status, r.body)
	}
	talk := "/talk?p=" + itoa(post) + "&return=/u/ada"
	r := bob.get(talk)
	for _, want := range []string{
		`id="ph-` + itoa(post) + `" hx-swap-oob="true"`, "A better title",
		`id="px-` + itoa(post) + `" hx-swap-oob="true"`, "Now with", `href="/t/words"`, `href="/t/fresh"`,
		`id="pe-` + itoa(post) + `" hx-swap-oob="true"`, `data-testid="edited"`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("a follower's /talk after the edit lacks %s: %s", want, r.body)
		}
	}
	if r := carol.get(talk); strings.Contains(r.body, "A better title") || strings.Contains(r.body, `id="px-`) {
		t.Errorf("a stranger's /talk told the private post's edit: %s", r.body)
	}
}
