package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/xml"
	"net/http"
	"strconv"
	"strings"
	"time"

	"tributary"
	"tributary/db"
	"tributary/feed"
	"tributary/static"
)

// Atom feeds: what anonymous visitors may read of a user, a tag or a group, for feed readers.
// ServeMux wildcards are whole segments, so /u/{handle}.atom reaches the page's handler, which
// hands it here (atomName).
const (
	atomType     = "application/atom+xml"
	atomDefault  = 20
	atomMaxLimit = 100
)

// atomName reports whether a path segment names a feed ("alice.atom") and what it names.
func atomName(segment string) (string, bool) {
	return strings.CutSuffix(segment, ".atom")
}

// atomFeed is an Atom document (RFC 4287).
type atomFeed struct {
	XMLName xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string      `xml:"id"`
	Title   string      `xml:"title"`
	Updated string      `xml:"updated"`
	Links   []atomLink  `xml:"link"`
	Entries []atomEntry `xml:"entry"`
}

type atomLink struct {
	Rel  string `xml:"rel,attr,omitempty"`
	Type string `xml:"type,attr,omitempty"`
	Href string `xml:"href,attr"`
}

type atomEntry struct {
	ID        string     `xml:"id"`
	Title     string     `xml:"title"`
	Updated   string     `xml:"updated"`
	Published string     `xml:"published"`
	Links     []atomLink `xml:"link"`
	Author    atomAuthor `xml:"author"`
	Summary   string     `xml:"summary,omitempty"`
}

type atomAuthor struct {
	Name string `xml:"name"`
	URI  string `xml:"uri"`
}

// atomLimit reads ?limit= (absent: the default).
func atomLimit(r *http.Request) (int, error) {
	s := r.URL.Query().Get("limit")
	if s == "" {
		return atomDefault, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > atomMaxLimit {
		return 0, tributary.FieldErrorf("limit", "Parameter 'limit' must be a number from 1 to %d, got %q.", atomMaxLimit, s)
	}
	return n, nil
}

// serveAtom answers with the newest posts of a feed as anonymous visitors read them; page is
// the feed's HTML page (a path), title its name.
func (s *Server) serveAtom(w http.ResponseWriter, r *http.Request, c feed.Chrono, page, title string) {
	limit, err := atomLimit(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p, err := s.feed.ChronoAs(r.Context(), nil, tributary.Anonymous, c, "", limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	body, updated, err := atomOf(r, p.Posts, page, title)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	sum := sha256.Sum256(body)
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
	h := w.Header()
	h.Set("Content-Type", atomType+"; charset=utf-8")
	h.Set("ETag", etag)
	h.Set("Last-Modified", updated.UTC().Format(http.TimeFormat))
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		if static.ETagMatches(inm, etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	} else if ims, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !updated.Truncate(time.Second).After(ims) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Write(body)
}

// atomOf writes the Atom document of posts and reports when it last changed (the newest
// post or edit; the epoch for an empty feed, so its answer is stable).
func atomOf(r *http.Request, posts []tributary.Post, page, title string) ([]byte, time.Time, error) {
	self := absoluteURL(r, r.URL.Path)
	f := atomFeed{ID: absoluteURL(r, page), Title: title + " on Tributary",
		Links: []atomLink{{Rel: "self", Type: atomType, Href: self}, {Rel: "alternate", Type: "text/html", Href: absoluteURL(r, page)}}}
	updated := time.Unix(0, 0).UTC()
	for _, p := range posts {
		changed := p.CreatedAt
		if p.EditedAt != nil && p.EditedAt.After(changed) {
			changed = *p.EditedAt
		}
		if changed.After(updated) {
			updated = changed
		}
		f.Entries = append(f.Entries, atomEntryOf(r, p, changed))
	}
	f.Updated = updated.UTC().Format(time.RFC3339)
	var b bytes.Buffer
	b.WriteString(xml.Header)
	if err := xml.NewEncoder(&b).Encode(f); err != nil {
		return nil, updated, err
	}
	return b.Bytes(), updated, nil
}

// atomEntryOf is a post as its card shows it: the card's title and summary when the link
// said them, the share's own otherwise; the link it shares (or the post, when it has none).
func atomEntryOf(r *http.Request, p tributary.Post, changed time.Time) atomEntry {
	post := absoluteURL(r, "/p/"+strconv.FormatInt(p.ID, 10))
	title, summary := p.Title, p.Body
	if p.Card != nil {
		if p.Card.Title != "" && title == "" {
			title = p.Card.Title
		}
		if summary == "" {
			summary = p.Card.Description
		}
	}
	if title == "" {
		title = p.URL
	}
	link := p.URL
	if link == "" {
		link = post
	}
	name := p.Author.Name
	if name == "" {
		name = "@" + p.Author.Handle
	}
	return atomEntry{ID: post, Title: title, Summary: summary,
		Published: p.CreatedAt.UTC().Format(time.RFC3339), Updated: changed.UTC().Format(time.RFC3339),
		Links:  []atomLink{{Rel: "alternate", Href: link}, {Rel: "related", Type: "text/html", Href: post}},
		Author: atomAuthor{Name: name, URI: absoluteURL(r, "/u/"+p.Author.Handle)}}
}

// notFeed answers a feed anonymous visitors may not read as if it did not exist.
var notFeed = tributary.Errorf(tributary.ENotFound, "No such feed.")

func (s *Server) userAtom(w http.ResponseWriter, r *http.Request, handle string) {
	u, err := s.names.byHandle(r.Context(), handle)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if access, err := s.store.Visibility(r.Context(), u.ID); err != nil {
		s.fail(w, r, err)
		return
	} else if access != tributary.AccessPublic {
		s.fail(w, r, notFeed)
		return
	}
	s.serveAtom(w, r, feed.Chrono{Author: u.ID}, "/u/"+u.Handle, u.DisplayName+" (@"+u.Handle+")")
}

func (s *Server) tagAtom(w http.ResponseWriter, r *http.Request, tag string) {
	s.serveAtom(w, r, feed.Chrono{Filter: db.TagFeed(tag)}, "/t/"+tag, "#"+tag)
}

func (s *Server) groupAtom(w http.ResponseWriter, r *http.Request, name string) {
	g, err := s.store.GroupByName(r.Context(), name)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if g.Access != tributary.AccessPublic {
		s.fail(w, r, notFeed)
		return
	}
	s.serveAtom(w, r, feed.Chrono{Feed: g.ID}, "/g/"+g.Name, g.Title)
}
