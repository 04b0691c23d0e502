package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"tributary"
)

// shareAs shares url as the client and returns the new post's id and anchor.
func (c *client) shareAs(link string) (post, anchor int64) {
	c.a.t.Helper()
	c.a.now = c.a.now.Add(time.Second)
	if r := c.post("/share", url.Values{"url": {link}}); r.status != http.StatusSeeOther {
		c.a.t.Fatalf("share %s: status %d: %s", link, r.status, r.body)
	}
	if err := c.a.store.Pool.QueryRow(c.a.t.Context(), "SELECT id, anchor_id FROM posts ORDER BY id DESC LIMIT 1").Scan(&post, &anchor); err != nil {
		c.a.t.Fatal(err)
	}
	return post, anchor
}

// counts reads a post's stored like and comment counts and rows.
func (a *app) counts(post int64) (likes, comments int) {
	a.t.Helper()
	var l, c, lr, cr int
	err := a.store.Pool.QueryRow(a.t.Context(), `SELECT like_count, comment_count,
		(SELECT count(*) FROM likes WHERE post_id = $1), (SELECT count(*) FROM comments WHERE post_id = $1)
		FROM posts WHERE id = $1`, post).Scan(&l, &c, &lr, &cr)
	if err != nil {
		a.t.Fatal(err)
	}
	if l != lr || c != cr {
		a.t.Fatalf("post %d: counts %d likes %d comments, rows %d and %d", post, l, c, lr, cr)
	}
	return l, c
}

var htmx = http.Header{"Hx-Request": {"true"}}

func attr(body, name string) string {
	m := regexp.MustCompile(name + `="([^"]*)"`).FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return m[1]
}

func TestLikeAndCommentFromACard(t *testing.T) {
	a := newApp(t)
	ada, bob := a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	post, anchor := ada.shareAs("https://arxiv.org/abs/2401.00001")
	p := "/p/" + itoa(post)

	// Without JavaScript: the form posts and comes back where the reader was.
	r := bob.post(p+"/like", url.Values{"view": {"post"}, "return": {"/u/ada"}})
	if r.status != http.StatusSeeOther || r.location != "/u/ada" {
		t.Fatalf("like: status %d to %q, want 303 back to /u/ada", r.status, r.location)
	}
	if r := bob.post(p+"/like", url.Values{"return": {"/u/ada"}}); r.status != http.StatusSeeOther {
		t.Fatalf("a repeated like: status %d, want a no-op", r.status)
	}
	if l, _ := a.counts(post); l != 1 {
		t.Fatalf("%d likes after liking twice, want 1", l)
	}
	page := bob.get("/u/ada").body
	if attr(page, "data-likes") != "1" || !strings.Contains(page, `data-testid="unlike"`) {
		t.Fatalf("the card does not show bob's like")
	}
	if r := bob.post(p+"/like", url.Values{"return": {"https://evil.example/"}}); r.location != p {
		t.Fatalf("an off-site return address was followed: %q", r.location)
	}

	// With htmx: the answer is the card's conversation line, as it is now.
	r = bob.do("POST", p+"/comments", url.Values{"view": {"post"}, "return": {"/u/ada"}, "body": {"Great read, @ada! #ml"}}, htmx)
	if r.status != http.StatusOK || strings.Contains(r.body, "<html") || attr(r.body, "data-comments") != "1" || !strings.Contains(r.body, `data-testid="added"`) {
		t.Fatalf("htmx comment: status %d, body %.300s", r.status, r.body)
	}
	r = ada.do("POST", p+"/like", url.Values{"view": {"item"}, "item": {itoa(anchor)}, "return": {"/"}}, htmx)
	if r.status != http.StatusOK || attr(r.body, "id") != "talk-i"+itoa(anchor) || attr(r.body, "data-likes") != "2" {
		t.Fatalf("htmx like from an item card: status %d, body %.300s", r.status, r.body)
	}
	if !strings.Contains(r.body, "Liked by") || !strings.Contains(r.body, ">bob</a>") {
		t.Fatalf("the likers are not named: %.500s", r.body)
	}
	r = bob.do("POST", p+"/unlike", url.Values{"view": {"post"}, "return": {"/u/ada"}}, htmx)
	if attr(r.body, "data-likes") != "1" || !strings.Contains(r.body, `data-testid="like"`) {
		t.Fatalf("htmx unlike: %.300s", r.body)
	}

	// The post page: the thread with its links, the likers; the JSON API's counts.
	page = bob.get(p).body
	if !strings.Contains(page, `href="/u/ada">@ada</a>`) || !strings.Contains(page, `href="/t/ml">#ml</a>`) {
		t.Fatalf("the comment's mention and tag are not links")
	}
	api := ada.get("/api/timeline?limit=10").body
	if !strings.Contains(api, `"talk":{"like_count":1,"comment_count":1,"liked":true`) {
		t.Fatalf("the JSON item does not carry the talk: %.600s", api)
	}
	item := bob.get("/i/" + itoa(anchor))
	if item.status != http.StatusOK || !strings.Contains(item.body, "Great read") {
		t.Fatalf("item page: status %d", item.status)
	}
}

