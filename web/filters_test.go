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

// Likes, comments with @mentions and #tags, and shares with them in their text put posts in
// the five feeds, in the order each promises; unlikes, deleted and edited comments take them
// out again (as a reader who opens the feed afterwards sees it).
func TestFilterFeedsFollowActions(t *testing.T) {
	a := newApp(t)
	ada, bob, carol, dan := a.client(), a.client(), a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	carol.signup("carol")
	dan.signup("dan")
	p1 := ada.filterShare("https://example.com/filters/1", "", "")
	p2 := ada.filterShare("https://example.com/filters/2", "", "")
	p3 := ada.filterShare("https://example.com/filters/3", "", "")
	p4 := carol.filterShare("https://example.com/filters/4", "Reading this with @bob #Graphs", "")
	p5 := dan.filterShare("https://example.com/filters/5", "", "ml")

	// Liked by: newest like first, to anyone who looks.
	bob.filterLike(p2)
	bob.filterLike(p1)
	bob.filterLike(p3)
	a.client().filterSees("anonymous, bob's likes", "/u/bob/likes", p3, p1, p2)
	carol.filterSees("carol, bob's likes", "/u/bob/likes", p3, p1, p2)
	_, page := carol.filterFeed("/u/bob/likes")
	if !strings.Contains(page, `data-testid="feed-heading">Liked by bob<`) {
		t.Error("the likes page is not headed Liked by bob")
	}
	if !regexp.MustCompile(`href="/u/bob/likes" data-testid="tab-Likes" aria-current="page"`).MatchString(page) ||
		!strings.Contains(page, `href="/u/bob/comments" data-testid="tab-Comments"`) || !strings.Contains(page, `href="/u/bob" data-testid="tab-Posts"`) {
		t.Error("the likes page does not show bob's tabs with Likes current")
	}
	if ids, page := carol.filterFeed("/u/ada/likes"); len(ids) != 0 || !strings.Contains(page, "@ada has not liked any post you can read.") {
		t.Errorf("ada liked nothing: posts %v, or no empty message", ids)
	}
	if env := carol.filterJSON("/u/bob/likes"); *env.Path != "/u/bob/likes" || *env.Fencepost == "" || *env.NextCursor != "" || len(env.Posts) == 0 ||
		env.Posts[0].URL != "https://example.com/filters/3" || env.Posts[0].Author.Handle != "ada" || env.Posts[0].Talk.Likes != 1 || env.Posts[0].Talk.Liked {
		t.Errorf("bob's likes as JSON: path %q fencepost %q next_cursor %q, posts %+v", *env.Path, *env.Fencepost, *env.NextCursor, env.Posts)
	}
	if env := bob.filterJSON("/u/bob/likes"); len(env.Posts) == 0 || !env.Posts[0].Talk.Liked {
		t.Error("bob's own likes as JSON: the talk does not say he liked them")
	}

	// Commented on by, tags (the form's, a share's text, comments), mentions (a share's text,
	// comments, any case).
	c2 := bob.filterComment(p2, "+1 #ml")
	c1 := carol.filterComment(p1, "Nice, @bob! #ml")
	dan.filterComment(p3, "see @BOB")
	dan.filterComment(p1, "me too")
	carol.filterSees("carol's comments", "/u/carol/comments", p1)
	ada.filterSees("bob's comments", "/u/bob/comments", p2)
	ada.filterSees("dan's comments, newest first", "/u/dan/comments", p1, p3)
	if _, page := ada.filterFeed("/u/dan/comments"); !strings.Contains(page, `data-testid="feed-heading">Commented on by dan<`) ||
		!regexp.MustCompile(`data-testid="tab-Comments" aria-current="page"`).MatchString(page) {
		t.Error("the comments page is not headed Commented on by dan with its tab current")
	}
	a.client().filterSees("anonymous, #ml", "/t/ml", p1, p2, p5)
	ada.filterSees("ada, #ML", "/t/ML", p1, p2, p5)
	if env := ada.filterJSON("/t/ML"); *env.Path != "/t/ml" {
		t.Errorf("#ML as JSON: path %q, want the normalized /t/ml", *env.Path)
	}
	if _, page := ada.filterFeed("/t/ml"); !strings.Contains(page, `data-testid="feed-heading">#ml<`) {
		t.Error("the tag page is not headed #ml")
	}
	a.client().filterSees("#graphs from a share's text", "/t/graphs", p4)
	bob.filterSees("bob's mentions", "/mentions", p3, p1, p4)
	if env := bob.filterJSON("/mentions"); *env.Path != "/mentions" {
		t.Errorf("mentions as JSON: path %q", *env.Path)
	}
	if ids, page := carol.filterFeed("/mentions"); len(ids) != 0 || !strings.Contains(page, "Nobody has mentioned you yet.") {
		t.Errorf("carol's mentions: posts %v, want none and the empty message", ids)
	}

	// Discussions: one's own posts and what one liked or commented on, by the last bump.
	p6 := bob.filterShare("https://example.com/filters/6", "", "")
	bob.filterSees("bob's discussions", "/discussions", p6, p1, p3, p2)
	ada.filterSees("ada's discussions", "/discussions", p1, p3, p2)
	carol.filterSees("carol's discussions", "/discussions", p1, p4)
	dan.filterSees("dan's discussions", "/discussions", p1, p3, p5)
	if _, page := dan.filterFeed("/discussions"); !strings.Contains(page, `data-testid="feed-heading">My discussions<`) {
		t.Error("the discussions page is not headed My discussions")
	}
	// A comment bumps the young post: it comes first on the next load.
	bob.filterComment(p2, "still thinking about it")
	bob.filterSees("bob's discussions after a bump", "/discussions", p2, p6, p1, p3)
	ada.filterSees("ada's discussions after a bump", "/discussions", p2, p1, p3)
	// A like does not bump: ada liking bob's p6 puts it in her discussions at her like.
	ada.filterLike(p6)
	ada.filterSees("ada's discussions after her like", "/discussions", p6, p2, p1, p3)
	bob.filterSees("bob's discussions after ada's like", "/discussions", p2, p6, p1, p3)

	// An unlike takes the post out of the likes; a like again puts it first.
	bob.filterUnlike(p1)
	r1 := a.filterReader()
	r1.filterSees("after bob's unlike", "/u/bob/likes", p3, p2)
	bob.filterLike(p1)
	a.filterReader().filterSees("after bob's like again", "/u/bob/likes", p1, p3, p2)
	r1.filterSees("after bob's like again, to a reader who had the page", "/u/bob/likes", p1, p3, p2)

	// A deleted comment takes its tag, mention and commenter's entry with it; an edited one
	// its old tag.
	if r := carol.post("/comments/"+itoa(c1)+"/delete", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("delete carol's comment: status %d", r.status)
	}
	r2 := a.filterReader()
	r2.filterSees("carol's comments after she deleted hers", "/u/carol/comments", []int64{}...)
	r2.filterSees("#ml after the deletion", "/t/ml", p2, p5)
	a.filterTick()
	if r := bob.post("/comments/"+itoa(c2)+"/edit", url.Values{"body": {"+1"}}); r.status != http.StatusSeeOther {
		t.Fatalf("edit bob's comment: status %d", r.status)
	}
	a.filterReader().filterSees("#ml after the edit took the tag out", "/t/ml", p5)
	a.filterReader().filterSees("bob's comments after the edit", "/u/bob/comments", p2)

	// Removals before a reader's own feeds are first opened.
	gina := a.client()
	gina.signup("gina")
	dan.filterComment(p3, "@gina this one")
	gone := dan.filterComment(p2, "@Gina and this one")
	if r := dan.post("/comments/"+itoa(gone)+"/delete", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("delete dan's comment: status %d", r.status)
	}
	gina.filterSees("gina's mentions after one was deleted", "/mentions", p3)
	gina.filterLike(p2)
	gina.filterLike(p4)
	gina.filterLike(p5)
	gina.filterComment(p4, "hm")
	gina.filterUnlike(p4) // still commented on: stays
	gina.filterUnlike(p2) // only liked: goes
	gina.filterSees("gina's discussions after two unlikes", "/discussions", p4, p5)
}

