package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// checked reports whether the form's input with data-testid id is ticked.
func checked(body, id string) bool {
	m := regexp.MustCompile(`<input[^>]*data-testid="` + regexp.QuoteMeta(id) + `"[^>]*>`).FindString(body)
	return strings.Contains(m, " checked")
}

// After a validation error the share form keeps the choices made: "My feed" stays unticked,
// the groups ticked stay ticked, the recipients stay.
func TestShareFormKeepsItsChoices(t *testing.T) {
	a := newApp(t)
	ada, bob := a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	adaUser, err := a.store.UserByHandle(t.Context(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.CreateGroup(t.Context(), adaUser.ID, "papers", "Papers", "public", false); err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.CreateGroup(t.Context(), adaUser.ID, "other", "Other", "public", false); err != nil {
		t.Fatal(err)
	}
	r := ada.get("/share")
	if !checked(r.body, "to-own") || checked(r.body, "to-group-papers") {
		t.Fatalf("a new share form: My feed ticked %v, papers ticked %v; want true, false", checked(r.body, "to-own"), checked(r.body, "to-group-papers"))
	}
	for _, tc := range []struct {
		name      string
		form      url.Values
		own       bool
		papers    bool
		direct    string
		errorTest string
	}{
		{"a group without my feed", url.Values{"dest": {"1"}, "url": {"not a link"}, "group": {"papers"}}, false, true, "", "error-url"},
		{"my feed and a group", url.Values{"dest": {"1"}, "url": {"not a link"}, "own": {"1"}, "group": {"papers"}}, true, true, "", "error-url"},
		{"a direct to someone who does not follow", url.Values{"dest": {"1"}, "url": {"https://example.com/x"}, "direct": {"@bob"}}, false, false, "@bob", "error-to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ada.post("/share", tc.form)
			if r.status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", r.status)
			}
			if !strings.Contains(r.body, `data-testid="`+tc.errorTest+`"`) {
				t.Errorf("no %s on the form again", tc.errorTest)
			}
			if got := checked(r.body, "to-own"); got != tc.own {
				t.Errorf("My feed ticked %v, want %v", got, tc.own)
			}
			if got := checked(r.body, "to-group-papers"); got != tc.papers {
				t.Errorf("papers ticked %v, want %v", got, tc.papers)
			}
			if checked(r.body, "to-group-other") {
				t.Errorf("other ticked, want not")
			}
			if got := attr(regexp.MustCompile(`<input[^>]*data-testid="to-direct"[^>]*>`).FindString(r.body), "value"); got != tc.direct {
				t.Errorf("recipients %q, want %q", got, tc.direct)
			}
		})
	}
}

// The share form suggests as recipients of a direct only the people who may receive one
// (the sharer's followers), and says so.
func TestShareFormSuggestsFollowers(t *testing.T) {
	a := newApp(t)
	ada, bob, cy := a.client(), a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	cy.signup("cy")
	bob.post("/u/ada/follow", url.Values{})
	ada.post("/u/cy/follow", url.Values{}) // ada follows cy: cy may not receive ada's directs
	r := ada.get("/share")
	list := regexp.MustCompile(`(?s)<datalist id="f-direct-recipients">(.*?)</datalist>`).FindStringSubmatch(r.body)
	if list == nil {
		t.Fatalf("no recipients' datalist on the share form")
	}
	if !strings.Contains(list[1], `value="@bob"`) || strings.Contains(list[1], `value="@cy"`) {
		t.Errorf("recipients suggested %q, want @bob alone", list[1])
	}
	if attr(regexp.MustCompile(`<input[^>]*data-testid="to-direct"[^>]*>`).FindString(r.body), "list") != "f-direct-recipients" {
		t.Errorf("the recipients' field does not use the datalist")
	}
	if !strings.Contains(r.body, `data-testid="direct-rule"`) {
		t.Errorf("the form does not state who may receive directs")
	}
}

// A direct is a message: text without a link goes to its recipients (their directs and
// home), and nowhere else may a post go without a link.
func TestADirectNeedsNoLink(t *testing.T) {
	a := newApp(t)
	ada, bob, cy := a.client(), a.client(), a.client()
	ada.signup("ada")
	bob.signup("bob")
	cy.signup("cy")
	bob.post("/u/ada/follow", url.Values{})
	cy.post("/u/ada/follow", url.Values{})
	for _, tc := range []struct {
		name  string
		form  url.Values
		field string
	}{
		{"to my feed", url.Values{"dest": {"1"}, "own": {"1"}, "body": {"no link"}}, "error-url"},
		{"a direct with nothing to say", url.Values{"dest": {"1"}, "direct": {"@bob"}}, "error-body"},
	} {
		if r := ada.post("/share", tc.form); r.status != http.StatusBadRequest || !strings.Contains(r.body, `data-testid="`+tc.field+`"`) {
			t.Errorf("%s: status %d, want 400 with %s", tc.name, r.status, tc.field)
		}
	}
	r := ada.post("/share", url.Values{"dest": {"1"}, "direct": {"@bob"}, "body": {"Lunch on Thursday?\nThe usual place."}})
	if r.status != http.StatusSeeOther || r.location != "/directs" {
		t.Fatalf("a direct without a link: status %d to %q, want 303 to /directs: %s", r.status, r.location, r.body)
	}
	for _, page := range []string{"/directs", "/"} {
		if body := bob.get(page).body; !strings.Contains(body, "Lunch on Thursday?") {
			t.Errorf("bob's %s does not show ada's message", page)
		}
		if body := cy.get(page).body; strings.Contains(body, "Lunch on Thursday?") {
			t.Errorf("cy's %s shows ada's message to bob", page)
		}
	}
}
