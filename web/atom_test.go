package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mmcdole/gofeed"
)

// parseAtom parses a feed's answer with a well-kept feed parser, wanting Atom.
func parseAtom(t *testing.T, r response) *gofeed.Feed {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d, want 200: %.300s", r.status, r.body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/atom+xml") {
		t.Fatalf("Content-Type %q, want application/atom+xml", ct)
	}
	f, err := gofeed.NewParser().ParseString(r.body)
	if err != nil {
		t.Fatalf("parse: %v\n%.500s", err, r.body)
	}
	if f.FeedType != "atom" {
		t.Fatalf("feed type %q, want atom", f.FeedType)
	}
	return f
}

func entryLinks(f *gofeed.Feed) []string {
	var links []string
	for _, it := range f.Items {
		links = append(links, it.Link)
	}
	return links
}

func TestAtomFeeds(t *testing.T) {
	a := newApp(t)
	ann, pat, anon := a.client(), a.client(), a.client()
	ann.signup("ann")
	pat.signup("pat")
	ann.filterShare("https://example.com/paper-1", "First #ml paper", "ml")
	ann.filterShare("https://example.com/paper-2", "Second #ml paper", "ml")
	pat.filterShare("https://example.com/pat-1", "Pat's #ml note", "ml")
	if r := pat.post("/settings/visibility", url.Values{"visibility": {"protected"}}); r.status != http.StatusSeeOther {
		t.Fatalf("visibility: %d", r.status)
	}
	for _, g := range []struct{ name, access string }{{"open", "public"}, {"closed", "protected"}, {"secret", "private"}} {
		if r := ann.post("/groups", url.Values{"name": {g.name}, "access": {g.access}}); r.status != http.StatusSeeOther {
			t.Fatalf("group %s: %d %.200s", g.name, r.status, r.body)
		}
	}
	a.filterTick()
	if r := ann.post("/share", url.Values{"url": {"https://example.com/group-1"}, "title": {"In the group"}, "body": {"For the group"},
		"group": {"open"}, "dest": {"1"}}); r.status != http.StatusSeeOther {
		t.Fatalf("group share: %d %.300s", r.status, r.body)
	}

	t.Run("readable feeds", func(t *testing.T) {
		for _, tc := range []struct {
			path string
			want []string
		}{
			{"/u/ann.atom", []string{"https://example.com/paper-2", "https://example.com/paper-1"}},
			{"/t/ml.atom", []string{"https://example.com/paper-2", "https://example.com/paper-1"}}, // pat's is protected
			{"/g/open.atom", []string{"https://example.com/group-1"}},
			{"/u/ann.atom?limit=1", []string{"https://example.com/paper-2"}},
		} {
			f := parseAtom(t, anon.get(tc.path))
			if got := entryLinks(f); strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("%s: links %v, want %v", tc.path, got, tc.want)
			}
			for _, it := range f.Items {
				if it.Title == "" || it.Author == nil || it.Author.Name == "" || it.Published == "" {
					t.Errorf("%s: entry %+v lacks title, author or date", tc.path, it)
				}
			}
		}
		f := parseAtom(t, anon.get("/u/ann.atom"))
		if got := f.Items[0].Description; got != "Second #ml paper" {
			t.Errorf("summary %q, want the share's text", got)
		}
	})

	t.Run("unreadable or bad", func(t *testing.T) {
		for _, tc := range []struct {
			path   string
			status int
		}{
			{"/u/pat.atom", http.StatusNotFound},
			{"/g/closed.atom", http.StatusNotFound},
			{"/g/secret.atom", http.StatusNotFound},
			{"/u/nobody.atom", http.StatusNotFound},
			{"/u/ann.atom?limit=0", http.StatusBadRequest},
			{"/u/ann.atom?limit=101", http.StatusBadRequest},
			{"/u/ann.atom?limit=x", http.StatusBadRequest},
		} {
			// Logged in or not, the feed is what anonymous visitors may read.
			for _, c := range []*client{anon, pat} {
				if r := c.get(tc.path); r.status != tc.status {
					t.Errorf("%s: status %d, want %d", tc.path, r.status, tc.status)
				}
			}
		}
	})

	t.Run("conditional get", func(t *testing.T) {
		r := anon.get("/u/ann.atom")
		etag, lm := r.header.Get("ETag"), r.header.Get("Last-Modified")
		if etag == "" || lm == "" {
			t.Fatalf("ETag %q, Last-Modified %q: want both", etag, lm)
		}
		if r := anon.do("GET", "/u/ann.atom", nil, http.Header{"If-None-Match": {etag}}); r.status != http.StatusNotModified {
			t.Errorf("If-None-Match: status %d, want 304", r.status)
		}
		if r := anon.do("GET", "/u/ann.atom", nil, http.Header{"If-Modified-Since": {lm}}); r.status != http.StatusNotModified {
			t.Errorf("If-Modified-Since: status %d, want 304", r.status)
		}
		ann.filterShare("https://example.com/paper-3", "Third", "ml")
		if r := anon.do("GET", "/u/ann.atom", nil, http.Header{"If-None-Match": {etag}}); r.status != http.StatusOK {
			t.Errorf("after a new post, If-None-Match: status %d, want 200", r.status)
		}
		if r := anon.do("GET", "/u/ann.atom", nil, http.Header{"If-Modified-Since": {lm}}); r.status != http.StatusOK {
			t.Errorf("after a new post, If-Modified-Since: status %d, want 200", r.status)
		}
	})

	t.Run("autodiscovery", func(t *testing.T) {
		for _, tc := range []struct {
			page, atom string
			want       bool
		}{
			{"/u/ann", "/u/ann.atom", true},
			{"/t/ml", "/t/ml.atom", true},
			{"/g/open", "/g/open.atom", true},
			{"/u/pat", "/u/pat.atom", false},
			{"/g/closed", "/g/closed.atom", false},
		} {
			r := ann.get(tc.page)
			link := `<link rel="alternate" type="application/atom+xml"`
			got := strings.Contains(r.body, link) && strings.Contains(r.body, `href="`+tc.atom+`"`)
			if got != tc.want {
				t.Errorf("%s: autodiscovery of %s: %v, want %v", tc.page, tc.atom, got, tc.want)
			}
		}
	})
}
