package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// anchorsAt reads the item ids of a JSON timeline page, failing on any status but 200.
func (c *client) anchorsAt(path string) (ids []int64, fencepost string) {
	c.a.t.Helper()
	r := c.get(path)
	if r.status != http.StatusOK {
		c.a.t.Fatalf("GET %s: status %d %s", path, r.status, r.body)
	}
	var p struct {
		Items []struct {
			ID int64 `json:"id"`
		} `json:"items"`
		Fencepost string `json:"fencepost"`
	}
	if err := json.Unmarshal([]byte(r.body), &p); err != nil {
		c.a.t.Fatal(err)
	}
	for _, it := range p.Items {
		ids = append(ids, it.ID)
	}
	return ids, p.Fencepost
}

// A list is its owner's feed of the people in it: only their shares, its own "N new"
// notice, private to its owner (404 to anyone else, the same as a list that does not
// exist); an exclusive list's members leave the owner's home feed.
func TestListFeed(t *testing.T) {
	a := newApp(t)
	ada, bob, cy, dee, anon := a.client(), a.client(), a.client(), a.client(), a.client()
	for h, c := range map[string]*client{"ada": ada, "bob": bob, "cy": cy, "dee": dee} {
		c.signup(h)
	}
	ada.post("/u/bob/follow", url.Values{})
	ada.post("/u/cy/follow", url.Values{})
	_, bobs := bob.shareAs("https://arxiv.org/abs/2403.00001")
	_, cys := cy.shareAs("https://arxiv.org/abs/2403.00002")
	_, dees := dee.shareAs("https://arxiv.org/abs/2403.00003") // ada does not follow dee

	r := ada.post("/lists", url.Values{"name": {"  Papers  "}})
	if r.status != http.StatusSeeOther || !strings.HasPrefix(r.location, "/lists/") {
		t.Fatalf("create list: %d %s", r.status, r.location)
	}
	list := strings.TrimPrefix(r.location, "/lists/")
	for _, bad := range []url.Values{{"name": {" "}}, {"name": {"papers"}}, {"name": {strings.Repeat("x", 61)}}} {
		if r := ada.post("/lists", bad); r.status != http.StatusBadRequest || !strings.Contains(r.body, `data-testid="error-name"`) {
			t.Errorf("create list %v: status %d, want 400 naming the field", bad, r.status)
		}
	}
	for _, h := range []string{"bob", "dee", "bob"} { // twice: no error
		if r := ada.post("/lists/"+list+"/members", url.Values{"handle": {h}}); r.status != http.StatusSeeOther {
			t.Fatalf("add %s: %d %s", h, r.status, r.body)
		}
	}
	if r := ada.post("/lists/"+list+"/members", url.Values{"handle": {"nobody"}}); r.status != http.StatusBadRequest ||
		!strings.Contains(r.body, "Nobody has the handle") {
		t.Fatalf("add an unknown handle: %d, want 400 with a message", r.status)
	}

	a.now = a.now.Add(time.Minute)
	got, fp := ada.anchorsAt("/api/timeline?list=" + list)
	slices.Sort(got)
	if want := []int64{bobs, dees}; !slices.Equal(got, want) {
		t.Fatalf("list feed: %v, want bob's and dee's items %v", got, want)
	}
	page := ada.get("/lists/" + list)
	if page.status != http.StatusOK || !strings.Contains(page.body, "Papers") || !strings.Contains(page.body, "/feed/new?fencepost=") ||
		!strings.Contains(page.body, "list="+list) {
		t.Fatalf("list page: %d; it must name the list and poll its own notice", page.status)
	}

	// Someone else's list, anonymous visitors, a list that does not exist: the same 404.
	for _, c := range []struct {
		who  *client
		path string
	}{{bob, "/api/timeline?list=" + list}, {bob, "/lists/" + list}, {bob, "/?list=" + list},
		{anon, "/api/timeline?list=" + list}, {anon, "/?list=" + list}, {ada, "/api/timeline?list=999999"},
		{bob, "/feed/new?list=" + list + "&fencepost=" + url.QueryEscape(fp)}} {
		if r := c.who.get(c.path); r.status != http.StatusNotFound {
			t.Errorf("GET %s by someone who does not own the list: %d, want 404", c.path, r.status)
		}
	}
	if r := bob.post("/lists/"+list+"/members", url.Values{"handle": {"cy"}}); r.status != http.StatusNotFound {
		t.Errorf("adding to someone else's list: %d, want 404", r.status)
	}
	if r := ada.get("/api/timeline?list=abc"); r.status != http.StatusBadRequest {
		t.Errorf("a malformed list id: %d, want 400", r.status)
	}

	// The list's own notice counts its members' new shares, not other followees'.
	a.now = a.now.Add(time.Minute)
	bob.shareAs("https://arxiv.org/abs/2403.00004")
	cy.shareAs("https://arxiv.org/abs/2403.00005")
	a.now = a.now.Add(time.Minute)
	if n := ada.get("/feed/new?list=" + list + "&fencepost=" + url.QueryEscape(fp)); !strings.Contains(stripTags(n.body), "1 new") {
		t.Fatalf("list notice: %q, want 1 new", strings.TrimSpace(stripTags(n.body)))
	}

	// Exclusive: bob's shares leave ada's home feed, and come back.
	home, _ := ada.anchorsAt("/api/timeline")
	if !slices.Contains(home, bobs) || !slices.Contains(home, cys) {
		t.Fatalf("home before exclusive: %v lacks bob's or cy's item", home)
	}
	if r := ada.post("/lists/"+list+"/exclusive", url.Values{"exclusive": {"1"}}); r.status != http.StatusSeeOther {
		t.Fatalf("exclusive: %d", r.status)
	}
	home, _ = ada.anchorsAt("/api/timeline")
	if slices.Contains(home, bobs) || !slices.Contains(home, cys) {
		t.Fatalf("home with the list exclusive: %v, want cy's item and not bob's", home)
	}
	ada.post("/lists/"+list+"/exclusive", url.Values{"exclusive": {"0"}})
	if home, _ = ada.anchorsAt("/api/timeline"); !slices.Contains(home, bobs) {
		t.Fatalf("home after exclusive is off: %v lacks bob's item", home)
	}

	// From dee's page: out of the list, and back in.
	if p := ada.get("/u/dee"); !strings.Contains(p.body, `data-testid="list-remove"`) {
		t.Fatal("dee's page does not show she is in ada's list")
	}
	if r := ada.post("/lists/"+list+"/members/dee/remove", url.Values{"return": {"/u/dee"}}); r.status != http.StatusSeeOther || r.location != "/u/dee" {
		t.Fatalf("remove dee: %d %s", r.status, r.location)
	}
	if got, _ := ada.anchorsAt("/api/timeline?list=" + list); slices.Contains(got, dees) {
		t.Fatalf("dee's item is in the list after she left it: %v", got)
	}
	if r := ada.post("/lists/"+list+"/rename", url.Values{"name": {"Reading"}}); r.status != http.StatusSeeOther {
		t.Fatalf("rename: %d", r.status)
	}
	if p := ada.get("/lists"); !strings.Contains(p.body, "Reading") {
		t.Fatal("the renamed list is not on the lists page")
	}
	if r := ada.post("/lists/"+list+"/delete", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("delete: %d", r.status)
	}
	if r := ada.get("/lists/" + list); r.status != http.StatusNotFound {
		t.Fatalf("a deleted list: %d, want 404", r.status)
	}
}

