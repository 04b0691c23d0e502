package web_test

import (
	"net/http"
	"regexp"
	"slices"
	"testing"

	"tributary"
	"tributary/db"
)

// A user page's follower and following counts lead to their lists, which show only what the
// viewer may read: nobody of a private account to those it has not approved, nobody to a
// viewer in a ban with the user, and never a person in a ban with the viewer (issue 44,
// point 18).
func TestFollowListsApplyAccessAndBans(t *testing.T) {
	a := newApp(t)
	ada, bob, carol, dave, erin, anon := a.client(), a.client(), a.client(), a.client(), a.client(), a.client()
	for c, h := range map[*client]string{ada: "ada", bob: "bob", carol: "carol", dave: "dave", erin: "erin"} {
		c.signup(h)
	}
	for _, c := range []*client{bob, carol, erin} {
		c.post("/u/ada/follow", nil)
	}
	ada.post("/u/dave/follow", nil)
	dave.post("/settings/visibility", map[string][]string{"visibility": {"private"}})
	bob.post("/u/dave/follow", nil)
	dave.post("/settings/requests/bob/approve", nil)
	ada.post("/u/carol/ban", nil)
	bob.post("/u/erin/ban", nil)

	if body := anon.get("/u/ada").body; !regexp.MustCompile(`href="/u/ada/followers"[^>]*>`).MatchString(body) ||
		!regexp.MustCompile(`href="/u/ada/following"[^>]*>`).MatchString(body) {
		t.Errorf("ada's page does not link her follow lists")
	}
	person := regexp.MustCompile(`data-testid="follow-list-person">\s*<a href="/u/([a-z0-9_]+)"`)
	for _, c := range []struct {
		who  *client
		name string
		path string
		want []string
	}{
		{anon, "anonymous", "/u/ada/followers", []string{"bob", "erin"}}, // the ban ended carol's follow
		{bob, "bob", "/u/ada/followers", []string{"bob"}},                // erin is in a ban with bob
		{carol, "carol", "/u/ada/followers", nil},
		{ada, "ada", "/u/ada/following", []string{"dave"}},
		{anon, "anonymous", "/u/dave/followers", nil},
		{carol, "carol", "/u/dave/followers", nil},
		{bob, "bob", "/u/dave/followers", []string{"ada", "bob"}},
		{dave, "dave", "/u/dave/followers", []string{"ada", "bob"}},
	} {
		r := c.who.get(c.path)
		if r.status != http.StatusOK {
			t.Errorf("%s on %s: status %d", c.name, c.path, r.status)
			continue
		}
		var got []string
		for _, m := range person.FindAllStringSubmatch(r.body, -1) {
			got = append(got, m[1])
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s on %s: %v, want %v", c.name, c.path, got, c.want)
		}
	}
	if r := anon.get("/u/nobody/followers"); r.status != http.StatusNotFound {
		t.Errorf("an unknown user's followers: status %d", r.status)
	}

	// Pages go on by handle.
	u, err := a.store.UserByHandle(t.Context(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for after := ""; ; {
		page, err := a.store.FollowPage(t.Context(), db.FollowList{Owner: u.ID, Followers: true, After: after, Limit: 1}, tributary.Anonymous)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		got, after = append(got, page[0].Handle), page[0].Handle
	}
	if !slices.Equal(got, []string{"bob", "erin"}) {
		t.Errorf("paged one at a time: %v", got)
	}
}