// A post leaving a feed (an unlike, a deleted comment) leaves it for readers who had opened
// the feed before too: the next load of the page does not show it.
func TestFilterRemovalsReachOpenFeeds(t *testing.T) {
	a := newApp(t)
	ada, bob, carol := a.client(), a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	carol.signup("carol")
	anon := a.client()
	p1 := ada.filterShare("https://example.com/open/1", "", "")
	p2 := ada.filterShare("https://example.com/open/2", "", "")
	bob.filterLike(p1)
	bob.filterLike(p2)
	c := carol.filterComment(p1, "@bob #ml")

	anon.filterSees("anonymous, bob's likes", "/u/bob/likes", p2, p1)
	carol.filterSees("carol, bob's likes", "/u/bob/likes", p2, p1)
	bob.filterSees("bob's discussions", "/discussions", p1, p2)
	bob.filterSees("bob's mentions", "/mentions", p1)
	anon.filterSees("anonymous, #ml", "/t/ml", p1)
	ada.filterSees("ada, carol's comments", "/u/carol/comments", p1)

	bob.filterUnlike(p2)
	anon.filterSees("anonymous, bob's likes after the unlike", "/u/bob/likes", p1)
	carol.filterSees("carol, bob's likes after the unlike", "/u/bob/likes", p1)
	bob.filterSees("bob's discussions after the unlike", "/discussions", p1)

	if r := carol.post("/comments/"+itoa(c)+"/delete", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("delete carol's comment: status %d", r.status)
	}
	a.filterTick()
	bob.filterSees("bob's mentions after the deletion", "/mentions")
	anon.filterSees("anonymous, #ml after the deletion", "/t/ml")
	ada.filterSees("ada, carol's comments after the deletion", "/u/carol/comments")
}