// A list has the home feed's activity setting: a post a member commented on arrives in the
// list (its notice, its JSON with who did it), and a non-member's comment brings nothing.
func TestListActivity(t *testing.T) {
	a := newApp(t)
	ada, bob, cy, dee := a.client(), a.client(), a.client(), a.client()
	for h, c := range map[string]*client{"ada": ada, "bob": bob, "cy": cy, "dee": dee} {
		c.signup(h)
	}
	ada.post("/u/dee/follow", url.Values{})
	r := ada.post("/lists", url.Values{"name": {"Bob"}})
	list := strings.TrimPrefix(r.location, "/lists/")
	ada.post("/lists/"+list+"/members", url.Values{"handle": {"bob"}})
	bob.shareAs("https://arxiv.org/abs/2408.00001") // the list has a fencepost
	old, oldAnchor := cy.shareAs("https://arxiv.org/abs/2408.00002")
	other, _ := cy.shareAs("https://arxiv.org/abs/2408.00003")
	a.now = a.now.Add(time.Hour)
	_, fp := ada.anchorsAt("/api/timeline?list=" + list)

	a.now = a.now.Add(time.Minute)
	if r := bob.post("/p/"+itoa(old)+"/comments", url.Values{"body": {"Read this one."}}); r.status != http.StatusSeeOther {
		t.Fatalf("comment: %d", r.status)
	}
	if r := dee.post("/p/"+itoa(other)+"/comments", url.Values{"body": {"And this one."}}); r.status != http.StatusSeeOther {
		t.Fatalf("comment: %d", r.status)
	}
	a.now = a.now.Add(time.Minute)
	if n := ada.get("/feed/new?list=" + list + "&fencepost=" + url.QueryEscape(fp)); strings.TrimSpace(stripTags(n.body)) != "1 new" {
		t.Fatalf("list notice after bob's and dee's comments: %q, want 1 new (bob's)", strings.TrimSpace(stripTags(n.body)))
	}
	got, _ := ada.anchorsAt("/api/timeline?list=" + list)
	if !slices.Contains(got, oldAnchor) {
		t.Fatalf("list after bob commented: %v lacks the post he commented on (%d)", got, oldAnchor)
	}
	body := ada.get("/api/timeline?list=" + list).body
	if !strings.Contains(body, `"handle":"bob"`) || !strings.Contains(body, `"commented":true`) {
		t.Fatalf("the list's JSON does not say bob commented: %s", body)
	}
}
