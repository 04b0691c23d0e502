package web

import (
	"fmt"
	"net/http"
	"strings"

	"tributary"
	"tributary/db"
	"tributary/feed"
	"tributary/views"
)

func (s *Server) groups(w http.ResponseWriter, r *http.Request) {
	s.renderGroups(w, r, http.StatusOK, views.Form{})
}

func (s *Server) renderGroups(w http.ResponseWriter, r *http.Request, status int, f views.Form) {
	gs, err := s.store.Groups(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, status, views.GroupsPage(s.page(r, "Groups"), gs, f))
}

func (s *Server) createGroup(w http.ResponseWriter, r *http.Request) {
	f := parseForm(r)
	g, err := s.store.CreateGroup(r.Context(), currentUser(r.Context()).ID, f.Get("name"), f.Get("title"),
		f.Get("access"), f.Get("moderated") == "1")
	if tributary.ErrorCode(err) == tributary.EInvalid {
		f.Errors[tributary.ErrorField(err)] = tributary.ErrorMessage(err)
		s.renderGroups(w, r, http.StatusBadRequest, f)
		return
	} else if err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/g/"+g.Name, http.StatusSeeOther)
}

func (s *Server) groupPage(w http.ResponseWriter, r *http.Request) {
	if name, ok := atomName(r.PathValue("name")); ok {
		s.groupAtom(w, r, name)
		return
	}
	var viewerID int64
	if u := currentUser(r.Context()); u != nil {
		viewerID = u.ID
	}
	gp, err := s.store.GroupPage(r.Context(), r.PathValue("name"), viewerID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	l, done := s.chronoList(w, r, feed.Chrono{Feed: gp.Group.ID}, "/g/"+gp.Group.Name, "No posts to show.", false)
	if done {
		return
	}
	v := views.GroupView{Group: gp.Group, Members: gp.Members, Role: gp.Role, State: gp.State, Posts: l}
	pg := s.page(r, gp.Group.Title)
	pg.Preview, pg.URL = true, absoluteURL(r, "/g/"+gp.Group.Name)
	if gp.Group.Access == tributary.AccessPublic {
		pg.Atom = "/g/" + gp.Group.Name + ".atom"
	}
	pg.Description = fmt.Sprintf("%s, a %s group on Tributary: papers, models, repositories and posts its members shared.",
		gp.Group.Title, gp.Group.Access)
	s.render(w, r, http.StatusOK, views.GroupPage(pg, v))
}

// onGroup runs an action of the viewer on the group named in the path, then goes back to it.
func (s *Server) onGroup(act func(s *Server, r *http.Request, g db.Group, viewer int64) (string, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		g, err := s.store.GroupByName(r.Context(), r.PathValue("name"))
		if err != nil {
			s.fail(w, r, err)
			return
		}
		msg, err := act(s, r, g, currentUser(r.Context()).ID)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		s.accessChanged(r.Context())
		if msg != "" {
			s.flash(r, msg)
		}
		http.Redirect(w, r, "/g/"+g.Name, http.StatusSeeOther)
	}
}

func joinGroup(s *Server, r *http.Request, g db.Group, viewer int64) (string, error) {
	pending, err := s.store.Join(r.Context(), g, viewer)
	if pending {
		return "An admin of " + g.Title + " will look at your request.", err
	}
	return "Welcome to " + g.Title + ".", err
}

func leaveGroup(s *Server, r *http.Request, g db.Group, viewer int64) (string, error) {
	return "You left " + g.Title + ".", s.store.RemoveMember(r.Context(), g, viewer, viewer)
}

func setGroupAccess(s *Server, r *http.Request, g db.Group, viewer int64) (string, error) {
	return "", s.store.SetGroupAccess(r.Context(), g, viewer, r.PostFormValue("access"), s.now())
}

// onMember runs an admin's action on the member named in the path.
func onMember(act func(st *db.Store, r *http.Request, g db.Group, admin, member int64) error) func(*Server, *http.Request, db.Group, int64) (string, error) {
	return func(s *Server, r *http.Request, g db.Group, admin int64) (string, error) {
		m, err := s.store.UserByHandle(r.Context(), strings.TrimPrefix(r.PathValue("handle"), "@"))
		if err != nil {
			return "", err
		}
		return "", act(s.store, r, g, admin, m.ID)
	}
}

var (
	approveMember = onMember(func(st *db.Store, r *http.Request, g db.Group, admin, m int64) error {
		return st.ApproveMember(r.Context(), g, admin, m)
	})
	makeAdmin = onMember(func(st *db.Store, r *http.Request, g db.Group, admin, m int64) error {
		return st.MakeAdmin(r.Context(), g, admin, m)
	})
	removeMember = onMember(func(st *db.Store, r *http.Request, g db.Group, admin, m int64) error {
		return st.RemoveMember(r.Context(), g, admin, m)
	})
)