// Access: each reader sees only the posts they may read, on the page, in its JSON and in the
// pill; bans (either way) and deletions hold on the next request.
func TestFilterFeedsFollowAccess(t *testing.T) {
	a := newApp(t)
	ada, bob, carol, dan, pat, sam := a.client(), a.client(), a.client(), a.client(), a.client(), a.client()
	for h, c := range map[string]*client{"ada": ada, "bob": bob, "carol": carol, "dan": dan, "pat": pat, "sam": sam} {
		c.signup(h)
	}
	anon := a.client()
	pat.filterAct("/settings/visibility", url.Values{"visibility": {"private"}})
	sam.filterAct("/settings/visibility", url.Values{"visibility": {"protected"}})
	for _, c := range []*client{bob, dan} {
		c.filterAct("/u/pat/follow", url.Values{})
	}
	pat.filterAct("/settings/requests/bob/approve", url.Values{})
	pat.filterAct("/settings/requests/dan/approve", url.Values{})

	pub := ada.filterShare("https://example.com/access/public", "open #open", "")
	priv := pat.filterShare("https://example.com/access/private", "secret for @carol #open", "")
	prot := sam.filterShare("https://example.com/access/protected", "members only #open", "")
	bob.filterLike(pub)
	bob.filterLike(priv)
	bob.filterLike(prot)

	anon.filterSees("anonymous, bob's likes", "/u/bob/likes", pub)
	carol.filterSees("carol (not following pat), bob's likes", "/u/bob/likes", prot, pub)
	dan.filterSees("dan (pat approved him), bob's likes", "/u/bob/likes", prot, priv, pub)
	bob.filterSees("bob, his likes", "/u/bob/likes", prot, priv, pub)
	for name, c := range map[string]*client{"anonymous": anon, "carol": carol} {
		for _, path := range []string{"/u/bob/likes", "/u/bob/likes?format=json", "/t/open", "/t/open?format=json", "/discussions", "/mentions"} {
			if body := c.get(path).body; strings.Contains(body, "access/private") || strings.Contains(body, "secret for") {
				t.Errorf("%s sees pat's private post on %s", name, path)
			}
		}
	}
	if body := anon.get("/u/bob/likes?format=json").body; strings.Contains(body, "access/protected") {
		t.Error("anonymous sees sam's protected post in bob's likes as JSON")
	}
	anon.filterSees("anonymous, #open", "/t/open", pub)
	carol.filterSees("carol, #open", "/t/open", prot, pub)
	dan.filterSees("dan, #open", "/t/open", prot, priv, pub)
	carol.filterSees("carol's mentions (only in a post she may not read)", "/mentions")

	// The pill and the posts above count only what the reader may read.
	anonFP := *anon.filterJSON("/u/bob/likes").Fencepost
	danFP := *dan.filterJSON("/u/bob/likes").Fencepost
	priv2 := pat.filterShare("https://example.com/access/private-2", "", "")
	bob.filterLike(priv2)
	if n := anon.filterPill("/u/bob/likes", anonFP); n != "" {
		t.Errorf("anonymous gets a %q new pill for a private post", n)
	}
	if ids, _ := anon.filterSince("/u/bob/likes", anonFP); len(ids) != 0 {
		t.Errorf("anonymous gets posts %v above the page for a private post", ids)
	}
	if n := dan.filterPill("/u/bob/likes", danFP); n != "1" {
		t.Errorf("dan's pill: %q new, want 1", n)
	}
	if ids, _ := dan.filterSince("/u/bob/likes", danFP); !slices.Equal(ids, []int64{priv2}) {
		t.Errorf("dan's posts above the page: %v, want [%d]", ids, priv2)
	}

	// Bans: a reader who bans the author, and an author who bans the reader.
	dan.filterAct("/u/pat/ban", url.Values{})
	dan.filterSees("dan after banning pat", "/u/bob/likes", prot, pub)
	dan.filterSees("dan after banning pat, #open", "/t/open", prot, pub)
	carol.filterAct("/u/sam/ban", url.Values{})
	carol.filterSees("carol after banning sam", "/u/bob/likes", pub)
	carol.filterSees("carol after banning sam, #open", "/t/open", pub)
	sam.filterAct("/u/dan/ban", url.Values{})
	dan.filterSees("dan after sam banned him", "/u/bob/likes", pub)
	bob.filterSees("bob, in no ban", "/u/bob/likes", priv2, prot, priv, pub)
	carol.filterAct("/u/sam/unban", url.Values{})
	carol.filterSees("carol after lifting her ban", "/u/bob/likes", prot, pub)

	// A deleted post leaves every feed.
	ada.filterAct("/posts/"+itoa(pub)+"/delete", url.Values{})
	if ids, page := anon.filterFeed("/u/bob/likes"); len(ids) != 0 || !strings.Contains(page, "@bob has not liked any post you can read.") {
		t.Errorf("anonymous, bob's likes after the deletion: %v, want none and the empty message", ids)
	}
	anon.filterSees("anonymous, bob's likes after the deletion", "/u/bob/likes")
	bob.filterSees("bob's likes after the deletion", "/u/bob/likes", priv2, prot, priv)
	carol.filterSees("#open after the deletion", "/t/open", prot)
	bob.filterSees("bob's discussions after the deletion", "/discussions", priv2, prot, priv)
	ada.filterSees("ada's discussions after deleting her post", "/discussions")
	// A post deleted after it arrived is not counted new, nor brought above the page.
	carolFP := *carol.filterJSON("/u/bob/likes").Fencepost
	pub2 := ada.filterShare("https://example.com/access/public-2", "", "")
	bob.filterLike(pub2)
	if n := carol.filterPill("/u/bob/likes", carolFP); n != "1" {
		t.Errorf("carol's pill for bob's new like: %q, want 1", n)
	}
	ada.filterAct("/posts/"+itoa(pub2)+"/delete", url.Values{})
	if n := carol.filterPill("/u/bob/likes", carolFP); n != "" {
		t.Errorf("carol's pill after the liked post was deleted: %q, want none", n)
	}
	if ids, _ := carol.filterSince("/u/bob/likes", carolFP); len(ids) != 0 {
		t.Errorf("carol gets deleted posts %v above the page", ids)
	}
}

