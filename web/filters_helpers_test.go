package web_test

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// Filter feeds (seed 003) over HTTP on a real server and database: /u/{handle}/likes,
// /u/{handle}/comments, /t/{tag}, /mentions and /discussions, and what every chronological
// page gained with them: the "N new" pill (?new=), the new posts above an open page
// (?since=) and the JSON envelope (?format=json).

// filterPost is a post as a chronological feed's JSON envelope lists it.
type filterPost struct {
	ID     int64    `json:"id"`
	URL    string   `json:"url"`
	Body   string   `json:"body"`
	Tags   []string `json:"tags"`
	Author struct {
		Handle string `json:"handle"`
	} `json:"author"`
	Talk struct {
		Likes    int  `json:"like_count"`
		Comments int  `json:"comment_count"`
		Liked    bool `json:"liked"`
	} `json:"talk"`
}

// filterEnvelope is a chronological feed's page as ?format=json answers it.
type filterEnvelope struct {
	Posts      []filterPost `json:"posts"`
	NextCursor *string      `json:"next_cursor"`
	Path       *string      `json:"path"`
	Fencepost  *string      `json:"fencepost"`
}

func (e filterEnvelope) ids() []int64 {
	out := []int64{}
	for _, p := range e.Posts {
		out = append(out, p.ID)
	}
	return out
}

var (
	filterCardRe   = regexp.MustCompile(`data-testid="card" data-item-id="\d+" data-post-id="(\d+)"`)
	filterPillRe   = regexp.MustCompile(`data-testid="new-pill"[^>]*>\s*(\d+\+?) new\s*<`)
	filterSlotRe   = regexp.MustCompile(`<div id="new-pill"[^>]*>`)
	filterHxGetRe  = regexp.MustCompile(`hx-get="([^"]*)"`)
	filterHandleNo = 0
)

// filterCardIDs lists the posts of a page or fragment, in order.
func filterCardIDs(body string) []int64 {
	out := []int64{}
	for _, m := range filterCardRe.FindAllStringSubmatch(body, -1) {
		var id int64
		fmt.Sscan(m[1], &id)
		out = append(out, id)
	}
	return out
}

func filterWant(t *testing.T, label string, got []int64, want ...int64) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: posts %v, want %v", label, got, want)
	}
}

// filterTick moves the server's clock on: each action gets its own time.
func (a *app) filterTick() { a.now = a.now.Add(time.Second) }

// filterReader signs up a new user: a reader who never opened any feed (no fence yet).
func (a *app) filterReader() *client {
	a.t.Helper()
	filterHandleNo++
	c := a.client()
	c.signup(fmt.Sprintf("reader%d", filterHandleNo))
	return c
}

// filterShare shares link with a body and tags (the form's fields) and returns the post.
func (c *client) filterShare(link, body, tags string) int64 {
	c.a.t.Helper()
	c.a.filterTick()
	if r := c.post("/share", url.Values{"url": {link}, "body": {body}, "tags": {tags}}); r.status != http.StatusSeeOther {
		c.a.t.Fatalf("share %s: status %d: %.300s", link, r.status, r.body)
	}
	var id int64
	if err := c.a.store.Pool.QueryRow(c.a.t.Context(), "SELECT max(id) FROM posts").Scan(&id); err != nil {
		c.a.t.Fatal(err)
	}
	return id
}

// filterAct posts a form the way a browser without JavaScript does, and wants the redirect back.
func (c *client) filterAct(path string, form url.Values) {
	c.a.t.Helper()
	c.a.filterTick()
	if r := c.post(path, form); r.status != http.StatusSeeOther {
		c.a.t.Fatalf("POST %s: status %d, want 303: %.300s", path, r.status, r.body)
	}
}

func (c *client) filterLike(post int64) {
	c.a.t.Helper()
	c.filterAct("/p/"+itoa(post)+"/like", url.Values{})
}

func (c *client) filterUnlike(post int64) {
	c.a.t.Helper()
	c.filterAct("/p/"+itoa(post)+"/unlike", url.Values{})
}

// filterComment comments on a post and returns the comment's id.
func (c *client) filterComment(post int64, body string) int64 {
	c.a.t.Helper()
	c.filterAct("/p/"+itoa(post)+"/comments", url.Values{"body": {body}})
	// What the filter-bumps job of a running server does a moment later.
	if _, err := c.a.store.ApplyFilterBumps(c.a.t.Context()); err != nil {
		c.a.t.Fatal(err)
	}
	var id int64
	if err := c.a.store.Pool.QueryRow(c.a.t.Context(), "SELECT max(id) FROM comments").Scan(&id); err != nil {
		c.a.t.Fatal(err)
	}
	return id
}

