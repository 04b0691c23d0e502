package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"tributary/site"
)

// notificationsJSON is GET /api/notifications as a client reads it.
type notificationsJSON struct {
	Notifications []struct {
		ID      int64    `json:"id"`
		Type    string   `json:"type"`
		Actors  []string `json:"actors"`
		Count   int      `json:"count"`
		PostID  int64    `json:"post_id"`
		Title   string   `json:"post_title"`
		Comment string   `json:"comment"`
		Unread  bool     `json:"unread"`
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
	// A line says what it is about: the post, and the comment's words.
	if n := got.Notifications; len(n) == 3 && (n[0].Title != "" || n[1].Title != "Ann's note" || n[1].Comment != "Nice one" ||
		n[2].Title != "Ann's note" || n[2].Comment != "") {
		t.Errorf("the lines' subjects: %+v", n)
	}
	if page := ann.get("/notifications").body; !strings.Contains(page, `data-testid="notification-comment">Nice one</p>`) ||
		!strings.Contains(page, `data-testid="notification-post">Ann&#39;s note</p>`) {
		t.Errorf("the page does not show the lines' subjects: %.1500s", page)
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

// The badge's request is answered from the session and count an instance kept, with no read,
// while nothing it heard since could have changed them: a like, a ban or a session ended on
// another instance is heard of, and the next badge is read again.
func TestBadgeAnsweredFromKeptCount(t *testing.T) {
	ts := newTestSite(t)
	// A's wake-ups come at most every half second: a request right after A's own write
	// comes before A has heard of it.
	a, busA := ts.instance(func(b *site.Bus) { b.WakeEvery = 500 * time.Millisecond })
	b, _ := ts.instance()
	ann, bob := a.client(), b.client()
	ann.signup("ann")
	bob.signup("bob")
	post, _ := ann.shareOn(ts, "https://example.com/kept-badge", "")
	kept := func() int {
		t.Helper()
		m := regexp.MustCompile(`(?m)^tributary_badge_kept_total (\d+)$`).FindStringSubmatch(a.metrics())
		if m == nil {
			t.Fatal("no tributary_badge_kept_total on /metrics")
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	badge := func(want string, fromKept bool) {
		t.Helper()
		before := kept()
		r := ann.get("/notifications/unread")
		if r.status != http.StatusOK || unreadOf(t, r.body) != want {
			t.Fatalf("ann's badge: %d %.200s, want %s", r.status, r.body, want)
		}
		if got := kept() - before; got != map[bool]int{true: 1}[fromKept] {
			t.Errorf("badge %s answered from kept state %d times, want %v", want, got, fromKept)
		}
	}
	busA.Sync(t.Context())
	ann.get("/notifications/unread") // read, and kept, if no request before was
	badge("0", true)
	if !strings.Contains(a.metrics(), `tributary_http_request_duration_seconds_count{method="GET",route="GET /notifications/unread",status="200"} 2`) {
		t.Error("the badge's answers are not timed under its route")
	}

	bob.post("/p/"+itoa(post)+"/like", url.Values{})
	busA.Sync(t.Context())
	badge("1", false)
	badge("1", true)

	// A ban made elsewhere hides the like at once.
	ann.on(b).post("/u/bob/ban", url.Values{})
	busA.Sync(t.Context())
	badge("0", false)
	badge("0", true)

	// Past its session's idle time (by this instance's clock) nothing is answered from what
	// was kept; the database, on its own clock, reads the session again.
	ts.advance(31 * 24 * time.Hour)
	before := kept()
	ann.get("/notifications/unread")
	if kept() != before {
		t.Error("a badge answered from kept state for a session idle past its time")
	}
	ts.advance(-31 * 24 * time.Hour)
	badge("0", true)

	// Ann's other device, on B, ends her other sessions: this one's too, on A.
	other := b.client()
	if r := other.post("/login", url.Values{"handle": {"ann"}, "password": {"correct horse"}}); r.status != http.StatusSeeOther {
		t.Fatalf("login: %d", r.status)
	}
	if r := other.post("/settings/sessions/end-all", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("end the other sessions: %d %.200s", r.status, r.body)
	}
	busA.Sync(t.Context())
	if r := ann.get("/notifications/unread"); r.status == http.StatusOK || strings.Contains(r.body, "data-unread") {
		t.Errorf("after its session was ended elsewhere the badge still answers: %d %.200s", r.status, r.body)
	}

	// A session logged out on A answers nothing there at once, even to a copy of its cookie.
	third := a.client()
	third.post("/login", url.Values{"handle": {"ann"}, "password": {"correct horse"}})
	third.get("/notifications/unread")
	site, _ := url.Parse(a.srv.URL)
	copied := a.client()
	copied.http.Jar.SetCookies(site, third.http.Jar.Cookies(site))
	third.post("/logout", url.Values{})
	before = kept()
	if r := copied.get("/notifications/unread"); r.status == http.StatusOK || kept() != before {
		t.Errorf("a logged-out session's copied cookie got a badge: %d %.200s", r.status, r.body)
	}
}
