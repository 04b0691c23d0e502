package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// notificationsJSON is GET /api/notifications as a client reads it.
type notificationsJSON struct {
	Notifications []struct {
		ID     int64    `json:"id"`
		Type   string   `json:"type"`
		Actors []string `json:"actors"`
		Count  int      `json:"count"`
		PostID int64    `json:"post_id"`
		Unread bool     `json:"unread"`
	} `json:"notifications"`
	NextCursor string `json:"next_cursor"`
}

func (c *client) notifications(t *testing.T, cursor string) notificationsJSON {
	t.Helper()
	r := c.get("/api/notifications?cursor=" + url.QueryEscape(cursor))
	if r.status != http.StatusOK {
		t.Fatalf("GET /api/notifications: status %d: %s", r.status, r.body)
	}
	var out notificationsJSON
	if err := json.Unmarshal([]byte(r.body), &out); err != nil {
		t.Fatalf("GET /api/notifications: %v: %s", err, r.body)
	}
	return out
}

var unreadBadge = regexp.MustCompile(`data-unread="(\d+)"`)

// unreadOf is the header's unread count on a page.
func unreadOf(t *testing.T, body string) string {
	t.Helper()
	m := unreadBadge.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no unread badge on the page")
	}
	return m[1]
}

func TestNotificationsFlow(t *testing.T) {
	a := newApp(t)
	ann, bob, cy := a.client(), a.client(), a.client()
	ann.signup("ann")
	bob.signup("bob")
	cy.signup("cy")
	ann.post("/share", url.Values{"url": {"https://example.com/ann"}, "title": {"Ann's note"}})
	post := ann.notifications(t, "") // nothing yet
	if len(post.Notifications) != 0 {
		t.Fatalf("a new user has notifications: %+v", post)
	}
	var id string
	if err := a.store.Pool.QueryRow(t.Context(), "SELECT id::text FROM posts").Scan(&id); err != nil {
		t.Fatal(err)
	}
	bob.post("/p/"+id+"/like", url.Values{})
	cy.post("/p/"+id+"/like", url.Values{})
	bob.post("/p/"+id+"/comments", url.Values{"body": {"Nice one"}})
	cy.post("/u/ann/follow", url.Values{})

	got := ann.notifications(t, "")
	var lines []string
	for _, n := range got.Notifications {
		lines = append(lines, n.Type+" "+strings.Join(n.Actors, ","))
		if !n.Unread {
			t.Errorf("line %+v is read before anything was read", n)
		}
	}
	if want := "follow cy|comment bob|like cy,bob"; strings.Join(lines, "|") != want {
		t.Errorf("ann's notifications %q, want %q", strings.Join(lines, "|"), want)
	}
	if got := unreadOf(t, ann.get("/notifications").body); got != "3" {
		t.Errorf("the header's badge says %s, want 3", got)
	}
	if !strings.Contains(ann.get("/notifications").body, "@cy and @bob liked your post") {
		t.Error("the page does not say the grouped like line")
	}
	// Pages of one line follow each other by cursor.
	if r := ann.get("/api/notifications?cursor=nonsense"); r.status != http.StatusBadRequest {
		t.Errorf("a forged cursor: status %d, want 400", r.status)
	}
	// A ban hides the banned one's notifications at once, and lifting it brings them back.
	ann.post("/u/cy/ban", url.Values{})
	if n := len(ann.notifications(t, "").Notifications); n != 2 {
		t.Errorf("after banning cy, ann has %d lines, want 2 (the comment and bob's like)", n)
	}
	ann.post("/u/cy/unban", url.Values{})

	// Opening a line reads it; mark all read zeroes the count.
	first := ann.notifications(t, "").Notifications[0]
	if r := ann.get("/notifications/" + itoa(first.ID)); r.status != http.StatusSeeOther {
		t.Fatalf("opening a line: status %d", r.status)
	}
	if r := bob.get("/notifications/" + itoa(first.ID)); r.status != http.StatusNotFound {
		t.Errorf("opening someone else's line: status %d, want 404", r.status)
	}
	if got := unreadOf(t, ann.get("/").body); got != "2" {
		t.Errorf("after opening a line the badge says %s, want 2", got)
	}
	if r := ann.post("/notifications/read", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("mark all read: status %d", r.status)
	}
	if got := unreadOf(t, ann.get("/notifications/unread").body); got != "0" {
		t.Errorf("after mark all read the badge says %s, want 0", got)
	}
	if r := a.client().get("/api/notifications"); r.status != http.StatusUnauthorized {
		t.Errorf("anonymous GET /api/notifications: status %d, want 401", r.status)
	}

	// Policies: ann hears of likes from nobody now.
	ann.post("/notifications/settings", url.Values{"like": {"nobody"}, "grouping": {"on"}})
	a.client().signup("dee")
	dee := a.client()
	dee.post("/login", url.Values{"handle": {"dee"}, "password": {"correct horse"}})
	dee.post("/p/"+id+"/like", url.Values{})
	for _, n := range ann.notifications(t, "").Notifications {
		if n.Type == "like" && n.Count != 2 {
			t.Errorf("a like from someone the policy refuses was stored: %+v", n)
		}
	}
	if r := ann.post("/notifications/settings", url.Values{"like": {"sometimes"}}); r.status != http.StatusBadRequest {
		t.Errorf("an unknown policy: status %d, want 400", r.status)
	}
}

// Opening a post reads its reader's notifications about it: the page's own badge says so.
func TestOpeningAPostReadsItsNotifications(t *testing.T) {
	a := newApp(t)
	ann, bob := a.client(), a.client()
	ann.signup("ann")
	bob.signup("bob")
	ann.post("/share", url.Values{"url": {"https://example.com/read-on-open"}, "title": {"Ann's note"}})
	ann.post("/share", url.Values{"url": {"https://example.com/other"}, "title": {"Another"}})
	ids := map[string]string{}
	rows, err := a.store.Pool.Query(t.Context(), "SELECT url, id::text FROM posts")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var u, id string
		if err := rows.Scan(&u, &id); err != nil {
			t.Fatal(err)
		}
		ids[u] = id
	}
	read, other := ids["https://example.com/read-on-open"], ids["https://example.com/other"]
	bob.post("/p/"+read+"/comments", url.Values{"body": {"Nice one"}})
	bob.post("/p/"+other+"/comments", url.Values{"body": {"And this"}})
	if got := unreadOf(t, ann.get("/").body); got != "2" {
		t.Fatalf("before: the badge says %s, want 2", got)
	}
	if got := unreadOf(t, ann.get("/p/"+read).body); got != "1" {
		t.Errorf("on the post opened: the badge says %s, want 1", got)
	}
	for _, n := range ann.notifications(t, "").Notifications {
		if want := strconv.FormatInt(n.PostID, 10) != read; n.Unread != want {
			t.Errorf("line %+v: unread %v, want %v", n, n.Unread, want)
		}
	}
	if got := unreadOf(t, bob.get("/p/"+read).body); got != "0" { // nobody else's notifications move
		t.Errorf("bob's badge says %s, want 0", got)
	}
}
