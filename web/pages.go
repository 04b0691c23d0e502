package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"tributary"
	"tributary/db"
	"tributary/feed"
	"tributary/views"
)

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	if err := s.store.Ping(r.Context()); err != nil {
		s.outage.note(r.Context(), s.log, err)
		w.Header().Set("Retry-After", retryAfter)
		http.Error(w, "database unreachable", http.StatusServiceUnavailable)
		return
	}
	w.Write([]byte("ok\n"))
}

func (s *Server) userPage(w http.ResponseWriter, r *http.Request) {
	if handle, ok := atomName(r.PathValue("handle")); ok {
		s.userAtom(w, r, handle)
		return
	}
	u, err := s.names.byHandle(r.Context(), r.PathValue("handle"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	viewer := currentUser(r.Context())
	l, done := s.chronoList(w, r, feed.Chrono{Author: u.ID}, "/u/"+u.Handle, "No posts to show.", viewer != nil && viewer.ID == u.ID)
	if done {
		return
	}
	p, err := s.store.Profile(r.Context(), u.ID, s.viewerAccess(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	pr := views.Profile{Profile: p, IsSelf: viewer != nil && viewer.ID == p.User.ID, LoggedIn: viewer != nil, Posts: l}
	pg := s.page(r, p.User.DisplayName+" (@"+p.User.Handle+")")
	pg.Preview, pg.URL = true, absoluteURL(r, "/u/"+p.User.Handle)
	if p.Visibility == tributary.AccessPublic {
		pg.Atom = "/u/" + p.User.Handle + ".atom"
	}
	pg.Description = fmt.Sprintf("%s (@%s) on Tributary: papers, models, repositories and posts they shared.", p.User.DisplayName, p.User.Handle)
	s.render(w, r, http.StatusOK, views.UserPage(pg, pr))
}

// chronoList reads a page of a chronological feed (path is its page). The next page of an
// htmx scroll, the open page's poll for new posts (?new=fencepost) and the posts it then puts
// above (?since=fencepost), the JSON envelope (?format=json), a bad cursor or an error are
// answered here (done); a whole page's list is returned for the caller to frame.
func (s *Server) chronoList(w http.ResponseWriter, r *http.Request, c feed.Chrono, path, empty string, own bool) (views.PostList, bool) {
	q := r.URL.Query()
	viewer := currentUser(r.Context())
	access := s.viewerAccess(r)
	l := views.PostList{Base: path, Empty: empty, LoggedIn: viewer != nil, PollSeconds: max(s.pollSeconds, 0)}
	switch {
	case q.Has("new"):
		n, err := chronoNotice(c, path, q.Get("new"))
		if err == nil {
			var pill templ.Component
			if pill, err = s.pill(r.Context(), viewer, access, n); err == nil {
				s.render(w, r, http.StatusOK, pill)
				return l, true
			}
		}
		s.fail(w, r, err)
		return l, true
	case q.Has("since"):
		after, err := feed.ParseFencepost(q.Get("since"))
		if err != nil {
			s.fail(w, r, err)
			return l, true
		}
		page, err := s.feed.ChronoNew(r.Context(), viewer, access, c, after)
		if err != nil {
			s.fail(w, r, err)
			return l, true
		}
		l.Posts, l.Fencepost, l.Fragment = page.Posts, page.Fencepost, true
		w.Header().Set("HX-Push-Url", "false")
		s.render(w, r, http.StatusOK, views.NewPosts(l, s.now()))
		return l, true
	}
	format := q.Get("format")
	if format != "" && format != "json" {
		s.fail(w, r, tributary.FieldErrorf("format", "Parameter 'format' must be json or absent, got %q.", format))
		return l, true
	}
	cursor := q.Get("cursor")
	page, err := s.feed.ChronoAs(r.Context(), viewer, access, c, cursor, db.PageSize)
	if err != nil {
		s.failChrono(w, r, path, err)
		return l, true
	}
	l.Posts, l.NextCursor, l.Fencepost, l.Fragment = page.Posts, page.NextCursor, page.Fencepost, isHTMX(r) && cursor != ""
	switch {
	case format == "json":
		s.writeChronoJSON(w, r, path, page)
		return l, true
	case l.Fragment && page.Refreshed:
		s.render(w, r, http.StatusOK, views.RefreshedNotice(path))
		return l, true
	case l.Fragment:
		s.render(w, r, http.StatusOK, views.PostListView(l, s.now(), own))
		return l, true
	}
	return l, false
}

// failChrono answers a bad cursor of a chronological feed with "refreshed" and a way back.
func (s *Server) failChrono(w http.ResponseWriter, r *http.Request, path string, err error) {
	if tributary.ErrorField(err) != "cursor" {
		s.fail(w, r, err)
		return
	}
	if isHTMX(r) {
		w.Header().Set("HX-Redirect", path)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	s.render(w, r, http.StatusBadRequest, views.RefreshedPage(s.page(r, "Feed refreshed"), path))
}

func (s *Server) shareForm(w http.ResponseWriter, r *http.Request) {
	f := views.Form{Values: r.URL.Query()} // a bookmarklet may prefill ?url=&title=
	s.renderShare(w, r, http.StatusOK, f)
}

func (s *Server) renderShare(w http.ResponseWriter, r *http.Request, status int, f views.Form) {
	opts, err := s.store.ShareOptionsOf(r.Context(), currentUser(r.Context()).ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, status, views.SharePage(s.page(r, "Share a link"), f, opts))
}

func (s *Server) share(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r.Context())
	if s.limited(w, r, sharesPerUser, strconv.FormatInt(u.ID, 10)) {
		return
	}
	f := parseForm(r)
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: u.ID, URL: f.Get("url"), Title: f.Get("title"),
		Body: f.Get("body"), Tags: tributary.ParseTags(f.Get("tags")), CreatedAt: s.now(),
		Direct: strings.TrimSpace(f.Get("direct")) != ""})
	var dest db.Destination
	if err == nil {
		dest, err = s.store.ResolveDestination(r.Context(), f.Get("own") == "1" || !r.PostForm.Has("dest") && f.Get("direct") == "",
			f.Values["group"], strings.Split(f.Get("direct"), ","))
	}
	if err == nil {
		_, err = s.store.Share(r.Context(), p, dest)
	}
	if code := tributary.ErrorCode(err); code == tributary.EInvalid || code == tributary.EForbidden {
		f.Errors[tributary.ErrorField(err)] = tributary.ErrorMessage(err)
		s.renderShare(w, r, statusOf(code), f)
		return
	} else if err != nil {
		s.fail(w, r, err)
		return
	}
	s.contentChanged(r)
	s.flash(r, "Shared.")
	switch {
	case len(dest.DirectTo) > 0:
		http.Redirect(w, r, "/directs", http.StatusSeeOther)
	case !dest.OwnFeed && len(dest.Groups) > 0: // not on the sharer's page: the group's
		http.Redirect(w, r, "/g/"+url.PathEscape(f.Values["group"][0]), http.StatusSeeOther)
	default:
		http.Redirect(w, r, "/u/"+u.Handle, http.StatusSeeOther)
	}
}
