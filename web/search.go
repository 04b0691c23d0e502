package web

import (
	"errors"
	"net/http"
	"net/url"

	"tributary"
	"tributary/db"
	"tributary/feed"
	"tributary/search"
	"tributary/views"
)

// Search (seed 002's search river): GET /search?q= is a page of results scrolling like a
// chronological feed (best matches among the newest first, then by date), with its own "N
// new" notice; GET /api/search?q= is the same as the JSON envelope of chronological feeds.
// A query that does not parse is a 400 naming the problem.

func (s *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	raw := r.URL.Query().Get("q")
	pg := s.page(r, "Search")
	pg.Query = raw
	sq, words, err := s.parseSearch(r, raw)
	switch {
	case errors.Is(err, search.ErrEmpty):
		s.render(w, r, http.StatusOK, views.SearchPage(pg, views.SearchView{}))
		return
	case tributary.ErrorCode(err) == tributary.EInvalid && !isHTMX(r):
		s.render(w, r, http.StatusBadRequest, views.SearchPage(pg, views.SearchView{Query: raw, Error: tributary.ErrorMessage(err), Asked: true}))
		return
	case err != nil:
		s.fail(w, r, err)
		return
	}
	pg.Title = raw + " · Search"
	r = r.WithContext(views.WithHighlight(r.Context(), words))
	l, done := s.chronoList(w, r, feed.Chrono{Search: &sq}, "/search?q="+url.QueryEscape(raw), "No posts or comments match "+raw+".", false)
	if done {
		return
	}
	s.render(w, r, http.StatusOK, views.SearchPage(pg, views.SearchView{Query: raw, Posts: l, Asked: true}))
}

// apiSearch is a search's results as JSON (the chronological feeds' envelope).
func (s *Server) apiSearch(w http.ResponseWriter, r *http.Request) {
	raw := r.URL.Query().Get("q")
	sq, _, err := s.parseSearch(r, raw)
	if errors.Is(err, search.ErrEmpty) {
		err = tributary.FieldErrorf("q", "Parameter 'q' must be a search, like q=attention or q=from:ada.")
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := r.URL.Query()
	v.Set("format", "json")
	r.URL.RawQuery = v.Encode()
	s.chronoList(w, r, feed.Chrono{Search: &sq}, "/search?q="+url.QueryEscape(raw), "", false)
}

// parseSearch parses a query and resolves its names ("me" is the viewer): a syntax error or
// a name nobody has is an EInvalid error naming it. It returns the words to highlight.
func (s *Server) parseSearch(r *http.Request, raw string) (db.Search, []string, error) {
	q, err := search.Parse(raw)
	if errors.Is(err, search.ErrEmpty) {
		return db.Search{}, nil, err
	} else if err != nil {
		return db.Search{}, nil, tributary.FieldErrorf("q", "%s", err.Error())
	}
	sq := db.Search{Text: q.TSQuery, Tags: q.Tags, Sites: q.Sites}
	for _, names := range []struct {
		op    string
		names []string
		ids   *[]int64
	}{{"from", q.From, &sq.Authors}, {"liked-by", q.LikedBy, &sq.LikedBy}, {"commented-by", q.CommentedBy, &sq.CommentedBy}} {
		for _, h := range names.names {
			id, err := s.searchUser(r, names.op, h)
			if err != nil {
				return db.Search{}, nil, err
			}
			*names.ids = append(*names.ids, id)
		}
	}
	for _, name := range q.In {
		g, err := s.store.GroupByName(r.Context(), name)
		if tributary.ErrorCode(err) == tributary.ENotFound {
			return db.Search{}, nil, tributary.FieldErrorf("q", "There is no group %q (in:%s).", name, name)
		} else if err != nil {
			return db.Search{}, nil, err
		}
		sq.Groups = append(sq.Groups, g.ID)
	}
	return sq, q.Words, nil
}

// searchUser resolves a handle of an operator: "me" is the viewer; a handle found is kept
// (userNames), one that nobody has is asked again.
func (s *Server) searchUser(r *http.Request, op, handle string) (int64, error) {
	if handle == "me" {
		u := currentUser(r.Context())
		if u == nil {
			return 0, tributary.FieldErrorf("q", "Log in to search with %s:me.", op)
		}
		return u.ID, nil
	}
	u, err := s.names.byHandle(r.Context(), handle)
	if tributary.ErrorCode(err) == tributary.ENotFound {
		return 0, tributary.FieldErrorf("q", "Nobody has the handle %q (%s:%s).", handle, op, handle)
	} else if err != nil {
		return 0, err
	}
	return u.ID, nil
}