// /mentions and /discussions are the viewer's own: anonymous visitors are sent to log in,
// and nothing in the request shows one reader another's.
func TestFilterOwnFeedsNeedLogin(t *testing.T) {
	a := newApp(t)
	ada, bob, carol := a.client(), a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	carol.signup("carol")
	p := ada.filterShare("https://example.com/own/1", "for @bob", "")
	bob.filterLike(p)
	bob.filterComment(p, "thanks @ada")

	anon := a.client()
	for _, path := range []string{"/mentions", "/discussions"} {
		for _, q := range []string{"", "?format=json", "?new=" + url.QueryEscape("2000-01-01T00:00:00Z"), "?since=" + url.QueryEscape("2000-01-01T00:00:00Z")} {
			r := anon.get(path + q)
			if r.status != http.StatusSeeOther || r.location != "/login?next="+path {
				t.Errorf("anonymous GET %s%s: status %d to %q, want 303 to /login?next=%s", path, q, r.status, r.location, path)
			}
			if strings.Contains(r.body, "own/1") {
				t.Errorf("anonymous GET %s%s shows a post", path, q)
			}
		}
		r := anon.do("GET", path, nil, http.Header{"Accept": {"application/json"}})
		if r.status != http.StatusUnauthorized || !strings.Contains(r.body, `"error"`) {
			t.Errorf("anonymous GET %s asking for JSON: status %d, want 401 with an error: %.200s", path, r.status, r.body)
		}
	}

	bob.filterSees("bob's mentions", "/mentions", p)
	bob.filterSees("bob's discussions", "/discussions", p)
	old := "2000-01-01T00:00:00Z"
	if n := bob.filterPill("/mentions", old); n != "1" {
		t.Errorf("bob's mentions since 2000: %q new, want 1", n)
	}
	// Carol asking every way she could for bob's: only her own (empty) feeds.
	for _, path := range []string{"/mentions", "/discussions"} {
		for _, q := range []string{"", "?handle=bob", "?user=bob", "?viewer=2"} {
			carol.filterSees("carol's "+path+q, path+q)
		}
		if n := carol.filterPill(path, old); n != "" {
			t.Errorf("carol's %s since 2000: %q new, want no pill", path, n)
		}
		if ids, _ := carol.filterSince(path, old); len(ids) != 0 {
			t.Errorf("carol's %s since 2000: posts %v, want none", path, ids)
		}
	}
	ada.filterSees("ada's mentions (from bob's comment)", "/mentions", p)
	ada.filterSees("ada's discussions (her post)", "/discussions", p)
	if r := bob.get("/mentions"); r.header.Get("Cache-Control") == "" || strings.Contains(r.header.Get("Cache-Control"), "public") {
		t.Errorf("bob's mentions: Cache-Control %q, want private", r.header.Get("Cache-Control"))
	}
}

