package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// shareTagged shares link with tags as c.
func (c *client) shareTagged(link, title, tags string) {
	c.a.t.Helper()
	c.a.now = c.a.now.Add(time.Second)
	if r := c.post("/share", url.Values{"url": {link}, "title": {title}, "tags": {tags}}); r.status != http.StatusSeeOther {
		c.a.t.Fatalf("share %s: status %d: %s", link, r.status, r.body)
	}
}

func (a *app) exec(q string, args ...any) {
	a.t.Helper()
	if _, err := a.store.Pool.Exec(a.t.Context(), q, args...); err != nil {
		a.t.Fatal(err)
	}
}

// A newcomer's first run: sign-up leads to picking tags, the tags' sharers and trusted
// members are suggested, a follow button follows in place (or comes back without
// JavaScript), and the home feed shows suggestions above it and the front page's items
// below it, marked "Popular now" — never a trusted member in a ban with the newcomer, nor
// their items.
func TestNewcomerFirstRun(t *testing.T) {
	a := newApp(t)
	vip, banner, sharer := a.client(), a.client(), a.client()
	vip.signup("vic")
	banner.signup("bea")
	sharer.signup("sam")
	vip.shareTagged("https://example.com/vic-paper", "Vic's paper", "physics")
	banner.shareTagged("https://example.com/bea-paper", "Bea's paper", "physics")
	sharer.shareTagged("https://example.com/sam-paper", "Sam's paper", "ml")
	a.exec("UPDATE users SET vip = true WHERE handle IN ('vic', 'bea')")

	nel := a.client()
	r := nel.post("/signup", url.Values{"handle": {"nel"}, "password": {"correct horse"}})
	if r.status != http.StatusSeeOther || r.location != "/welcome" {
		t.Fatalf("sign-up: status %d location %q, want 303 to /welcome", r.status, r.location)
	}
	if r := banner.post("/u/nel/ban", nil); r.status != http.StatusSeeOther {
		t.Fatalf("ban: %d", r.status)
	}
	r = nel.get("/welcome")
	if r.status != http.StatusOK || !strings.Contains(r.body, `value="ml"`) || !strings.Contains(r.body, `value="physics"`) {
		t.Fatalf("the first-run page does not offer the popular tags: %d %s", r.status, r.body)
	}
	if r := nel.post("/welcome", url.Values{"tag": {"ml"}}); r.status != http.StatusSeeOther || r.location != "/people" {
		t.Fatalf("picking tags: status %d location %q, want 303 to /people", r.status, r.location)
	}
	if r := nel.get("/welcome"); !strings.Contains(r.body, `value="ml" checked`) {
		t.Fatalf("the picked tag is not checked on the first-run page again")
	}
	r = nel.get("/people")
	if r.status != http.StatusOK {
		t.Fatalf("people: status %d", r.status)
	}
	sam, vic := strings.Index(r.body, `data-handle="sam"`), strings.Index(r.body, `data-handle="vic"`)
	if sam < 0 || vic < 0 || sam > vic || strings.Contains(r.body, `data-handle="bea"`) || strings.Contains(r.body, `data-handle="nel"`) {
		t.Fatalf("suggestions: want sam (a sharer of ml) then vic (trusted), never bea or nel:\n%s", r.body)
	}
	if !strings.Contains(r.body, "Shared 1 post on your tags lately") || !strings.Contains(r.body, "A trusted member") {
		t.Errorf("the suggestions do not say why")
	}

	// Following in place: htmx gets the button back in its new state, with the same id.
	hx := http.Header{"Hx-Request": {"true"}}
	r = nel.do("POST", "/u/sam/follow", url.Values{"view": {"person"}, "return": {"/people"}}, hx)
	if r.status != http.StatusOK || !strings.Contains(r.body, `data-testid="person-unfollow"`) || !strings.Contains(r.body, `-button"`) ||
		!strings.Contains(r.body, `action="/u/sam/unfollow"`) || strings.Contains(r.body, "<html") {
		t.Fatalf("an in-place follow: status %d, want the button as Following:\n%s", r.status, r.body)
	}
	// Without JavaScript: back where the form said.
	if r := nel.post("/u/sam/unfollow", url.Values{"view": {"person"}, "return": {"/people?q=sam"}}); r.status != http.StatusSeeOther || r.location != "/people?q=sam" {
		t.Fatalf("a follow without htmx: status %d location %q", r.status, r.location)
	}
	if r := nel.post("/u/sam/follow", url.Values{"return": {"https://evil.example/"}}); r.status != http.StatusSeeOther || r.location != "/u/sam" {
		t.Fatalf("a follow returning off the site: location %q, want the user's page", r.location)
	}

	// Home: suggestions above, sam's share in the feed, vic's below marked popular, bea's nowhere.
	r = nel.get("/")
	for _, want := range []string{`data-testid="suggestions"`, `data-handle="vic"`, "Sam&#39;s paper", `data-testid="popular"`, "Vic&#39;s paper", `data-testid="popular-mark"`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("a newcomer's home lacks %s", want)
		}
	}
	if strings.Contains(r.body, "Bea&#39;s paper") || strings.Contains(r.body, `data-handle="bea"`) || strings.Contains(r.body, "Your feed is empty") {
		t.Errorf("a newcomer's home shows bea, who banned them, or says the feed is empty:\n%s", r.body)
	}
	if strings.Index(r.body, "Sam&#39;s paper") > strings.Index(r.body, "Vic&#39;s paper") {
		t.Errorf("the front page's items come before the newcomer's own feed")
	}
	// The JSON page is filled the same way.
	if r := nel.get("/api/timeline"); !strings.Contains(r.body, `"popular":[`) || !strings.Contains(r.body[strings.Index(r.body, `"popular":[`):], "Vic's paper") {
		t.Errorf("a newcomer's /api/timeline has no popular items: %s", r.body)
	}
	// A popular card takes likes and comments as any card does, as its reader's own.
	popular := r.body[strings.Index(r.body, `data-testid="popular"`):]
	like := regexp.MustCompile(`action="(/p/\d+/like)"`).FindStringSubmatch(popular)
	if like == nil || !strings.Contains(popular, `data-testid="comment-body"`) {
		t.Fatalf("a popular card has no like or comment control:\n%s", popular)
	}
	if r := nel.post(like[1], url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("liking a popular card: %d %s", r.status, r.body)
	}
	r = nel.get("/")
	if popular := r.body[strings.Index(r.body, `data-testid="popular"`):]; !strings.Contains(popular, `aria-pressed="true"`) {
		t.Errorf("a popular card the newcomer liked does not say so:\n%s", popular)
	}

	// Following five people, the home feed is one's own.
	for _, h := range []string{"u1", "u2", "u3", "u4"} {
		a.client().signup(h)
		if r := nel.post("/u/"+h+"/follow", nil); r.status != http.StatusSeeOther {
			t.Fatalf("follow %s: %d", h, r.status)
		}
	}
	r = nel.get("/")
	if strings.Contains(r.body, `data-testid="suggestions"`) || strings.Contains(r.body, `data-testid="popular"`) || !strings.Contains(r.body, "Sam&#39;s paper") {
		t.Errorf("with five followees the home feed still shows a newcomer's additions")
	}
	if r := nel.get("/api/timeline"); strings.Contains(r.body, `"popular"`) {
		t.Errorf("with five followees /api/timeline still has popular items")
	}
}

