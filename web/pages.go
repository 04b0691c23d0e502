package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"tributary"
	"tributary/db"
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
	after, err := parsePostCursor(r.URL.Query().Get("before"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	viewer := currentUser(r.Context())
	var viewerID int64
	if viewer != nil {
		viewerID = viewer.ID
	}
	p, err := s.store.Profile(r.Context(), r.PathValue("handle"), viewerID, after, db.PageSize)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	pr := views.Profile{Profile: p, IsSelf: viewerID == p.User.ID, LoggedIn: viewer != nil,
		Posts: views.PostList{Posts: p.Posts, OlderURL: olderURL("/u/"+p.User.Handle, p.Next), Empty: "No posts to show."}}
	pg := s.page(r, p.User.DisplayName+" (@"+p.User.Handle+")")
	pg.Preview, pg.URL = true, absoluteURL(r, "/u/"+p.User.Handle)
	pg.Description = fmt.Sprintf("%s (@%s) on Tributary: papers, models, repositories and posts they shared.", p.User.DisplayName, p.User.Handle)
	s.render(w, r, http.StatusOK, views.UserPage(pg, pr))
}

func (s *Server) shareForm(w http.ResponseWriter, r *http.Request) {
	f := views.Form{Values: r.URL.Query()} // a bookmarklet may prefill ?url=&title=
	s.renderShare(w, r, http.StatusOK, f)
}

func (s *Server) renderShare(w http.ResponseWriter, r *http.Request, status int, f views.Form) {
	groups, err := s.store.GroupsOf(r.Context(), currentUser(r.Context()).ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, status, views.SharePage(s.page(r, "Share a link"), f, groups))
}

func (s *Server) share(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r.Context())
	if s.limited(w, r, sharesPerUser, strconv.FormatInt(u.ID, 10)) {
		return
	}
	f := parseForm(r)
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: u.ID, URL: f.Get("url"), Title: f.Get("title"),
		Body: f.Get("body"), Tags: tributary.ParseTags(f.Get("tags")), CreatedAt: s.now()})
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
	s.flash(r, "Shared.")
	switch {
	case len(dest.DirectTo) > 0:
		http.Redirect(w, r, "/directs", http.StatusSeeOther)
	default:
		http.Redirect(w, r, "/u/"+u.Handle, http.StatusSeeOther)
	}
}

// Chronological pages continue from "before=<unix nanos>_<post id>".
func olderURL(path string, c db.PostCursor) string {
	if c.ID == 0 {
		return ""
	}
	return path + "?before=" + strconv.FormatInt(c.At.UnixNano(), 10) + "_" + strconv.FormatInt(c.ID, 10)
}

var errBadBefore = tributary.Errorf(tributary.EInvalid, "Parameter 'before' is malformed.")

func parsePostCursor(s string) (db.PostCursor, error) {
	if s == "" {
		return db.PostCursor{}, nil
	}
	at, id, ok := strings.Cut(s, "_")
	if !ok {
		return db.PostCursor{}, errBadBefore
	}
	ns, err1 := strconv.ParseInt(at, 10, 64)
	pid, err2 := strconv.ParseInt(id, 10, 64)
	if err := errors.Join(err1, err2); err != nil || pid <= 0 {
		return db.PostCursor{}, errBadBefore
	}
	return db.PostCursor{At: time.Unix(0, ns), ID: pid}, nil
}
