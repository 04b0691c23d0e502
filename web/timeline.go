package web

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/a-h/templ"

	"tributary"
	"tributary/feed"
	"tributary/views"
)

// home is the ranked feed: the viewer's when logged in, the cached front page otherwise.
// htmx asks for the next page with a cursor and gets just the cards.
func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	q, err := tributary.ParseFeedQuery(r.URL.Query())
	if err != nil {
		s.failFeed(w, r, q, err)
		return
	}
	u := currentUser(r.Context())
	if q.List != 0 && u != nil && !isHTMX(r) { // a list's page after the first, without JavaScript
		s.renderList(w, r, q, http.StatusOK, views.Form{})
		return
	}
	if s.anonCacheable(r) {
		b, err := s.feed.AnonPage(r.Context(), q, "html"+htmxKind(r), func(t tributary.Timeline) ([]byte, error) {
			return s.renderBytes(r, s.homeView(r, q, t, views.Newcomer{}))
		})
		if err != nil {
			s.failFeed(w, r, q, err)
			return
		}
		serveAnon(w, r, "text/html; charset=utf-8", b)
		return
	}
	t, err := s.feed.Timeline(r.Context(), u, q)
	if err != nil {
		s.failFeed(w, r, q, err)
		return
	}
	var nc views.Newcomer
	if newcomerPage(r, q, t) {
		if nc, err = s.newcomer(r, q, t); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	s.render(w, r, http.StatusOK, s.homeView(r, q, t, nc))
}

// newcomerPage says whether a home feed's page t is a newcomer's first page: one of a
// reader who follows fewer than tributary.Newcomer people, which shows whom they might follow
// above it and the front page's items below it.
func newcomerPage(r *http.Request, q tributary.FeedQuery, t tributary.Timeline) bool {
	return !isHTMX(r) && q.Cursor == "" && q.List == 0 && t.Followees >= 0 && t.Followees < tributary.Newcomer
}

// newcomer reads what a newcomer's home page shows beside their feed: suggestions (one
// query), and the front page's items (the anonymous page's cache), for the viewer's access.
func (s *Server) newcomer(r *http.Request, q tributary.FeedQuery, t tributary.Timeline) (views.Newcomer, error) {
	var nc views.Newcomer
	var err error
	if nc.Suggested, err = s.store.Suggestions(r.Context(), currentUser(r.Context()).ID, suggestedOnHome, s.now()); err != nil {
		return nc, err
	}
	nc.Popular, err = s.feed.Popular(r.Context(), s.viewerAccess(r), q, t.Items)
	return nc, err
}

// homeView is the feed page (with a newcomer's additions nc), or just the cards for htmx.
func (s *Server) homeView(r *http.Request, q tributary.FeedQuery, t tributary.Timeline, nc views.Newcomer) templ.Component {
	fv := s.feedView(r, q, t)
	fv.Newcomer = nc
	if len(nc.Popular) > 0 {
		fv.Empty = "" // the front page's items fill it
	}
	switch {
	case isHTMX(r) && t.Refreshed:
		return views.RefreshedNotice(fv.Base)
	case isHTMX(r):
		return views.Cards(t, fv, s.now())
	}
	return views.RankedPage(s.page(r, fv.Heading), fv)
}

// anonCacheable: an anonymous GET with nothing session-specific to show (no flash) is the
// same page for everyone, served as cached bytes.
func (s *Server) anonCacheable(r *http.Request) bool {
	return currentUser(r.Context()) == nil && !s.sessions.Exists(r.Context(), "flash")
}

func htmxKind(r *http.Request) string {
	if isHTMX(r) {
		return "-htmx"
	}
	return ""
}

func (s *Server) renderBytes(r *http.Request, c templ.Component) ([]byte, error) {
	var buf bytes.Buffer
	err := c.Render(r.Context(), &buf)
	return buf.Bytes(), err
}

