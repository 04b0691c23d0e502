package web

import (
	"net/http"
	"strconv"

	"tributary"
	"tributary/feed"
	"tributary/views"
)

// Following, bans, settings, groups, directs: the handlers of the access model (seed 003).
// Every change that narrows who may read what also drops the anonymous cache; one between
// two users (a follow, a ban) concerns those two alone.

func (s *Server) follow(w http.ResponseWriter, r *http.Request) {
	s.onUser(w, r, followsPerUser, func(viewer, target tributary.User) (string, string, error) {
		pending, err := s.store.Follow(r.Context(), viewer.ID, target.ID)
		if pending {
			return "Follow request sent to @" + target.Handle + ".", "pending", err
		}
		return "", "active", err
	})
}

func (s *Server) unfollow(w http.ResponseWriter, r *http.Request) {
	s.onUser(w, r, followsPerUser, func(viewer, target tributary.User) (string, string, error) {
		return "", "", s.store.Unfollow(r.Context(), viewer.ID, target.ID)
	})
}

func (s *Server) ban(w http.ResponseWriter, r *http.Request) {
	s.onUser(w, r, bansPerUser, func(viewer, target tributary.User) (string, string, error) {
		return "You banned @" + target.Handle + ".", "", s.store.Ban(r.Context(), viewer.ID, target.ID)
	})
}

func (s *Server) unban(w http.ResponseWriter, r *http.Request) {
	s.onUser(w, r, bansPerUser, func(viewer, target tributary.User) (string, string, error) {
		return "", "", s.store.Unban(r.Context(), viewer.ID, target.ID)
	})
}

// onUser runs an action of the viewer on the user named in the path (within the viewer's
// limit l), then goes back to that user's page, or to the local path the form's "return"
// names. act reports a message to flash and how the viewer follows the user after it; a
// follow button posting with htmx gets itself back in that state (followedInPlace).
func (s *Server) onUser(w http.ResponseWriter, r *http.Request, l limit, act func(viewer, target tributary.User) (msg, state string, err error)) {
	viewer := *currentUser(r.Context())
	if s.limited(w, r, l, strconv.FormatInt(viewer.ID, 10)) {
		return
	}
	target, err := s.store.UserByHandle(r.Context(), r.PathValue("handle"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	msg, state, err := act(viewer, target)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.readersChanged(r.Context(), viewer.ID, target.ID)
	if s.followedInPlace(w, r, target, state) {
		return
	}
	if msg != "" {
		s.flash(r, msg)
	}
	back := localPath(r.PostFormValue("return"), "/u/"+target.Handle)
	if r.PathValue("back") == "settings" || r.URL.Query().Get("back") == "settings" {
		back = "/settings"
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

func (s *Server) settings(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r.Context())
	st, err := s.store.Settings(r.Context(), u.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, views.SettingsPage(s.page(r, "Settings"), views.Settings(st)))
}

func (s *Server) setVisibility(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r.Context())
	if err := s.store.SetVisibility(r.Context(), u.ID, r.PostFormValue("visibility"), s.now()); err != nil {
		s.fail(w, r, err)
		return
	}
	s.accessChanged(r.Context())
	s.flash(r, "Your posts are now "+r.PostFormValue("visibility")+".")
	http.Redirect(w, r, "/settings", http.StatusSeeOther)
}

func (s *Server) setHomeActivity(w http.ResponseWriter, r *http.Request) {
	v := r.PostFormValue("home_activity")
	if v != "on" && v != "off" {
		s.fail(w, r, tributary.FieldErrorf("home_activity", "Choose whether your home feed brings in what people you follow like and comment on (on or off)."))
		return
	}
	if err := s.store.SetHomeActivity(r.Context(), currentUser(r.Context()).ID, v == "on"); err != nil {
		s.fail(w, r, err)
		return
	}
	if v == "on" {
		s.flash(r, "Your home feed now brings in what people you follow like and comment on.")
	} else {
		s.flash(r, "Your home feed now shows only what people you follow share.")
	}
	http.Redirect(w, r, "/settings", http.StatusSeeOther)
}

// onFollower runs an owner's action on a follower or requester named in the path.
func (s *Server) onFollower(act func(s *Server, r *http.Request, owner, follower int64) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		other, err := s.store.UserByHandle(r.Context(), r.PathValue("handle"))
		if err == nil {
			err = act(s, r, currentUser(r.Context()).ID, other.ID)
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		s.readersChanged(r.Context(), currentUser(r.Context()).ID, other.ID)
		http.Redirect(w, r, "/settings", http.StatusSeeOther)
	}
}

func approveRequest(s *Server, r *http.Request, owner, follower int64) error {
	return s.store.Approve(r.Context(), owner, follower)
}

func declineRequest(s *Server, r *http.Request, owner, follower int64) error {
	return s.store.Decline(r.Context(), owner, follower)
}

func removeFollower(s *Server, r *http.Request, owner, follower int64) error {
	return s.store.RemoveSubscriber(r.Context(), owner, follower)
}

func (s *Server) deletePost(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r.Context())
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		s.fail(w, r, tributary.Errorf(tributary.ENotFound, "No such post."))
		return
	}
	if err := s.store.DeletePost(r.Context(), u.ID, id, s.now()); err != nil {
		s.fail(w, r, err)
		return
	}
	s.accessChanged(r.Context())
	s.flash(r, "Deleted.")
	http.Redirect(w, r, "/u/"+u.Handle, http.StatusSeeOther)
}

func (s *Server) directs(w http.ResponseWriter, r *http.Request) {
	l, done := s.chronoList(w, r, feed.Chrono{Directs: true}, "/directs", "No directs yet.", false)
	if done {
		return
	}
	s.render(w, r, http.StatusOK, views.DirectsPage(s.page(r, "Directs"), l))
}