func TestConversationBadInput(t *testing.T) {
	a := newApp(t)
	ada, bob, carol := a.client(), a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	carol.signup("carol")
	post, _ := ada.shareAs("https://example.com/open")
	p := "/p/" + itoa(post)

	for _, c := range []struct {
		body, msg string
	}{{"   ", "Write something to comment."}, {strings.Repeat("x", 3001), "at most 3000 characters"}} {
		r := bob.post(p+"/comments", url.Values{"body": {c.body}, "view": {"page"}})
		if r.status != http.StatusBadRequest || !strings.Contains(r.body, c.msg) {
			t.Errorf("comment %.10q: status %d, want 400 saying %q", c.body, r.status, c.msg)
		}
		r = bob.do("POST", p+"/comments", url.Values{"body": {c.body}, "view": {"post"}}, htmx)
		if r.status != http.StatusBadRequest || !strings.Contains(r.body, c.msg) || strings.Contains(r.body, "<html") {
			t.Errorf("htmx comment %.10q: status %d, want a 400 fragment saying %q", c.body, r.status, c.msg)
		}
	}
	if _, n := a.counts(post); n != 0 {
		t.Fatalf("%d comments stored from bad input", n)
	}

	// Private posts and missing posts get the same answer, and nothing is stored.
	carol.post("/settings/visibility", url.Values{"visibility": {"private"}})
	hidden, _ := carol.shareAs("https://example.com/secret")
	missing := hidden + 1000
	var answers []string
	for _, id := range []int64{hidden, missing} {
		for _, try := range []struct{ method, path string }{
			{"GET", "/p/" + itoa(id)}, {"POST", "/p/" + itoa(id) + "/like"}, {"POST", "/p/" + itoa(id) + "/unlike"}, {"POST", "/p/" + itoa(id) + "/comments"},
		} {
			r := bob.do(try.method, try.path, url.Values{"body": {"hello"}}, nil)
			if r.status != http.StatusNotFound || !strings.Contains(r.body, "No such post.") {
				t.Errorf("%s %s: status %d, want 404 No such post.", try.method, try.path, r.status)
			}
			answers = append(answers, r.body)
		}
	}
	if answers[0] != answers[4] {
		t.Error("an unreadable post and a missing one are answered differently")
	}
	if l, c := a.counts(hidden); l != 0 || c != 0 {
		t.Fatalf("stored %d likes and %d comments on an unreadable post", l, c)
	}
	if r := bob.get("/i/999999"); r.status != http.StatusNotFound {
		t.Errorf("missing item: status %d, want 404", r.status)
	}
	for _, path := range []string{"/p/abc", "/p/-1", "/p/99999999999999999999", "/i/x1"} {
		if r := bob.get(path); r.status != http.StatusBadRequest || !strings.Contains(r.body, "must be a positive number") {
			t.Errorf("GET %s: status %d, want 400 with a message", path, r.status)
		}
	}
	if r := a.client().post(p+"/like", nil); r.status != http.StatusUnauthorized && r.status != http.StatusSeeOther {
		t.Errorf("anonymous like: status %d", r.status)
	}

	// Editing or deleting someone else's comment is forbidden; the post's author may delete.
	bob.post(p+"/comments", url.Values{"body": {"first"}})
	var cid int64
	a.store.Pool.QueryRow(t.Context(), "SELECT max(id) FROM comments").Scan(&cid)
	cp := "/comments/" + itoa(cid)
	if r := carol.post(cp+"/edit", url.Values{"body": {"mine now"}}); r.status != http.StatusForbidden {
		t.Errorf("carol edits bob's comment: status %d, want 403", r.status)
	}
	if r := carol.post(cp+"/delete", nil); r.status != http.StatusForbidden {
		t.Errorf("carol deletes bob's comment: status %d, want 403", r.status)
	}
	if r := ada.post(cp+"/edit", url.Values{"body": {"rewritten"}}); r.status != http.StatusForbidden {
		t.Errorf("the post's author edits bob's comment: status %d, want 403", r.status)
	}
	if r := bob.post(cp+"/edit", url.Values{"body": {""}}); r.status != http.StatusBadRequest || !strings.Contains(r.body, "Write something") {
		t.Errorf("an empty edit: status %d, want 400", r.status)
	}
	if r := bob.post(cp+"/edit", url.Values{"body": {"first, edited"}}); r.status != http.StatusSeeOther {
		t.Errorf("bob edits his comment: status %d", r.status)
	}
	if page := carol.get(p).body; !strings.Contains(page, "first, edited") || !strings.Contains(page, "(edited)") || strings.Contains(page, `data-testid="delete-comment"`) {
		t.Errorf("the edit does not show, or carol is offered to delete bob's comment")
	}
	if r := ada.post(cp+"/delete", nil); r.status != http.StatusSeeOther {
		t.Errorf("the post's author deletes a comment: status %d", r.status)
	}
	if _, n := a.counts(post); n != 0 {
		t.Errorf("%d comments left after deleting the only one", n)
	}
	if r := bob.post(cp+"/delete", nil); r.status != http.StatusNotFound {
		t.Errorf("deleting a deleted comment: status %d, want 404", r.status)
	}
}

