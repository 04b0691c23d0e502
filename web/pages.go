package web

import (
	"errors"
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
		s.log.Warn("healthz: database unreachable", "err", err)
		http.Error(w, "database unreachable", http.StatusServiceUnavailable)
		return
	}
	w.Write([]byte("ok\n"))
}

func (s *Server) userPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	after, err := parsePostCursor(r.URL.Query().Get("before"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	owner, err := s.store.UserByHandle(ctx, r.PathValue("handle"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	posts, next, err := s.store.UserPosts(ctx, owner.ID, after, db.PageSize)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	stats, err := s.store.Stats(ctx, owner.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	pr := views.Profile{User: owner, Following: stats.Following, Followers: stats.Followers, PostCount: stats.Posts,
		Posts: views.PostList{Posts: posts, OlderURL: olderURL("/u/"+owner.Handle, next), Empty: "No posts yet."}}
	if viewer := currentUser(ctx); viewer != nil {
		pr.IsSelf = viewer.ID == owner.ID
		if pr.Follows, err = s.store.Follows(ctx, viewer.ID, owner.ID); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	s.render(w, r, http.StatusOK, views.UserPage(s.page(r, owner.DisplayName+" (@"+owner.Handle+")"), pr))
}

func (s *Server) follow(w http.ResponseWriter, r *http.Request)   { s.setFollow(w, r, true) }
func (s *Server) unfollow(w http.ResponseWriter, r *http.Request) { s.setFollow(w, r, false) }

func (s *Server) setFollow(w http.ResponseWriter, r *http.Request, follow bool) {
	viewer := currentUser(r.Context())
	target, err := s.store.UserByHandle(r.Context(), r.PathValue("handle"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if follow {
		err = s.store.Follow(r.Context(), viewer.ID, target.ID)
	} else {
		err = s.store.Unfollow(r.Context(), viewer.ID, target.ID)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/u/"+target.Handle, http.StatusSeeOther)
}

func (s *Server) shareForm(w http.ResponseWriter, r *http.Request) {
	f := views.Form{Values: r.URL.Query()} // a bookmarklet may prefill ?url=&title=
	s.render(w, r, http.StatusOK, views.SharePage(s.page(r, "Share a link"), f))
}

func (s *Server) share(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r.Context())
	f := parseForm(r)
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: u.ID, URL: f.Get("url"), Title: f.Get("title"),
		Body: f.Get("body"), Tags: tributary.ParseTags(f.Get("tags")), CreatedAt: s.now()})
	if err != nil {
		f.Errors[tributary.ErrorField(err)] = tributary.ErrorMessage(err)
		s.render(w, r, statusOf(tributary.ErrorCode(err)), views.SharePage(s.page(r, "Share a link"), f))
		return
	}
	if _, err := s.store.CreatePost(r.Context(), p); err != nil {
		s.fail(w, r, err)
		return
	}
	s.flash(r, "Shared.")
	http.Redirect(w, r, "/u/"+u.Handle, http.StatusSeeOther)
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
