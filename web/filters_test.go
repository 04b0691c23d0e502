package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
)

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
