package web_test

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

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
