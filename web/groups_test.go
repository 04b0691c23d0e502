package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Group admin actions act only on a target in the right state: approve only a pending
// member, promote only a member, never remove the group's creator, never leave a group
// without an admin; a private group moderates joins (issue 43, point 6).
func TestGroupAdminActionsCheckTheirTarget(t *testing.T) {
	a := newApp(t)
	users := map[string]*client{}
	for _, h := range []string{"owner", "deputy", "member", "asker", "stranger"} {
		users[h] = a.client()
		users[h].signup(h)
	}
	if r := users["owner"].post("/groups", url.Values{"name": {"club"}, "access": {"protected"}, "moderated": {"1"}}); r.status != http.StatusSeeOther {
		t.Fatalf("create group: status %d", r.status)
	}
	for _, h := range []string{"deputy", "member", "asker"} {
		users[h].post("/g/club/join", nil)
	}
	for _, step := range []struct{ by, path string }{
		{"owner", "/g/club/members/deputy/approve"}, {"owner", "/g/club/members/member/approve"}, {"owner", "/g/club/members/deputy/admin"},
	} {
		if r := users[step.by].post(step.path, nil); r.status != http.StatusSeeOther {
			t.Fatalf("%s %s: status %d %.200s", step.by, step.path, r.status, r.body)
		}
	}
	members := func() map[string]string {
		var rows []string
		out := map[string]string{}
		q := `SELECT u.handle || ' ' || m.role || ' ' || m.state FROM group_members m JOIN users u ON u.id = m.user_id
		       JOIN feeds f ON f.id = m.feed_id WHERE f.name = 'club'`
		if err := a.store.Pool.QueryRow(t.Context(), "SELECT coalesce(array_agg(x), '{}') FROM ("+q+") t(x)").Scan(&rows); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			h, rest, _ := strings.Cut(r, " ")
			out[h] = rest
		}
		return out
	}
	before := members()
	if want := "admin active"; before["deputy"] != want || before["owner"] != want || before["member"] != "member active" || before["asker"] != "member pending" {
		t.Fatalf("members before: %v", before)
	}
	for _, c := range []struct {
		name, by, path string
		status         int
		says           string
	}{
		{"approve a never-asked user", "owner", "/g/club/members/stranger/approve", http.StatusBadRequest, "has not asked to join"},
		{"approve an admin (a demotion)", "owner", "/g/club/members/deputy/approve", http.StatusBadRequest, "has not asked to join"},
		{"approve an active member", "owner", "/g/club/members/member/approve", http.StatusBadRequest, "has not asked to join"},
		{"promote a never-asked user", "owner", "/g/club/members/stranger/admin", http.StatusBadRequest, "Only a member"},
		{"promote a pending asker", "owner", "/g/club/members/asker/admin", http.StatusBadRequest, "Only a member"},
		{"an admin removes the creator", "deputy", "/g/club/members/owner/remove", http.StatusForbidden, "creator"},
		{"a member removes someone", "member", "/g/club/members/asker/remove", http.StatusForbidden, "Only an admin"},
	} {
		r := users[c.by].post(c.path, nil)
		if r.status != c.status || !strings.Contains(r.body, c.says) {
			t.Errorf("%s: status %d, want %d saying %q", c.name, r.status, c.status, c.says)
		}
		if got := members(); len(got) != len(before) || got["deputy"] != before["deputy"] || got["owner"] != before["owner"] ||
			got["member"] != before["member"] || got["asker"] != before["asker"] {
			t.Fatalf("%s changed the members: %v, were %v", c.name, got, before)
		}
	}

	// The last admin may not leave; once another admin is left, they may.
	if r := users["deputy"].post("/g/club/leave", nil); r.status != http.StatusSeeOther {
		t.Fatalf("an admin leaves while another stays: status %d", r.status)
	}
	r := users["owner"].post("/g/club/leave", nil)
	if r.status != http.StatusBadRequest || !strings.Contains(r.body, "last admin") {
		t.Errorf("the last admin leaves: status %d, want 400 saying so", r.status)
	}
	if members()["owner"] != "admin active" {
		t.Fatalf("the last admin left: %v", members())
	}

	// A private group moderates joins, whatever its form said.
	if r := users["owner"].post("/groups", url.Values{"name": {"secret"}, "access": {"private"}}); r.status != http.StatusSeeOther {
		t.Fatalf("create private group: status %d", r.status)
	}
	users["stranger"].post("/g/secret/join", nil)
	if !strings.Contains(users["stranger"].get("/g/secret").body, `data-testid="join-pending"`) {
		t.Error("joining a private group does not wait for an admin")
	}
	// A group that goes private moderates joins from then on.
	users["owner"].post("/g/club/access", url.Values{"access": {"private"}})
	users["stranger"].post("/g/club/join", nil)
	if got := members()["stranger"]; got != "member pending" {
		t.Errorf("joining a group gone private: %q, want a pending member", got)
	}
}