func TestBansHideCommentsBothWays(t *testing.T) {
	a := newApp(t)
	ada, bob, carol := a.client(), a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	carol.signup("carol")
	post, _ := ada.shareAs("https://example.com/talk")
	p := "/p/" + itoa(post)
	bob.post(p+"/comments", url.Values{"body": {"bob was here"}})
	carol.post(p+"/comments", url.Values{"body": {"carol was here"}})
	bob.post(p+"/like", nil)
	carol.post("/u/bob/ban", nil)
	for _, c := range []struct {
		who          *client
		sees, hidden string
	}{{carol, "carol was here", "bob was here"}, {bob, "bob was here", "carol was here"}, {ada, "carol was here", ""}} {
		page := c.who.get(p).body
		if !strings.Contains(page, c.sees) || (c.hidden != "" && strings.Contains(page, c.hidden)) {
			t.Errorf("sees %q: %v, sees %q: %v", c.sees, strings.Contains(page, c.sees), c.hidden, strings.Contains(page, c.hidden))
		}
	}
	if page := carol.get("/u/ada").body; attr(page, "data-comments") != "1" || attr(page, "data-likes") != "0" {
		t.Errorf("carol's counts include bob: comments %s likes %s", attr(page, "data-comments"), attr(page, "data-likes"))
	}
	if page := ada.get("/u/ada").body; attr(page, "data-comments") != "2" || attr(page, "data-likes") != "1" {
		t.Errorf("ada's counts: comments %s likes %s, want 2 and 1", attr(page, "data-comments"), attr(page, "data-likes"))
	}
}