// The "N new" pill counts the posts that arrived after the open page's fencepost; ?since=
// brings them above the page with a poll slot counting from their fencepost. The same holds
// on every chronological page.
func TestFilterNewPillAndSince(t *testing.T) {
	a := newApp(t)
	ada, bob, carol := a.client(), a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	carol.signup("carol")
	p1 := ada.filterShare("https://example.com/pill/1", "", "")
	p2 := ada.filterShare("https://example.com/pill/2", "", "")
	p3 := ada.filterShare("https://example.com/pill/3", "", "")
	bob.filterLike(p1)

	ids, page := carol.filterFeed("/u/bob/likes")
	filterWant(t, "first page", ids, p1)
	fp := attr(page, "data-fencepost")
	if fp == "" {
		t.Fatal("the feed has no data-fencepost")
	}
	slot := filterSlotRe.FindString(page)
	if slot == "" || strings.Contains(slot, "hx-swap-oob") {
		t.Fatalf("the page has no #new-pill poll slot: %q", slot)
	}
	if got := filterSlotFencepost(t, slot, "/u/bob/likes"); got != fp {
		t.Errorf("the poll slot asks about fencepost %q, the feed shows %q", got, fp)
	}
	if env := carol.filterJSON("/u/bob/likes"); *env.Fencepost != fp {
		t.Errorf("the JSON page's fencepost %q, the HTML page's %q (nothing arrived between)", *env.Fencepost, fp)
	}
	if n := carol.filterPill("/u/bob/likes", fp); n != "" {
		t.Errorf("nothing arrived yet: pill %q", n)
	}

	bob.filterLike(p3)
	bob.filterLike(p2)
	if n := carol.filterPill("/u/bob/likes", fp); n != "2" {
		t.Errorf("after two likes: pill %q new, want 2", n)
	}
	if r := carol.get("/u/bob/likes?new=" + url.QueryEscape(fp)); r.status != http.StatusOK || strings.Contains(r.body, "<html") || !filterPillRe.MatchString(r.body) {
		t.Errorf("the pill without HX-Request: status %d, want the same fragment: %.200s", r.status, r.body)
	}
	above, next := carol.filterSince("/u/bob/likes", fp)
	filterWant(t, "the posts above the page", above, p2, p3)
	if !filterFencepostTime(t, next).After(filterFencepostTime(t, fp)) {
		t.Errorf("the poll slot's fencepost %s is not after the page's %s", next, fp)
	}
	if n := carol.filterPill("/u/bob/likes", next); n != "" {
		t.Errorf("counting from the new fencepost: pill %q, want none", n)
	}
	if n := carol.filterPill("/u/bob/likes", fp); n != "2" {
		t.Errorf("the old fencepost still counts from itself: pill %q, want 2", n)
	}
	if env := carol.filterJSON("/u/bob/likes"); *env.Fencepost != next || !slices.Equal(env.ids(), []int64{p2, p3, p1}) {
		t.Errorf("the first page after ?since=: fencepost %q posts %v, want %q and [%d %d %d]", *env.Fencepost, env.ids(), next, p2, p3, p1)
	}
	// A like again moves a post up: it counts as new.
	bob.filterUnlike(p1)
	bob.filterLike(p1)
	if n := carol.filterPill("/u/bob/likes", next); n != "1" {
		t.Errorf("after a like again: pill %q, want 1", n)
	}
	if above, _ := carol.filterSince("/u/bob/likes", next); !slices.Equal(above, []int64{p1}) {
		t.Errorf("after a like again, above the page: %v, want [%d]", above, p1)
	}

	// A hundred or more new posts read 99+ (the hundred written straight to the database:
	// shares are rate-limited).
	for i := range 3 {
		ada.filterShare(fmt.Sprintf("https://example.com/pill/many/%d", i), "#many", "")
	}
	if n := carol.filterPill("/t/many", "2000-01-01T00:00:00Z"); n != "3" {
		t.Errorf("#many since 2000: pill %q, want 3", n)
	}
	if _, err := a.store.Pool.Exec(t.Context(), `INSERT INTO posts (author_id, anchor_id, url, title, body, canonical_url, anchor_url, kind,
		anchor_kind, host, link_hosts, linked_urls, image_count, url_count, sci_score, tags, created_at, bumped_at, is_public)
		SELECT p.author_id, p.anchor_id, p.url, p.title, p.body, p.canonical_url, p.anchor_url, p.kind, p.anchor_kind, p.host,
		       p.link_hosts, p.linked_urls, p.image_count, p.url_count, p.sci_score, '{many}', p.created_at + i * interval '1 ms', p.created_at + i * interval '1 ms', true
		  FROM posts p, generate_series(1, 100) i WHERE p.id = $1`, p1); err != nil {
		t.Fatal(err)
	}
	if n := carol.filterPill("/t/many", "2000-01-01T00:00:00Z"); n != "99+" {
		t.Errorf("#many with over a hundred posts: pill %q, want 99+", n)
	}

	// Every chronological page: a user's posts, a group's, the directs.
	bob.filterAct("/u/ada/follow", url.Values{})
	if r := ada.post("/groups", url.Values{"name": {"lab"}, "title": {"Lab"}, "access": {"public"}}); r.status != http.StatusSeeOther {
		t.Fatalf("create group: status %d", r.status)
	}
	toGroup := func(link string) {
		a.filterTick()
		if r := ada.post("/share", url.Values{"url": {link}, "dest": {"1"}, "group": {"lab"}, "own": {"1"}}); r.status != http.StatusSeeOther {
			t.Fatalf("share to the group: status %d %.300s", r.status, r.body)
		}
	}
	direct := func(link string) {
		a.filterTick()
		if r := ada.post("/share", url.Values{"url": {link}, "dest": {"1"}, "direct": {"@bob"}}); r.status != http.StatusSeeOther {
			t.Fatalf("direct: status %d %.300s", r.status, r.body)
		}
	}
	toGroup("https://example.com/pill/group-first") // an empty feed has no fencepost to count from
	direct("https://example.com/pill/direct-first")
	a.filterTick()
	groupFP := *carol.filterJSON("/g/lab").Fencepost
	directsFP := *bob.filterJSON("/directs").Fencepost
	userFP := *carol.filterJSON("/u/ada").Fencepost
	toGroup("https://example.com/pill/group")
	direct("https://example.com/pill/direct")
	for _, c := range []struct {
		who        *client
		path, fp   string
		want, link string
	}{
		{carol, "/u/ada", userFP, "1", "pill/group"},
		{carol, "/g/lab", groupFP, "1", "pill/group"},
		{bob, "/directs", directsFP, "1", "pill/direct"},
	} {
		if n := c.who.filterPill(c.path, c.fp); n != c.want {
			t.Errorf("%s: pill %q, want %s", c.path, n, c.want)
		}
		r := c.who.do("GET", c.path+"?since="+url.QueryEscape(c.fp), nil, htmx)
		if r.status != http.StatusOK || !strings.Contains(r.body, c.link) || len(filterCardIDs(r.body)) != 1 {
			t.Errorf("%s?since=: status %d, want the one new post: %.300s", c.path, r.status, r.body)
		}
		if env := c.who.filterJSON(c.path); *env.Path != c.path || len(env.Posts) == 0 || !strings.Contains(env.Posts[0].URL, c.link) {
			t.Errorf("%s as JSON: path %q, %d posts", c.path, *env.Path, len(env.Posts))
		}
	}
}

