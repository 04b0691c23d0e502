package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestGroupsFlow(t *testing.T) {
	a := newApp(t)
	admin, member, outsider := a.client(), a.client(), a.client()
	admin.signup("boss")
	member.signup("member")
	outsider.signup("outsider")

	if r := admin.post("/groups", url.Values{"name": {"bad name"}, "access": {"private"}}); r.status != http.StatusBadRequest ||
		!strings.Contains(r.body, "Group name") {
		t.Fatalf("bad group name: status %d, want 400 with a message", r.status)
	}
	r := admin.post("/groups", url.Values{"name": {"lab"}, "title": {"The Lab"}, "access": {"private"}, "moderated": {"1"}})
	if r.status != http.StatusSeeOther || r.location != "/g/lab" {
		t.Fatalf("create group: status %d location %q", r.status, r.location)
	}
	if r := member.post("/g/lab/join", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("join: status %d", r.status)
	}
	if !strings.Contains(member.get("/g/lab").body, `data-testid="join-pending"`) {
		t.Fatal("joining a moderated group does not wait for an admin")
	}
	// Posting before approval is refused with a message; nothing is stored.
	r = member.post("/share", url.Values{"url": {"https://example.com/early"}, "dest": {"1"}, "group": {"lab"}})
	if r.status != http.StatusBadRequest || !strings.Contains(r.body, "groups you are a member of") {
		t.Fatalf("post before approval: status %d", r.status)
	}
	if r := admin.post("/g/lab/members/member/approve", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("approve: status %d", r.status)
	}
	if r := outsider.post("/g/lab/members/outsider/approve", url.Values{}); r.status != http.StatusForbidden {
		t.Fatalf("a non-admin approving: status %d, want 403", r.status)
	}
	r = member.post("/share", url.Values{"url": {"https://example.com/lab-notes"}, "title": {"Lab notes"}, "dest": {"1"}, "group": {"lab"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("post to the group: status %d %s", r.status, r.body)
	}
	if !strings.Contains(admin.get("/g/lab").body, "Lab notes") {
		t.Fatal("the group page does not show the member's post to its admin")
	}
	if strings.Contains(outsider.get("/g/lab").body, "Lab notes") || strings.Contains(a.client().get("/g/lab").body, "Lab notes") {
		t.Fatal("a private group's post shows to a non-member")
	}
	if r.location != "/g/lab" {
		t.Errorf("a share to a group alone goes to %q, want the group's page", r.location)
	}
	// The author's page lists the author's own feed: a post only in a group is not on it.
	if strings.Contains(member.get("/u/member").body, "Lab notes") || strings.Contains(outsider.get("/u/member").body, "Lab notes") {
		t.Fatal("a group-only post is on its author's page")
	}
	// Opening the group to the public shows the post to everyone, at once.
	admin.post("/g/lab/access", url.Values{"access": {"public"}})
	if !strings.Contains(a.client().get("/g/lab").body, "Lab notes") {
		t.Fatal("after going public the group's post is not visible to anonymous visitors")
	}
}

func TestDirects(t *testing.T) {
	a := newApp(t)
	sender, friend, other := a.client(), a.client(), a.client()
	sender.signup("sender")
	friend.signup("friend")
	other.signup("other")
	friend.post("/u/sender/follow", url.Values{})
	other.post("/u/sender/follow", url.Values{})

	r := sender.post("/share", url.Values{"url": {"https://example.com/for-you"}, "title": {"Just for you"}, "dest": {"1"}, "direct": {"@friend"}})
	if r.status != http.StatusSeeOther || r.location != "/directs" {
		t.Fatalf("direct: status %d location %q %s", r.status, r.location, r.body)
	}
	if !strings.Contains(friend.get("/directs").body, "Just for you") || !strings.Contains(sender.get("/directs").body, "Just for you") {
		t.Fatal("the direct is not on the Directs page of its sender and recipient")
	}
	for name, c := range map[string]*client{"another follower": other, "anonymous": a.client()} {
		for _, path := range []string{"/directs", "/u/sender", "/", "/api/timeline"} {
			if strings.Contains(c.get(path).body, "Just for you") {
				t.Fatalf("%s sees the direct on %s", name, path)
			}
		}
	}
	if !strings.Contains(friend.get("/api/timeline").body, "Just for you") {
		t.Fatal("the recipient's feed does not hold the direct")
	}
	// Directs only to people who follow you.
	r = friend.post("/share", url.Values{"url": {"https://example.com/x"}, "dest": {"1"}, "direct": {"@other"}})
	if r.status != http.StatusBadRequest || !strings.Contains(r.body, "does not accept directs from you") {
		t.Fatalf("direct to a non-follower: status %d", r.status)
	}
}

func TestBanHidesProtectedPostsBothWays(t *testing.T) {
	a := newApp(t)
	ann, bob := a.client(), a.client()
	ann.signup("ann")
	bob.signup("bob")
	ann.post("/settings/visibility", url.Values{"visibility": {"protected"}})
	bob.post("/settings/visibility", url.Values{"visibility": {"protected"}})
	ann.post("/share", url.Values{"url": {"https://example.com/ann"}, "title": {"Ann's protected note"}})
	bob.post("/share", url.Values{"url": {"https://example.com/bob"}, "title": {"Bob's protected note"}})
	if !strings.Contains(bob.get("/u/ann").body, "protected note") || strings.Contains(a.client().get("/u/ann").body, "protected note") {
		t.Fatal("protected posts: want visible to logged-in users only")
	}
	if r := ann.post("/u/bob/ban", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("ban: status %d", r.status)
	}
	if strings.Contains(bob.get("/u/ann").body, "protected note") {
		t.Fatal("the banned user still sees the banner's protected posts")
	}
	if strings.Contains(ann.get("/u/bob").body, "protected note") {
		t.Fatal("the banner still sees the banned user's protected posts")
	}
	if r := bob.post("/u/ann/follow", url.Values{}); r.status != http.StatusForbidden {
		t.Fatalf("the banned user following the banner: status %d, want 403", r.status)
	}
	ann.post("/u/bob/unban", url.Values{})
	if !strings.Contains(bob.get("/u/ann").body, "protected note") {
		t.Fatal("after the unban the protected post is still hidden")
	}
}