// A comment bumps its post on the chronological pages by seed 003's rule.
func TestCommentsBumpPosts(t *testing.T) {
	a := newApp(t)
	ada, bob := a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	old, _ := ada.shareAs("https://example.com/old")
	a.now = a.now.Add(3 * 24 * time.Hour)
	mid, _ := ada.shareAs("https://example.com/mid")
	fresh, _ := ada.shareAs("https://example.com/fresh")
	order := func() []string {
		var ids []string
		for _, m := range regexp.MustCompile(`data-post-id="(\d+)"`).FindAllStringSubmatch(bob.get("/u/ada").body, -1) {
			ids = append(ids, m[1])
		}
		return ids
	}
	want := func(label string, ids ...int64) {
		t.Helper()
		var w []string
		for _, id := range ids {
			w = append(w, itoa(id))
		}
		if got := order(); strings.Join(got, ",") != strings.Join(w, ",") {
			t.Fatalf("%s: order %v, want %v", label, got, w)
		}
	}
	want("before", fresh, mid, old)
	comment := func(id int64) {
		a.now = a.now.Add(time.Minute)
		bob.post("/p/"+itoa(id)+"/comments", url.Values{"body": {"+1"}})
	}
	comment(mid) // younger than a day: bumps
	want("a comment on a young post", mid, fresh, old)
	bob.post("/p/"+itoa(old)+"/like", nil) // a like never bumps
	comment(old)
	comment(old) // three days old, two comments today: stays
	want("two comments on an old post", mid, fresh, old)
	comment(old) // the third comment in a day bumps
	want("the third comment", old, mid, fresh)
}

// A refused comment answers with the card's talk; for a post the commenter may not read
// (private, a direct to others, deleted) that answer must say nothing of it: no counts, no
// likers; "No such post." where the answer is the post's (an item card's talk counts only
// the shares the reader may read). Issue 43, point 2.
func TestRefusedCommentShowsNoTalkOfUnreadablePosts(t *testing.T) {
	a := newApp(t)
	ada, bob, carol, dave := a.client(), a.client(), a.client(), a.client()
	for c, h := range map[*client]string{ada: "ada", bob: "bob", carol: "carol", dave: "dave"} {
		c.signup(h)
	}
	like := func(c *client, post int64) {
		t.Helper()
		if r := c.post("/p/"+itoa(post)+"/like", nil); r.status != http.StatusSeeOther {
			t.Fatalf("like %d: status %d", post, r.status)
		}
	}
	carol.post("/settings/visibility", url.Values{"visibility": {"private"}})
	private, _ := carol.shareAs("https://example.com/private")
	like(carol, private)
	carol.post("/u/ada/follow", nil) // a direct goes only to a follower
	a.now = a.now.Add(time.Second)
	if r := ada.post("/share", url.Values{"url": {"https://example.com/direct"}, "dest": {"1"}, "direct": {"@carol"}}); r.status != http.StatusSeeOther {
		t.Fatalf("direct: status %d %.300s", r.status, r.body)
	}
	var direct int64
	a.store.Pool.QueryRow(t.Context(), "SELECT max(id) FROM posts").Scan(&direct)
	like(carol, direct)
	deleted, _ := ada.shareAs("https://example.com/deleted")
	like(dave, deleted)
	if r := ada.post("/posts/"+itoa(deleted)+"/delete", nil); r.status != http.StatusSeeOther {
		t.Fatalf("delete: status %d", r.status)
	}
	for _, c := range []struct {
		name  string
		post  int64
		liker string
	}{{"private", private, "carol"}, {"direct", direct, "carol"}, {"deleted", deleted, "dave"}} {
		for _, view := range []string{"post", "page", "item"} {
			r := bob.do("POST", "/p/"+itoa(c.post)+"/comments", url.Values{"body": {""}, "view": {view}, "item": {"1"}}, htmx)
			if view != "item" && (r.status != http.StatusNotFound || !strings.Contains(r.body, "No such post.")) {
				t.Errorf("%s post, view %s: status %d, want 404 No such post.", c.name, view, r.status)
			}
			if n := attr(r.body, "data-likes"); n != "" && n != "0" || strings.Contains(r.body, c.liker) {
				t.Errorf("%s post, view %s: the answer shows its talk (%s likes): %.400s", c.name, view, n, r.body)
			}
		}
	}
}

