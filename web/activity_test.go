package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// activityPage is the part of the timeline's JSON the activity tests read.
type activityPage struct {
	Items []struct {
		ID       int64 `json:"id"`
		Activity *struct {
			User struct {
				Handle string `json:"handle"`
			} `json:"user"`
			Commented bool `json:"commented"`
		} `json:"activity"`
	} `json:"items"`
	Fencepost  string `json:"fencepost"`
	NextCursor string `json:"next_cursor"`
}

func (c *client) activityPage() activityPage {
	c.a.t.Helper()
	r := c.get("/api/timeline")
	if r.status != http.StatusOK {
		c.a.t.Fatalf("GET /api/timeline: status %d %s", r.status, r.body)
	}
	var p activityPage
	if err := json.Unmarshal([]byte(r.body), &p); err != nil {
		c.a.t.Fatal(err)
	}
	return p
}

// newSince is the "N new" pill's count after a fencepost ("" when none).
func (c *client) newSince(fp string) string {
	c.a.t.Helper()
	r := c.get("/feed/new?fencepost=" + url.QueryEscape(fp))
	if r.status != http.StatusOK {
		c.a.t.Fatalf("GET /feed/new: status %d %s", r.status, r.body)
	}
	return strings.TrimSpace(stripTags(r.body))
}

func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// A post someone the reader follows commented on or liked arrives in the reader's home feed
// in the next fencepost (the "N new" pill), with who did it; not when the reader chose
// "people I follow only", and never a post the reader may not read.
func TestFolloweeActivityArrivesInHomeFeed(t *testing.T) {
	a := newApp(t)
	ada, bob, cy, dee := a.client(), a.client(), a.client(), a.client()
	for h, c := range map[string]*client{"ada": ada, "bob": bob, "cy": cy, "dee": dee} {
		c.signup(h)
	}
	if r := ada.post("/u/bob/follow", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("follow: %d", r.status)
	}
	old, oldAnchor := cy.shareAs("https://arxiv.org/abs/2402.00001") // ada follows no one who shared it
	// dee's private post: bob follows dee (approved), ada may not read it.
	if r := dee.post("/settings/visibility", url.Values{"visibility": {"private"}}); r.status != http.StatusSeeOther {
		t.Fatalf("visibility: %d", r.status)
	}
	bob.post("/u/dee/follow", url.Values{})
	dee.post("/settings/requests/bob/approve", url.Values{})
	secret, secretAnchor := dee.shareAs("https://arxiv.org/abs/2402.00002")

	bob.shareAs("https://github.com/bob/own") // ada's feed holds something: it has a fencepost
	a.now = a.now.Add(time.Hour)
	first := ada.activityPage()
	for _, it := range first.Items {
		if it.ID == oldAnchor || it.ID == secretAnchor {
			t.Fatalf("item %d is in ada's feed before anyone she follows acted on it", it.ID)
		}
	}

	a.now = a.now.Add(time.Minute)
	if r := bob.post("/p/"+itoa(old)+"/comments", url.Values{"body": {"Worth a read."}}); r.status != http.StatusSeeOther {
		t.Fatalf("comment: %d %s", r.status, r.body)
	}
	if r := bob.post("/p/"+itoa(secret)+"/like", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("like: %d %s", r.status, r.body)
	}
	a.now = a.now.Add(time.Minute)
	if got := ada.newSince(first.Fencepost); got != "1 new" {
		t.Fatalf("pill after bob commented (and liked a post ada may not read): %q, want \"1 new\"", got)
	}
	r := ada.get("/feed/new/items?fencepost=" + url.QueryEscape(first.Fencepost))
	if r.status != http.StatusOK || !strings.Contains(r.body, `data-item-id="`+itoa(oldAnchor)+`"`) {
		t.Fatalf("new items: status %d, want the item bob commented on", r.status)
	}
	if strings.Contains(r.body, `data-item-id="`+itoa(secretAnchor)+`"`) {
		t.Fatal("a post ada may not read arrived by bob's like")
	}
	if !strings.Contains(r.body, `data-testid="activity"`) || !strings.Contains(stripTags(r.body), "@bob commented") {
		t.Fatalf("the card does not say why it came: %s", r.body)
	}
	found := false
	for _, it := range ada.activityPage().Items {
		if it.ID == oldAnchor {
			found = true
			if it.Activity == nil || it.Activity.User.Handle != "bob" || !it.Activity.Commented {
				t.Fatalf("JSON activity of the item: %+v, want bob commented", it.Activity)
			}
		}
		if it.ID == secretAnchor {
			t.Fatal("a post ada may not read is in her JSON feed")
		}
	}
	if !found {
		t.Fatal("the item bob commented on is not in ada's feed after the pill")
	}

	// People I follow only: bob's like of another of cy's posts brings nothing.
	if r := ada.post("/settings/activity", url.Values{"home_activity": {"off"}}); r.status != http.StatusSeeOther {
		t.Fatalf("settings: %d %s", r.status, r.body)
	}
	if r := ada.post("/settings/activity", url.Values{"home_activity": {"maybe"}}); r.status != http.StatusBadRequest {
		t.Fatalf("a bad setting: status %d, want 400", r.status)
	}
	other, otherAnchor := cy.shareAs("https://arxiv.org/abs/2402.00003")
	page := ada.activityPage()
	a.now = a.now.Add(time.Minute)
	bob.post("/p/"+itoa(other)+"/like", url.Values{})
	a.now = a.now.Add(time.Minute)
	if got := ada.newSince(page.Fencepost); got != "" {
		t.Fatalf("pill with activity off: %q, want none", got)
	}
	for _, it := range ada.activityPage().Items {
		if it.ID == otherAnchor {
			t.Fatal("with activity off, a post bob liked came into ada's feed")
		}
	}
}
