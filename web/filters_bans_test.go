package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// X's likes and comments never show to someone in a ban with X, either way: not on X's
// likes or comments pages, not found by liked-by:X or commented-by:X, and a post in a tag or
// mentions feed by X's comment alone is not there for them (issue 43, point 12).
func TestFilterFeedsHideTheActivityOfABan(t *testing.T) {
	for _, way := range []string{"the reader banned X", "X banned the reader"} {
		t.Run(way, func(t *testing.T) {
			a := newApp(t)
			ada, bob, carol, xavier := a.client(), a.client(), a.client(), a.client()
			for c, h := range map[*client]string{ada: "ada", bob: "bob", carol: "carol", xavier: "xavier"} {
				c.signup(h)
			}
			a.filterTick()
			if r := bob.post("/share", url.Values{"url": {"https://example.com/quiet"}, "title": {"Quiet paper"}}); r.status != http.StatusSeeOther {
				t.Fatalf("share: status %d", r.status)
			}
			p := "/p/1"
			a.filterTick()
			xavier.post(p+"/like", nil)
			a.filterTick()
			if r := xavier.post(p+"/comments", url.Values{"body": {"Worth it #holo @ada @carol"}}); r.status != http.StatusSeeOther {
				t.Fatalf("comment: status %d", r.status)
			}
			pages := []string{"/u/xavier/likes", "/u/xavier/comments", "/search?q=" + url.QueryEscape("liked-by:xavier"),
				"/search?q=" + url.QueryEscape("commented-by:xavier"), "/t/holo", "/search?q=" + url.QueryEscape("#holo")}
			for _, path := range append(pages, "/mentions") {
				if !strings.Contains(ada.get(path).body, "Quiet paper") {
					t.Fatalf("before the ban %s does not show the post: the test shows nothing", path)
				}
			}
			a.filterTick()
			if way == "the reader banned X" {
				ada.post("/u/xavier/ban", nil)
			} else {
				xavier.post("/u/ada/ban", nil)
			}
			for _, path := range append(pages, "/mentions") {
				if strings.Contains(ada.get(path).body, "Quiet paper") {
					t.Errorf("%s shows the post to ada, in a ban with xavier", path)
				}
			}
			for _, path := range pages {
				if !strings.Contains(carol.get(path).body, "Quiet paper") {
					t.Errorf("%s does not show the post to carol, in no ban", path)
				}
			}
		})
	}
}
