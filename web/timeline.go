package web

import (
	"net/http"

	"tributary"
	"tributary/views"
)

// home is the ranked feed: the viewer's when logged in, the cached front page otherwise.
func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	q, err := tributary.ParseFeedQuery(r.URL.Query())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	u := currentUser(r.Context())
	t, err := s.feed.Timeline(r.Context(), u, q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	fv := views.FeedView{Timeline: t}
	if u == nil {
		fv.Heading, fv.Intro = "What people are reading", "Papers, models, repositories and posts that trusted members shared. Sign up to follow people and get your own feed."
		fv.Empty = "Nothing has been shared yet."
	} else {
		fv.Heading = "Your feed"
		fv.Empty = "Your feed is empty. Share a link, or follow people from their pages."
	}
	s.render(w, r, http.StatusOK, views.RankedPage(s.page(r, fv.Heading), fv))
}

// apiTimeline is the same data as the home page, as JSON.
func (s *Server) apiTimeline(w http.ResponseWriter, r *http.Request) {
	q, err := tributary.ParseFeedQuery(r.URL.Query())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	t, err := s.feed.Timeline(r.Context(), currentUser(r.Context()), q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if t.Items == nil {
		t.Items = []tributary.Item{}
	}
	writeJSON(w, http.StatusOK, t)
}
