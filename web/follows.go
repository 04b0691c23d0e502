package web

import (
	"net/http"
	"net/url"

	"tributary/db"
	"tributary/views"
)

// followListPage is how many people a follower or following list shows a page.
const followListPage = 50

func (s *Server) followersPage(w http.ResponseWriter, r *http.Request) { s.followList(w, r, true) }
func (s *Server) followingPage(w http.ResponseWriter, r *http.Request) { s.followList(w, r, false) }

// followList shows a page of a user's followers or followees, by handle after ?after, as
// the viewer may see them (db.Store.FollowPage).
func (s *Server) followList(w http.ResponseWriter, r *http.Request, followers bool) {
	u, err := s.names.byHandle(r.Context(), r.PathValue("handle"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	after := r.URL.Query().Get("after")
	people, err := s.store.FollowPage(r.Context(), db.FollowList{Owner: u.ID, Followers: followers, After: after,
		Limit: followListPage + 1}, s.viewerAccess(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	f := views.FollowListView{User: u, Followers: followers, People: people}
	path := "/u/" + u.Handle + "/following"
	if followers {
		path = "/u/" + u.Handle + "/followers"
	}
	if len(people) > followListPage {
		f.People = people[:followListPage]
		f.Next = path + "?after=" + url.QueryEscape(f.People[followListPage-1].Handle)
	}
	s.render(w, r, http.StatusOK, views.FollowListPage(s.page(r, f.Heading()), f))
}
