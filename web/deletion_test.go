package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// deleteAccount deletes c's account with its password.
func (c *client) deleteAccount() {
	c.a.t.Helper()
	if r := c.post("/settings/delete", url.Values{"password": {"correct horse"}}); r.status != http.StatusOK {
		c.a.t.Fatalf("delete account: status %d: %.300s", r.status, r.body)
	}
}

// What zedd made, as text no one else writes: none of it may show after the deletion.
var zeddMarks = []string{"ZEDDPOST", "ZEDDCOMMENT", "ZEDDGROUP", `/u/zedd"`, "@zedd"}

func TestDeleteAccountHidesEverythingTheyMade(t *testing.T) {
	a := newApp(t)
	zedd, bob, cy, anon := a.client(), a.client(), a.client(), a.client()
	zedd.signup("zedd")
	bob.signup("bob")
	cy.signup("cy")
	cy.filterAct("/u/zedd/follow", url.Values{})
	cy.filterAct("/u/bob/follow", url.Values{})
	zedd.filterAct("/u/bob/follow", url.Values{})
	if r := zedd.post("/groups", url.Values{"name": {"zclub"}, "access": {"public"}}); r.status != http.StatusSeeOther {
		t.Fatalf("group: %d", r.status)
	}
	bob.filterAct("/g/zclub/join", url.Values{})
	zpost := zedd.filterShare("https://example.com/zedd-paper", "ZEDDPOST about #ml", "ml")
	a.filterTick()
	if r := zedd.post("/share", url.Values{"url": {"https://example.com/zedd-group"}, "body": {"ZEDDGROUP"},
		"group": {"zclub"}, "dest": {"1"}}); r.status != http.StatusSeeOther {
		t.Fatalf("group share: %d", r.status)
	}
	// bob's post, which zedd likes and comments on between bob's and cy's comments; and a
	// share by bob of zedd's link (the item keeps bob's share, without zedd among its sharers).
	bpost := bob.filterShare("https://example.com/bob-paper", "Bob on #ml", "ml")
	bob.filterComment(bpost, "BOBCOMMENT first")
	zedd.filterComment(bpost, "ZEDDCOMMENT in the middle @bob #ml")
	cy.filterComment(bpost, "CYCOMMENT last")
	zedd.filterLike(bpost)
	bob.filterShare("https://example.com/zedd-paper", "Bob shares it too", "")
	var banchor int64
	if err := a.store.Pool.QueryRow(t.Context(), "SELECT anchor_id FROM posts WHERE id = $1", bpost).Scan(&banchor); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cy.get("/p/"+itoa(bpost)).body, "ZEDDCOMMENT") || len(cy.searchIDs("ZEDDCOMMENT")) == 0 || len(anon.searchIDs("ZEDDPOST")) == 0 {
		t.Fatal("before the deletion cy does not see or find zedd's comment, or anonymous zedd's post: the test sees nothing")
	}

	a.filterTick()
	if r := zedd.post("/settings/delete", url.Values{"password": {"wrong"}}); r.status != http.StatusBadRequest {
		t.Fatalf("delete with a wrong password: status %d, want 400", r.status)
	}
	zedd.deleteAccount()

	paths := []string{"/", "/api/timeline", "/u/bob", "/u/bob/likes", "/u/bob/comments", "/p/" + itoa(bpost), "/i/" + itoa(banchor),
		"/t/ml", "/t/ml.atom", "/g/zclub", "/g/zclub.atom", "/search?q=zedd", "/api/search?q=zedd", "/search?q=ml",
		"/best", "/talk", "/discussions", "/mentions", "/directs", "/groups", "/settings", "/u/bob?format=json", "/t/ml?format=json"}
	for name, c := range map[string]*client{"bob": bob, "cy": cy, "anonymous": anon, "zedd's old session": zedd} {
		for _, p := range paths {
			r := c.get(p)
			for _, m := range zeddMarks {
				if strings.Contains(r.body, m) {
					t.Errorf("%s: %s shows %q after zedd's deletion", name, p, m)
				}
			}
		}
		// Searching for their words finds nothing (the page echoes the query: read ids).
		for _, q := range []string{"ZEDDPOST", "ZEDDCOMMENT", "ZEDDGROUP"} {
			if ids := c.searchIDs(q); len(ids) != 0 {
				t.Errorf("%s: searching %s finds %v", name, q, ids)
			}
		}
		for _, p := range []string{"/u/zedd", "/u/zedd.atom", "/u/zedd/likes", "/u/zedd/comments", "/p/" + itoa(zpost)} {
			if r := c.get(p); r.status != http.StatusNotFound {
				t.Errorf("%s: %s: status %d, want 404", name, p, r.status)
			}
		}
	}
	// Everyone else's comments on the post zedd commented on stay, in order.
	body := cy.get("/p/" + itoa(bpost)).body
	if i, j := strings.Index(body, "BOBCOMMENT"), strings.Index(body, "CYCOMMENT"); i < 0 || j < i {
		t.Errorf("bob's and cy's comments on bob's post: at %d and %d, want both, in order", i, j)
	}
	var likes, comments int
	if err := a.store.Pool.QueryRow(t.Context(), "SELECT like_count, comment_count FROM posts WHERE id = $1", bpost).Scan(&likes, &comments); err != nil {
		t.Fatal(err)
	}
	if likes != 0 || comments != 2 {
		t.Errorf("bob's post counts %d likes, %d comments; want 0 and 2", likes, comments)
	}
	// The handle stays taken; the account cannot log in.
	if r := a.client().post("/signup", url.Values{"handle": {"zedd"}, "password": {"correct horse"}}); r.status == http.StatusSeeOther {
		t.Error("a new account took a deleted account's handle")
	}
	if r := a.client().post("/login", url.Values{"handle": {"zedd"}, "password": {"correct horse"}}); r.status == http.StatusSeeOther {
		t.Error("a deleted account logged in")
	}

	// The job removes the rest for good; the group zedd administered alone goes to bob.
	var id int64
	if err := a.store.Pool.QueryRow(t.Context(), "SELECT id FROM users WHERE handle = 'zedd'").Scan(&id); err != nil {
		t.Fatal(err)
	}
	if err := a.store.PurgeUser(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := a.store.Pool.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM likes WHERE user_id = $1) + (SELECT count(*) FROM comments WHERE author_id = $1)
		+ (SELECT count(*) FROM follows WHERE follower_id = $1 OR followed_id = $1) + (SELECT count(*) FROM group_members WHERE user_id = $1)`, id).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d rows of zedd's likes, comments, follows and memberships left after the purge", left)
	}
	var role string
	if err := a.store.Pool.QueryRow(t.Context(), `SELECT m.role FROM group_members m JOIN feeds g ON g.id = m.feed_id
		JOIN users u ON u.id = m.user_id WHERE g.name = 'zclub' AND u.handle = 'bob'`).Scan(&role); err != nil || role != "admin" {
		t.Errorf("bob's role in zedd's group: %q (%v), want admin", role, err)
	}
}

// A deletion through instance A reaches B's anonymous front page, cached before it.
func TestDeleteAccountAcrossInstances(t *testing.T) {
	ts := newTestSite(t)
	a, _ := ts.instance()
	b, _ := ts.instance()
	zedd := a.client()
	zedd.signup("zedd")
	if _, err := a.store.Pool.Exec(context.Background(), "UPDATE users SET vip = true WHERE handle = 'zedd'"); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		ts.advance(time.Minute)
		if r := zedd.post("/share", url.Values{"url": {fmt.Sprintf("https://example.com/zedd/%d", i)}, "body": {"ZEDDPOST"}}); r.status != http.StatusSeeOther {
			t.Fatalf("share: %d %s", r.status, r.body)
		}
	}
	ts.advance(time.Hour)
	anon := b.client()
	if ids, _ := anon.apiIDs("limit=10"); len(ids) != 5 {
		t.Fatalf("B's anonymous page shows %d of zedd's posts, want 5", len(ids))
	}
	if r := anon.get("/api/timeline?limit=10"); !strings.Contains(r.body, `"path":"cache"`) {
		t.Fatalf("the anonymous page is not cached on B: %.200s", r.body)
	}
	if r := anon.get("/"); !strings.Contains(r.body, "example.com/zedd/") {
		t.Fatal("B's anonymous front page does not show zedd's posts before the deletion")
	}

	zedd.deleteAccount()
	if ids, _ := anon.apiIDs("limit=10"); len(ids) != 0 {
		t.Errorf("B's anonymous page still shows %d of a deleted user's posts", len(ids))
	}
	if r := anon.get("/"); strings.Contains(r.body, "example.com/zedd/") || strings.Contains(r.body, "ZEDDPOST") {
		t.Error("B's anonymous front page (HTML) still shows a deleted user's posts")
	}
}
