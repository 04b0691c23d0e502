package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// profileHead is what a user page's head tells its viewer: the counts, and which of the
// buttons and notices it shows.
type profileHead struct {
	posts, following, followers string
	shows                       []string
}

var (
	profilePosts     = regexp.MustCompile(`<li><strong>(\d+)</strong> posts?</li>`)
	profileFollowing = regexp.MustCompile(`data-testid="following-count">(\d+)<`)
	profileFollowers = regexp.MustCompile(`data-testid="followers-count">(\d+)<`)
	profileRequests  = regexp.MustCompile(`data-testid="requests-count">(\d+)<`)
)

func (c *client) profileHead(handle string) profileHead {
	c.a.t.Helper()
	r := c.get("/u/" + handle)
	if r.status != http.StatusOK {
		c.a.t.Fatalf("GET /u/%s: status %d", handle, r.status)
	}
	find := func(re *regexp.Regexp) string {
		if m := re.FindStringSubmatch(r.body); m != nil {
			return m[1]
		}
		return "?"
	}
	h := profileHead{posts: find(profilePosts), following: find(profileFollowing), followers: find(profileFollowers)}
	for _, id := range []string{"settings", "follow", "unfollow", "cancel-request", "ban", "unban", "private-notice", "list-add", "list-remove"} {
		if strings.Contains(r.body, `data-testid="`+id+`"`) {
			h.shows = append(h.shows, id)
		}
	}
	if n := find(profileRequests); n != "?" {
		h.shows = append(h.shows, "requests-count "+n)
	}
	if strings.Contains(r.body, ">Request to follow<") {
		h.shows = append(h.shows, "request to follow")
	}
	return h
}

// A user page's head (the user, their counts, their visibility, the viewer's follow, ban and
// lists) tells each viewer how they stand, and is read in one round trip.
func TestProfileHead(t *testing.T) {
	a, log := newTracedApp(t)
	ada, bob, cy, anon := a.client(), a.client(), a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	cy.signup("cy")
	ada.shareAs("https://example.com/ada-1")
	ada.shareAs("https://example.com/ada-2")
	bob.post("/u/ada/follow", url.Values{})
	ada.post("/u/cy/follow", url.Values{})
	if r := bob.post("/lists", url.Values{"name": {"Papers"}}); r.status != http.StatusSeeOther {
		t.Fatalf("create list: %d", r.status)
	}

	check := func(who string, c *client, handle string, want profileHead) {
		t.Helper()
		got := c.profileHead(handle)
		if got.posts != want.posts || got.following != want.following || got.followers != want.followers || !slices.Equal(got.shows, want.shows) {
			t.Errorf("%s on /u/%s: got %+v, want %+v", who, handle, got, want)
		}
	}
	check("anonymous", anon, "ada", profileHead{"2", "1", "1", nil})
	check("ada herself", ada, "ada", profileHead{"2", "1", "1", []string{"settings"}})
	check("bob, a follower with a list", bob, "ada", profileHead{"2", "1", "1", []string{"unfollow", "ban", "list-add"}})
	check("cy, followed by ada", cy, "ada", profileHead{"2", "1", "1", []string{"follow", "ban"}})

	// The head is one round trip, the viewer's lists in it.
	log.Take()
	bob.get("/u/ada")
	var head []string
	for _, trip := range log.TakeTrips() {
		if slices.Contains(trip, "ProfileOf") {
			head = trip
		}
		for _, old := range []string{"UserByID", "FollowState", "HasBanned", "FollowRequests", "PostsFeedOf", "FeedByID", "ListsOf"} {
			if slices.Contains(trip, old) && !slices.Contains(trip, "ProfileOf") {
				t.Errorf("the page read %s in a round trip of its own: %v", old, trip)
			}
		}
	}
	if !slices.Equal(head, []string{"ProfileOf", "ListsOf"}) {
		t.Errorf("the head's round trip: %v, want ProfileOf and ListsOf", head)
	}

	// A private account: its posts leave the count of those who may not read them, a
	// request waits, the owner sees it counted.
	ada.post("/settings/visibility", url.Values{"visibility": {"private"}})
	check("cy, not a reader", cy, "ada", profileHead{"0", "1", "1", []string{"follow", "ban", "private-notice", "request to follow"}})
	cy.post("/u/ada/follow", url.Values{})
	check("cy, requested", cy, "ada", profileHead{"0", "1", "1", []string{"cancel-request", "ban", "private-notice"}})
	check("ada, asked", ada, "ada", profileHead{"2", "1", "1", []string{"settings", "requests-count 1"}})
	check("bob, approved before", bob, "ada", profileHead{"2", "1", "1", []string{"unfollow", "ban", "list-add"}})

	// A ban: the banner sees Unban and no way to follow; it ended ada's follow of cy.
	cy.post("/u/ada/unfollow", url.Values{})
	cy.post("/u/ada/ban", url.Values{})
	check("cy, banning", cy, "ada", profileHead{"0", "0", "1", []string{"unban", "private-notice"}})

	// An empty page asks its owner to share; another reader reads that it has nothing.
	if r := cy.get("/u/cy"); !strings.Contains(r.body, `You have shared nothing yet. <a href="/share">`) {
		t.Errorf("cy's own empty page: %.400s", r.body)
	}
	if r := bob.get("/u/cy"); !strings.Contains(r.body, "No posts to show.") || strings.Contains(r.body, "You have shared") {
		t.Errorf("cy's empty page to bob: %.400s", r.body)
	}

	if r := bob.get("/u/nobody"); r.status != http.StatusNotFound {
		t.Errorf("/u/nobody: status %d, want 404", r.status)
	}
}