// Scrolling a filter feed with next_cursor lists each post once, in order, across pages,
// while new posts arrive and old ones move up; the htmx scroll gets fragments.
func TestFilterScrollsEveryPostOnce(t *testing.T) {
	a := newApp(t)
	ada, bob := a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	var posts []int64 // newest first
	for i := range 25 {
		posts = append([]int64{ada.filterShare(fmt.Sprintf("https://example.com/scroll/%d", i), "", "bulk")}, posts...)
	}
	anon := a.client()
	first := anon.filterJSON("/t/bulk")
	if *first.Path != "/t/bulk" || *first.Fencepost == "" || *first.NextCursor == "" || len(first.Posts) != 20 {
		t.Fatalf("first page: path %q fencepost %q next_cursor %q, %d posts; want 20 and a cursor", *first.Path, *first.Fencepost, *first.NextCursor, len(first.Posts))
	}
	filterWant(t, "first page", first.ids(), posts[:20]...)
	if ids, page := anon.filterFeed("/t/bulk"); !slices.Equal(ids, posts[:20]) || !strings.Contains(page, `data-testid="sentinel"`) {
		t.Errorf("first HTML page: %v, or no sentinel to scroll on", ids)
	}

	// Meanwhile a new post arrives and the oldest is commented on with the tag.
	newest := ada.filterShare("https://example.com/scroll/new", "", "bulk")
	bob.filterComment(posts[24], "back to #bulk")

	cursor := *first.NextCursor
	second := anon.filterJSON("/t/bulk?cursor=" + url.QueryEscape(cursor))
	filterWant(t, "second page", second.ids(), posts[20:]...)
	if *second.NextCursor != "" {
		t.Errorf("second page: next_cursor %q at the end of the feed", *second.NextCursor)
	}
	seen := map[int64]int{}
	for _, id := range append(first.ids(), second.ids()...) {
		seen[id]++
	}
	for _, id := range posts {
		if seen[id] != 1 {
			t.Errorf("post %d listed %d times over the scroll", id, seen[id])
		}
	}
	if seen[newest] != 0 {
		t.Error("the post that arrived during the scroll is in an older page")
	}
	r := anon.do("GET", "/t/bulk?cursor="+url.QueryEscape(cursor), nil, htmx)
	if r.status != http.StatusOK || strings.Contains(r.body, "<html") || !slices.Equal(filterCardIDs(r.body), posts[20:]) ||
		!strings.Contains(r.body, `data-testid="end"`) {
		t.Errorf("htmx next page: status %d, posts %v, want a fragment of %v ending the feed", r.status, filterCardIDs(r.body), posts[20:])
	}
	r = anon.get("/t/bulk?cursor=" + url.QueryEscape(cursor))
	if r.status != http.StatusOK || !strings.Contains(r.body, "<html") || !slices.Equal(filterCardIDs(r.body), posts[20:]) {
		t.Errorf("the Older link without JavaScript: status %d, posts %v, want a whole page of %v", r.status, filterCardIDs(r.body), posts[20:])
	}

	// What arrived since the first page: the new post and the commented one.
	if n := anon.filterPill("/t/bulk", *first.Fencepost); n != "2" {
		t.Errorf("pill after the scroll: %q, want 2", n)
	}
	above, _ := anon.filterSince("/t/bulk", *first.Fencepost)
	filterWant(t, "above the page", above, posts[24], newest)

	// A logged-in reader scrolls the HTML pages with htmx from a fresh first page.
	ids, page := bob.filterFeed("/t/bulk")
	all := ids
	for pages := 1; ; pages++ {
		next := attr(page, `data-testid="sentinel" hx-get`)
		if next == "" {
			break
		}
		if pages > 5 {
			t.Fatal("the scroll does not end")
		}
		r := bob.do("GET", html.UnescapeString(next), nil, htmx)
		if r.status != http.StatusOK || strings.Contains(r.body, "<html") {
			t.Fatalf("htmx page %d: status %d", pages+1, r.status)
		}
		page = r.body
		all = append(all, filterCardIDs(page)...)
	}
	if len(all) != 26 || all[0] != posts[24] || all[1] != newest {
		t.Errorf("bob's scroll: %d posts starting %v, want 26 starting with the commented and the new one", len(all), all[:min(len(all), 2)])
	}
}

