package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestShareFollowHome(t *testing.T) {
	a := newApp(t)
	ada, grace := a.client(), a.client()
	ada.signup("ada")
	grace.signup("grace")

	r := ada.post("/share", url.Values{"url": {"https://arxiv.org/pdf/2401.12345v2"}, "title": {"A paper"},
		"body": {"Worth a read."}, "tags": {"ml, #NLP"}})
	if r.status != http.StatusSeeOther || r.location != "/u/ada" {
		t.Fatalf("share: status %d location %q, want 303 to /u/ada", r.status, r.location)
	}
	page := ada.get("/u/ada").body
	for _, want := range []string{"A paper", "Worth a read.", "#ml", "#nlp", "arxiv.org", "arXiv"} {
		if !strings.Contains(page, want) {
			t.Errorf("ada's page lacks %q", want)
		}
	}
	if got := cards(grace.get("/").body); len(got) != 0 {
		t.Fatalf("grace sees %d cards before following, want 0", len(got))
	}
	if r := grace.post("/u/ada/follow", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("follow: status %d, want 303", r.status)
	}
	home := grace.get("/").body
	if got := cards(home); len(got) != 1 || !strings.Contains(home, "A paper") {
		t.Fatalf("grace's home after following: %d cards, want ada's 1", len(got))
	}
	if !strings.Contains(grace.get("/u/ada").body, `data-testid="unfollow"`) {
		t.Fatal("ada's page does not offer grace to unfollow")
	}
	grace.post("/u/ada/unfollow", url.Values{})
	if got := cards(grace.get("/").body); len(got) != 0 {
		t.Fatalf("grace sees %d cards after unfollowing, want 0", len(got))
	}
}

func TestShareValidation(t *testing.T) {
	a := newApp(t)
	c := a.client()
	c.signup("ada")
	for _, tc := range []struct{ name, url, field, want string }{
		{"empty", "", "url", "URL is required."},
		{"not http", "ftp://example.com/file", "url", "URL is not valid"},
		{"no host", "https://", "url", "URL is not valid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.post("/share", url.Values{"url": {tc.url}, "title": {"kept title"}})
			if r.status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", r.status)
			}
			if !strings.Contains(r.body, `data-testid="error-`+tc.field+`"`) || !strings.Contains(r.body, tc.want) {
				t.Fatalf("body lacks the %s error %q", tc.field, tc.want)
			}
			if !strings.Contains(r.body, `value="kept title"`) {
				t.Fatal("the title typed was lost")
			}
		})
	}
	if r := a.client().get("/share"); r.status != http.StatusSeeOther || !strings.HasPrefix(r.location, "/login") {
		t.Fatalf("anonymous GET /share: status %d location %q, want a redirect to /login", r.status, r.location)
	}
	if r := a.client().post("/share", url.Values{"url": {"https://example.com"}}); r.status != http.StatusUnauthorized {
		t.Fatalf("anonymous POST /share: status %d, want 401", r.status)
	}
}

func TestUserPagePaginates(t *testing.T) {
	a := newApp(t)
	c := a.client()
	c.signup("ada")
	for i := range 25 {
		a.now = a.now.Add(time.Minute)
		c.post("/share", url.Values{"url": {"https://example.com/post/" + string(rune('a'+i))}})
	}
	first := c.get("/u/ada").body
	m := regexp.MustCompile(`href="(/u/ada\?cursor=[^"]+)"`).FindStringSubmatch(first)
	if len(cards(first)) != 20 || m == nil {
		t.Fatalf("first page: %d cards, older link %v; want 20 and a link", len(cards(first)), m)
	}
	second := c.get(strings.ReplaceAll(m[1], "&amp;", "&")).body
	if got := len(cards(second)); got != 5 {
		t.Fatalf("second page: %d cards, want 5", got)
	}
	seen := map[string]bool{}
	for _, id := range append(cards(first), cards(second)...) {
		if seen[id] {
			t.Fatalf("item %s appears twice", id)
		}
		seen[id] = true
	}
	if r := c.get("/u/ada?cursor=garbage"); r.status != http.StatusBadRequest || !strings.Contains(r.body, "Back to the top") {
		t.Fatalf("malformed cursor: status %d, want 400 with a way back", r.status)
	}
}

func TestUnknownUserIs404(t *testing.T) {
	a := newApp(t)
	if r := a.client().get("/u/nobody"); r.status != http.StatusNotFound || !strings.Contains(r.body, "No user @nobody.") {
		t.Fatalf("status %d, want 404 with a message", r.status)
	}
}

var cardRe = regexp.MustCompile(`data-testid="card" data-item-id="([^"]+)"`)

// cards returns the item ids of the cards on a page, in order.
func cards(body string) []string {
	var ids []string
	for _, m := range cardRe.FindAllStringSubmatch(body, -1) {
		ids = append(ids, m[1])
	}
	return ids
}
