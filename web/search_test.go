package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// searchIDs runs a search as the client through the JSON API and returns the posts found
// (every page).
func (c *client) searchIDs(q string) []int64 {
	c.a.t.Helper()
	var ids []int64
	cursor := ""
	for range 20 {
		path := "/api/search?q=" + url.QueryEscape(q)
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		r := c.get(path)
		if r.status != http.StatusOK {
			c.a.t.Fatalf("GET %s: %d %s", path, r.status, r.body)
		}
		var p struct {
			Posts []struct {
				ID int64 `json:"id"`
			} `json:"posts"`
			NextCursor string `json:"next_cursor"`
		}
		if err := json.Unmarshal([]byte(r.body), &p); err != nil {
			c.a.t.Fatal(err)
		}
		for _, post := range p.Posts {
			ids = append(ids, post.ID)
		}
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	slices.Sort(ids)
	return ids
}

// Search through the site: words in posts and comments, operators with names resolved
// ("me" is the reader), access inside the query (a private account's post and a comment on
// it are found by its approved follower only), and bad queries answered 400 with what is
// wrong, on the page and in the JSON.
func TestSearch(t *testing.T) {
	a := newApp(t)
	ada, bob, eve, anon := a.client(), a.client(), a.client(), a.client()
	for h, c := range map[string]*client{"ada": ada, "bob": bob, "eve": eve} {
		c.signup(h)
	}
	open, _ := ada.shareAs("https://arxiv.org/abs/2406.00001")
	if r := ada.post("/p/"+itoa(open)+"/comments", url.Values{"body": {"Holography in the bulk, finally."}}); r.status != http.StatusSeeOther {
		t.Fatalf("comment: %d", r.status)
	}
	bob.post("/u/ada/follow", url.Values{})
	if r := ada.post("/settings/visibility", url.Values{"visibility": {"private"}}); r.status != http.StatusSeeOther {
		t.Fatalf("visibility: %d", r.status)
	}
	ada.post("/settings/requests/bob/approve", url.Values{})
	secret, _ := ada.shareAs("https://blog.example.com/holography-notes")
	if r := bob.post("/p/"+itoa(secret)+"/comments", url.Values{"body": {"Entanglement wedge reconstruction!"}}); r.status != http.StatusSeeOther {
		t.Fatalf("comment on the private post: %d %s", r.status, r.body)
	}
	// The first post is ada's too: private now, readable by bob only.
	for _, c := range []struct {
		who  *client
		q    string
		want []int64
	}{
		{bob, "holography", []int64{open, secret}},
		{bob, "entanglement", []int64{secret}},
		{bob, "from:ada site:blog.example.com", []int64{secret}},
		{bob, "commented-by:me", []int64{secret}},
		{ada, "commented-by:me holography", []int64{open}},
		{bob, "holography -bulk", []int64{secret}},
		{bob, "holograph*", []int64{open, secret}},
		{eve, "holography", nil},
		{eve, "entanglement", nil},
		{anon, "holography", nil},
		{eve, "from:ada", nil},
	} {
		if got := c.who.searchIDs(c.q); !slices.Equal(got, c.want) {
			t.Errorf("search %q: %v, want %v", c.q, got, c.want)
		}
	}

	page := bob.get("/search?q=" + url.QueryEscape("holography"))
	if page.status != http.StatusOK || !strings.Contains(page.body, "<mark>") || !strings.Contains(page.body, `value="holography"`) {
		t.Fatalf("search page: %d; it must mark the words and keep the query in the box", page.status)
	}
	if p := bob.get("/search"); p.status != http.StatusOK || !strings.Contains(p.body, "How to search") {
		t.Fatalf("empty search: %d, want the help", p.status)
	}
	for q, msg := range map[string]string{
		`"unterminated`:   "position 1",
		"from:nobody":     "Nobody has the handle",
		"in:nogroup":      "no group",
		"liked-by:me":     "Log in",
		"foo:bar":         "Unknown operator",
		"-only -excluded": "not only words to leave out",
	} {
		for _, path := range []string{"/search?q=", "/api/search?q="} {
			if r := anon.get(path + url.QueryEscape(q)); r.status != http.StatusBadRequest || !strings.Contains(r.body, msg) {
				t.Errorf("GET %s%s: %d %q, want 400 saying %q", path, q, r.status, r.body, msg)
			}
		}
	}
	if r := anon.get("/api/search?q="); r.status != http.StatusBadRequest {
		t.Errorf("an empty API search: %d, want 400", r.status)
	}
	if r := bob.get("/search?q=" + url.QueryEscape("nothingmatchesthis")); r.status != http.StatusOK || !strings.Contains(r.body, "No posts or comments match") {
		t.Errorf("an empty result: %d, want it said", r.status)
	}
}