// A user page counts only the posts its viewer may read: a direct or a private account's
// post is not told by the count (issue 43, point 13).
func TestProfilePostCountIsTheViewers(t *testing.T) {
	a := newApp(t)
	ada, bob, carol, dave, anon := a.client(), a.client(), a.client(), a.client(), a.client()
	for c, h := range map[*client]string{ada: "ada", bob: "bob", carol: "carol", dave: "dave"} {
		c.signup(h)
	}
	carol.post("/u/ada/follow", nil)
	ada.shareAs("https://example.com/public")
	a.now = a.now.Add(time.Second)
	if r := ada.post("/share", url.Values{"url": {"https://example.com/direct"}, "dest": {"1"}, "direct": {"@carol"}}); r.status != http.StatusSeeOther {
		t.Fatalf("direct: status %d", r.status)
	}
	dave.post("/settings/visibility", url.Values{"visibility": {"private"}})
	dave.shareAs("https://example.com/dave")
	count := regexp.MustCompile(`<strong>(\d+)</strong> posts?\b`)
	for _, c := range []struct {
		who   *client
		name  string
		page  string
		posts string
	}{
		{anon, "anonymous", "/u/ada", "1"}, {bob, "bob", "/u/ada", "1"}, {carol, "carol", "/u/ada", "2"}, {ada, "ada", "/u/ada", "2"},
		{anon, "anonymous", "/u/dave", "0"}, {bob, "bob", "/u/dave", "0"}, {dave, "dave", "/u/dave", "1"},
	} {
		m := count.FindStringSubmatch(c.who.get(c.page).body)
		if m == nil || m[1] != c.posts {
			t.Errorf("%s on %s: post count %v, want %s", c.name, c.page, m, c.posts)
		}
	}
}

// A long thread is shown a page at a time: the post page and the item page show its first
// comments with a link to the newer ones, which leads on to the rest (issue 43, point 15).
func TestLongThreadsArePaged(t *testing.T) {
	a := newApp(t)
	ada, bob := a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	post, anchor := ada.shareAs("https://example.com/long-talk")
	v, err := a.store.ViewerAccess(t.Context(), 2)
	if err != nil {
		t.Fatal(err)
	}
	const n = tributary.ThreadPageSize + 5
	for i := range n {
		if _, _, err := a.store.AddComment(t.Context(), v, post, fmt.Sprintf("comment number %d", i), a.now.Add(time.Duration(i)*time.Second), tributary.DefaultBumpRule); err != nil {
			t.Fatal(err)
		}
	}
	items := regexp.MustCompile(`data-testid="comment"`)
	link := func(body, testid string) string {
		m := regexp.MustCompile(`href="([^"]*)" data-testid="` + testid + `"`).FindStringSubmatch(body)
		if m == nil {
			return ""
		}
		return strings.ReplaceAll(m[1], "&amp;", "&")
	}
	for _, page := range []string{"/p/" + itoa(post), "/i/" + itoa(anchor)} {
		body := bob.get(page).body
		if got := len(items.FindAllString(body, -1)); got != tributary.ThreadPageSize {
			t.Errorf("%s: %d comments shown, want the first %d", page, got, tributary.ThreadPageSize)
		}
		if !strings.Contains(body, "comment number 0<") || strings.Contains(body, fmt.Sprintf("comment number %d<", tributary.ThreadPageSize)) {
			t.Errorf("%s: not the first page of the thread", page)
		}
		next := link(body, "newer-comments")
		if next == "" {
			t.Fatalf("%s: no link to the newer comments", page)
		}
		r := bob.get(next)
		if got := len(items.FindAllString(r.body, -1)); r.status != http.StatusOK || got != n-tributary.ThreadPageSize {
			t.Errorf("%s's newer comments (%s): status %d, %d comments, want %d", page, next, r.status, got, n-tributary.ThreadPageSize)
		}
		if !strings.Contains(r.body, fmt.Sprintf("comment number %d<", n-1)) || link(r.body, "newer-comments") != "" || link(r.body, "earlier-comments") == "" {
			t.Errorf("%s's newer comments: want the last ones, no further page and a link back to the first", page)
		}
	}
	if r := bob.get("/p/" + itoa(post) + "?from=nonsense"); r.status != http.StatusBadRequest {
		t.Errorf("a bad thread cursor: status %d, want 400", r.status)
	}
	// A new comment on a long thread is shown where the form leads back to.
	r := bob.post("/p/"+itoa(post)+"/comments", url.Values{"body": {"the very last word"}, "view": {"page"}, "return": {"/p/" + itoa(post)}})
	if r.status != http.StatusSeeOther || !strings.Contains(bob.get(r.location).body, "the very last word") {
		t.Errorf("after commenting on a long thread: %d to %q, which does not show the comment", r.status, r.location)
	}
}