// writeJSON answers with the JSON that appendJSON appends, made in a buffer kept for the
// next answer (a page of 30 cards is about 30 KB a request to collect otherwise) and written
// once with its length.
func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request, appendJSON func([]byte) ([]byte, error)) {
	buf := jsonBuffers.Get().(*[]byte)
	b, err := appendJSON((*buf)[:0])
	if err != nil {
		jsonBuffers.Put(buf)
		s.fail(w, r, err)
		return
	}
	b = append(b, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
	if cap(b) <= pageBufferKept {
		*buf = b[:0]
		jsonBuffers.Put(buf)
	}
}

var jsonBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

// failFeed answers a bad cursor in a page with "your feed was refreshed" and a way back.
func (s *Server) failFeed(w http.ResponseWriter, r *http.Request, q tributary.FeedQuery, err error) {
	if tributary.ErrorField(err) != "cursor" {
		s.fail(w, r, err)
		return
	}
	if isHTMX(r) {
		// htmx does not swap 4xx answers: tell it to load the explanation page instead.
		w.Header().Set("HX-Redirect", r.URL.Path+"?"+feedLink(q))
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	s.render(w, r, http.StatusBadRequest, views.RefreshedPage(s.page(r, "Feed refreshed"), "/?"+feedLink(q)))
}

// feedView is the frame of feed q's page t. Its links are made from q, never from the
// request's URL: an anonymous page is cached and served to everyone asking for the same q.
func (s *Server) feedView(r *http.Request, q tributary.FeedQuery, t tributary.Timeline) views.FeedView {
	if currentUser(r.Context()) == nil {
		q.IncludeSeen = false // nothing is seen by nobody; the anonymous cache's key leaves it out
	}
	fv := views.FeedView{Timeline: t, Base: "/?" + feedLink(q), IncludeSeen: q.IncludeSeen,
		PollSeconds: s.pollSeconds, FirstPage: !isHTMX(r)}
	if currentUser(r.Context()) == nil {
		fv.Heading = "What people are reading"
		fv.Intro = "Papers, models, repositories and posts that trusted members shared. Sign up to follow people and get your own feed."
		fv.Empty = "Nothing has been shared yet."
	} else {
		fv.Heading, fv.ShowChip, fv.LoggedIn = "Your feed", true, true
		fv.Empty = "Your feed is empty. Share a link, or follow people from their pages."
	}
	return fv
}

// newCount answers an open page's poll: a pill when items arrived after its fencepost.
func (s *Server) newCount(w http.ResponseWriter, r *http.Request) {
	n, err := rankedNotice(r.URL.Query())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	pill, err := s.pill(r.Context(), currentUser(r.Context()), s.viewerAccess(r), n)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, pill)
}

// newItems commits the newest fencepost and returns its cards, to go above the open page.
func (s *Server) newItems(w http.ResponseWriter, r *http.Request) {
	q, after, err := parseNewQuery(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	t, err := s.feed.NewItems(r.Context(), currentUser(r.Context()), q, after)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	t.NextCursor = "" // the open page below continues the feed
	fv := s.feedView(r, q, t)
	w.Header().Set("HX-Push-Url", "false")
	s.render(w, r, http.StatusOK, views.NewItems(t, fv, s.now()))
}

func parseNewQuery(r *http.Request) (tributary.FeedQuery, time.Time, error) {
	v := r.URL.Query()
	after, err := feed.ParseFencepost(v.Get("fencepost"))
	if err != nil {
		return tributary.FeedQuery{}, time.Time{}, err
	}
	v.Del("fencepost")
	q, err := tributary.ParseFeedQuery(v)
	return q, after, err
}

// apiTimeline is the same data as the home page, as JSON.
func (s *Server) apiTimeline(w http.ResponseWriter, r *http.Request) {
	q, err := tributary.ParseFeedQuery(r.URL.Query())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if s.anonCacheable(r) {
		b, err := s.feed.AnonPage(r.Context(), q, "json", func(t tributary.Timeline) ([]byte, error) { return t.AppendJSON(nil) })
		if err != nil {
			s.fail(w, r, err)
			return
		}
		serveAnon(w, r, "application/json", b)
		return
	}
	t, err := s.feed.Timeline(r.Context(), currentUser(r.Context()), q)
	if err == nil && newcomerPage(r, q, t) { // as the home page fills it
		t.Popular, err = s.feed.Popular(r.Context(), s.viewerAccess(r), q, t.Items)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.writeJSON(w, r, t.AppendJSON)
}

func isHTMX(r *http.Request) bool { return r.Header.Get("HX-Request") == "true" }

// feedLink is feed q's query string without its cursor: the links of its pages start there.
func feedLink(q tributary.FeedQuery) string {
	q.Cursor = ""
	return q.Values().Encode()
}

// bestOf is the week's most shared and discussed items, for everyone.
func (s *Server) bestOf(w http.ResponseWriter, r *http.Request) {
	items, err := s.feed.BestOf(r.Context(), s.viewerAccess(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	fv := views.FeedView{Timeline: tributary.Timeline{Items: items}, Base: "/best", FirstPage: true,
		LoggedIn: currentUser(r.Context()) != nil, Heading: "Best of the week",
		Intro: "What people shared and discussed most in the last seven days.", Empty: "Nothing was shared this week."}
	s.render(w, r, http.StatusOK, views.RankedPage(s.page(r, "Best of the week"), fv))
}