// The people search finds handles and names; text too long is a 400 with a message; the
// pages need a login.
func TestPeopleSearch(t *testing.T) {
	a := newApp(t)
	a.client().signup("carla")
	nel := a.client()
	nel.signup("nel")
	if r := nel.get("/people?q=arl"); r.status != http.StatusOK || !strings.Contains(r.body, `data-handle="carla"`) || !strings.Contains(r.body, `data-testid="people-results"`) {
		t.Fatalf("search arl: %d, carla not found", r.status)
	}
	if r := nel.get("/people?q=zzz"); !strings.Contains(r.body, `data-testid="people-none"`) {
		t.Errorf("search zzz does not say nobody matches")
	}
	if r := nel.get("/people?q=" + strings.Repeat("a", 65)); r.status != http.StatusBadRequest || !strings.Contains(r.body, "at most 64 characters") {
		t.Errorf("a long search: status %d, want 400 with a message", r.status)
	}
	if r := nel.post("/welcome", url.Values{"tag": {"bad tag!"}}); r.status != http.StatusBadRequest || !strings.Contains(r.body, "may use only") {
		t.Errorf("a bad tag: status %d, want 400 with a message", r.status)
	}
	for _, p := range []string{"/people", "/welcome"} {
		if r := a.client().get(p); r.status != http.StatusSeeOther || !strings.HasPrefix(r.location, "/login") {
			t.Errorf("anonymous %s: status %d location %q, want the log-in page", p, r.status, r.location)
		}
	}
}