// Bad input is answered 400 with a message (404 for an unknown user), never a page of posts.
func TestFilterBadInput(t *testing.T) {
	a := newApp(t)
	bob := a.client()
	bob.signup("bob")
	p := bob.filterShare("https://example.com/bad/1", "#ok", "")
	bob.filterLike(p)
	anon := a.client()

	for _, tag := range []string{"a%20b", strings.Repeat("a", 41), "%23", "a%21b", "caf%C3%A9%3F"} {
		r := anon.get("/t/" + tag)
		if r.status != http.StatusBadRequest || !strings.Contains(r.body, "may use only letters, digits, &#39;-&#39;, &#39;_&#39; and &#39;.&#39;, at most 40 of them.") ||
			strings.Contains(r.body, "Internal error") || len(filterCardIDs(r.body)) != 0 {
			t.Errorf("GET /t/%s: status %d, want 400 with the tag rule: %.300s", tag, r.status, r.body)
		}
	}
	for _, tag := range []string{strings.Repeat("a", 40), "caf%C3%A9", "v1.2_x-y"} {
		if r := anon.get("/t/" + tag); r.status != http.StatusOK {
			t.Errorf("GET /t/%s: status %d, want 200", tag, r.status)
		}
	}
	if r := anon.do("GET", "/t/a%20b", nil, htmx); r.status != http.StatusBadRequest || strings.Contains(r.body, "<html") {
		t.Errorf("htmx GET /t/a%%20b: status %d, want a 400 fragment", r.status)
	}

	paths := []string{"/u/bob/likes", "/u/bob/comments", "/t/ok", "/mentions", "/discussions", "/u/bob", "/directs"}
	for _, path := range paths {
		for _, q := range []string{"new=garbage", "since=garbage", "new=", "since=2026-11-20", "new=2026-11-20T12:00:00"} {
			r := bob.get(path + "?" + q)
			if r.status != http.StatusBadRequest || !strings.Contains(r.body, "must be a fencepost time") || len(filterCardIDs(r.body)) != 0 {
				t.Errorf("GET %s?%s: status %d, want 400 saying what a fencepost is: %.200s", path, q, r.status, r.body)
			}
		}
		if r := bob.do("GET", path+"?new=garbage", nil, htmx); r.status != http.StatusBadRequest || strings.Contains(r.body, "<html") {
			t.Errorf("htmx GET %s?new=garbage: status %d, want a 400 fragment", path, r.status)
		}
		for _, format := range []string{"xml", "JSON", "html", "json2"} {
			r := bob.get(path + "?format=" + format)
			if r.status != http.StatusBadRequest || !strings.Contains(r.body, "must be json or absent") || len(filterCardIDs(r.body)) != 0 {
				t.Errorf("GET %s?format=%s: status %d, want 400: %.200s", path, format, r.status, r.body)
			}
		}
		if r := bob.get(path + "?format="); r.status != http.StatusOK || !strings.Contains(r.body, "<html") {
			t.Errorf("GET %s?format= (empty): status %d, want the page", path, r.status)
		}
		r := bob.get(path + "?cursor=garbage")
		if r.status != http.StatusBadRequest || len(filterCardIDs(r.body)) != 0 {
			t.Errorf("GET %s?cursor=garbage: status %d, want 400", path, r.status)
		}
		r = bob.do("GET", path+"?cursor=garbage", nil, htmx)
		if r.status != http.StatusBadRequest || r.header.Get("HX-Redirect") != path {
			t.Errorf("htmx GET %s?cursor=garbage: status %d HX-Redirect %q, want 400 back to %s", path, r.status, r.header.Get("HX-Redirect"), path)
		}
	}
	for _, path := range []string{"/u/nobody/likes", "/u/nobody/comments", "/u/nobody/likes?format=json", "/u/nobody/comments?new=" + url.QueryEscape("2026-11-20T12:00:00Z")} {
		if r := anon.get(path); r.status != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", path, r.status)
		}
	}
}