// filterFeed opens a feed's page (wanting 200) and returns its posts in order and the page.
func (c *client) filterFeed(path string) ([]int64, string) {
	c.a.t.Helper()
	r := c.get(path)
	if r.status != http.StatusOK {
		c.a.t.Fatalf("GET %s: status %d: %.300s", path, r.status, r.body)
	}
	return filterCardIDs(r.body), r.body
}

// filterJSON opens a feed's page with ?format=json (wanting 200 and the envelope).
func (c *client) filterJSON(path string) filterEnvelope {
	c.a.t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	r := c.get(path + sep + "format=json")
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		c.a.t.Fatalf("GET %s as JSON: status %d, Content-Type %q: %.300s", path, r.status, r.header.Get("Content-Type"), r.body)
	}
	var e filterEnvelope
	if err := json.Unmarshal([]byte(r.body), &e); err != nil {
		c.a.t.Fatalf("GET %s as JSON: %v: %.300s", path, err, r.body)
	}
	if e.Posts == nil || e.NextCursor == nil || e.Path == nil || e.Fencepost == nil {
		c.a.t.Fatalf("GET %s as JSON: the envelope lacks posts, next_cursor, path or fencepost: %.300s", path, r.body)
	}
	return e
}

// filterSees checks the posts a reader sees on a feed, on its page and in its JSON.
func (c *client) filterSees(label, path string, want ...int64) {
	c.a.t.Helper()
	ids, _ := c.filterFeed(path)
	filterWant(c.a.t, label+" (page)", ids, want...)
	filterWant(c.a.t, label+" (json)", c.filterJSON(path).ids(), want...)
}

// filterPill asks a feed for its "N new" pill after fencepost fp: "" when there is none.
func (c *client) filterPill(path, fp string) string {
	c.a.t.Helper()
	r := c.do("GET", path+"?new="+url.QueryEscape(fp), nil, htmx)
	if r.status != http.StatusOK {
		c.a.t.Fatalf("GET %s?new=: status %d: %.300s", path, r.status, r.body)
	}
	if strings.Contains(r.body, "<html") {
		c.a.t.Fatalf("GET %s?new= answered a whole page", path)
	}
	m := filterPillRe.FindStringSubmatch(r.body)
	if m == nil {
		if strings.TrimSpace(r.body) != "" {
			c.a.t.Fatalf("GET %s?new=: neither a pill nor empty: %.300s", path, r.body)
		}
		return ""
	}
	if want := html.EscapeString(path + "?since=" + url.QueryEscape(fp)); !strings.Contains(r.body, `hx-get="`+want+`"`) {
		c.a.t.Errorf("GET %s?new=: the pill does not fetch %s: %.300s", path, want, r.body)
	}
	return m[1]
}

// filterSince fetches the posts that go above an open page with fencepost fp, as htmx does:
// their ids in order and the fencepost the poll slot counts from next ("" when the feed has
// no fencepost: it is empty).
func (c *client) filterSince(path, fp string) ([]int64, string) {
	c.a.t.Helper()
	r := c.do("GET", path+"?since="+url.QueryEscape(fp), nil, htmx)
	if r.status != http.StatusOK || strings.Contains(r.body, "<html") {
		c.a.t.Fatalf("GET %s?since=: status %d, want a 200 fragment: %.300s", path, r.status, r.body)
	}
	if r.header.Get("HX-Push-Url") != "false" {
		c.a.t.Errorf("GET %s?since=: HX-Push-Url %q, want false", path, r.header.Get("HX-Push-Url"))
	}
	ids := filterCardIDs(r.body)
	slot := filterSlotRe.FindString(r.body)
	if slot == "" {
		if len(ids) > 0 {
			c.a.t.Fatalf("GET %s?since=: posts but no out-of-band #new-pill slot: %.500s", path, r.body)
		}
		return ids, ""
	}
	if !strings.Contains(slot, `hx-swap-oob="true"`) {
		c.a.t.Fatalf("GET %s?since=: the #new-pill slot is not out of band: %s", path, slot)
	}
	return ids, filterSlotFencepost(c.a.t, slot, path)
}

// filterSlotFencepost reads the fencepost a #new-pill poll slot asks about.
func filterSlotFencepost(t *testing.T, slot, path string) string {
	t.Helper()
	m := filterHxGetRe.FindStringSubmatch(slot)
	if m == nil {
		t.Fatalf("the #new-pill slot polls nothing: %s", slot)
	}
	u, err := url.Parse(html.UnescapeString(m[1]))
	if err != nil || u.Path != path || u.Query().Get("new") == "" {
		t.Fatalf("the #new-pill slot polls %q, want %s?new=<fencepost>", m[1], path)
	}
	return u.Query().Get("new")
}

func filterFencepostTime(t *testing.T, fp string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, fp)
	if err != nil {
		t.Fatalf("fencepost %q: %v", fp, err)
	}
	return at
}
