package web_test

import (
	"regexp"
	"strings"
	"testing"
)

// Small texts a newcomer read wrong: counts in the singular, commas in a likers list, an
// empty groups page.
func TestTourSmallTexts(t *testing.T) {
	a := newApp(t)
	ada := a.client()
	ada.signup("ada")
	post, _ := ada.shareAs("https://blog.example.com/ada/one")
	for _, h := range []string{"bob", "cy", "dee"} {
		c := a.client()
		c.signup(h)
		c.filterLike(post)
	}
	bob := a.client()
	bob.post("/login", map[string][]string{"handle": {"bob"}, "password": {"correct horse"}})
	bob.post("/u/ada/follow", nil)

	tags := regexp.MustCompile(`<[^>]*>`)
	text := func(html string) string {
		return strings.Join(strings.Fields(tags.ReplaceAllString(html, " ")), " ")
	}
	profile := text(a.client().get("/u/ada").body)
	for _, want := range []string{"1 post ", "0 following", "1 follower "} {
		if !strings.Contains(profile+" ", want) {
			t.Errorf("ada's page does not say %q:\n%s", want, profile)
		}
	}
	page := a.client().get("/p/" + itoa(post)).body
	if regexp.MustCompile(`</a>\s+,`).MatchString(page) || !regexp.MustCompile(`</a>,\s+<a [^>]*>\w+</a> and\s+<a`).MatchString(page) {
		t.Errorf("the post page's likers read wrong (want \"Ada, Bob and Cy\"):\n%s", page[strings.Index(page, "Liked by"):][:300])
	}
	if groups := text(a.client().get("/groups").body); !strings.Contains(groups, "No groups yet") {
		t.Errorf("the empty groups page says nothing of it:\n%s", groups)
	}
}
