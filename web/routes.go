package web

import (
	"net/http"

	"tributary/static"
)

// homePages are the paths of the home feed's pages (GET), whose viewer state the session's
// read brings along (readAhead).
var homePages = map[string]bool{"/": true, "/api/timeline": true}

// Handler returns every route of the app wrapped in its middleware.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.Handle("GET "+static.Prefix, static.Handler())
	mux.Handle("GET /favicon.ico", static.Favicon())
	mux.HandleFunc("GET /preview/{key}", s.preview)
	mux.HandleFunc("GET /img/{name}", s.image)

	mux.HandleFunc("GET /{$}", s.home)                 // homePages
	mux.HandleFunc("GET /api/timeline", s.apiTimeline) // homePages
	mux.HandleFunc("GET /feed/new", s.newCount)
	mux.HandleFunc("GET /feed/new/items", s.newItems)
	mux.HandleFunc("GET /live", s.liveStream)
	mux.HandleFunc("GET /talk", s.talkNow)
	mux.HandleFunc("POST /events", s.requireUser(s.events))
	mux.HandleFunc("GET /signup", s.signupForm)
	mux.HandleFunc("POST /signup", s.signup)
	mux.HandleFunc("GET /login", s.loginForm)
	mux.HandleFunc("POST /login", s.login)
	mux.HandleFunc("POST /logout", s.logout)
	mux.HandleFunc("GET /share", s.requireUser(s.shareForm))
	mux.HandleFunc("POST /share", s.requireUser(s.share))
	mux.HandleFunc("GET /share/preview", s.requireUser(s.sharePreview))
	mux.HandleFunc("GET /u/{handle}", s.userPage)
	mux.HandleFunc("POST /u/{handle}/follow", s.requireUser(s.follow))
	mux.HandleFunc("POST /u/{handle}/unfollow", s.requireUser(s.unfollow))
	mux.HandleFunc("POST /u/{handle}/ban", s.requireUser(s.ban))
	mux.HandleFunc("POST /u/{handle}/unban", s.requireUser(s.unban))
	mux.HandleFunc("POST /posts/{id}/delete", s.requireUser(s.deletePost))
	mux.HandleFunc("GET /posts/{id}/edit", s.requireUser(s.editPostForm))
	mux.HandleFunc("POST /posts/{id}/edit", s.requireUser(s.editPost))
	mux.HandleFunc("GET /p/{id}", s.postPage)
	mux.HandleFunc("GET /i/{id}", s.itemPage)
	mux.HandleFunc("POST /p/{id}/like", s.requireUser(s.like))
	mux.HandleFunc("POST /p/{id}/unlike", s.requireUser(s.unlike))
	mux.HandleFunc("POST /p/{id}/comments", s.requireUser(s.comment))
	mux.HandleFunc("GET /comments/{id}/edit", s.requireUser(s.editCommentForm))
	mux.HandleFunc("POST /comments/{id}/edit", s.requireUser(s.editComment))
	mux.HandleFunc("POST /comments/{id}/delete", s.requireUser(s.deleteComment))
	mux.HandleFunc("GET /t/{tag}", s.tagPage)
	mux.HandleFunc("GET /best", s.bestOf)
	mux.HandleFunc("GET /search", s.searchPage)
	mux.HandleFunc("GET /api/search", s.apiSearch)
	mux.HandleFunc("GET /u/{handle}/likes", s.likesPage)
	mux.HandleFunc("GET /u/{handle}/comments", s.commentsPage)
	mux.HandleFunc("GET /mentions", s.requireUser(s.mentionsPage))
	mux.HandleFunc("GET /discussions", s.requireUser(s.discussionsPage))
	mux.HandleFunc("POST /p/{id}/hide", s.requireUser(s.hidePost))
	mux.HandleFunc("POST /p/{id}/unhide", s.requireUser(s.unhidePost))
	mux.HandleFunc("GET /hidden", s.requireUser(s.hiddenPage))
	mux.HandleFunc("POST /hidden/mutes", s.requireUser(s.mute))
	mux.HandleFunc("POST /hidden/mutes/delete", s.requireUser(s.unmute))
	mux.HandleFunc("GET /settings", s.requireUser(s.settings))
	mux.HandleFunc("POST /settings/visibility", s.requireUser(s.setVisibility))
	mux.HandleFunc("POST /settings/activity", s.requireUser(s.setHomeActivity))
	mux.HandleFunc("GET /settings/export", s.requireUser(s.exportPage))
	mux.HandleFunc("POST /settings/export", s.requireUser(s.export))
	mux.HandleFunc("POST /settings/requests/{handle}/approve", s.requireUser(s.onFollower(approveRequest)))
	mux.HandleFunc("POST /settings/requests/{handle}/decline", s.requireUser(s.onFollower(declineRequest)))
	mux.HandleFunc("POST /settings/followers/{handle}/remove", s.requireUser(s.onFollower(removeFollower)))
	mux.HandleFunc("GET /directs", s.requireUser(s.directs))
	mux.HandleFunc("GET /lists", s.requireUser(s.lists))
	mux.HandleFunc("POST /lists", s.requireUser(s.createList))
	mux.HandleFunc("GET /lists/{id}", s.requireUser(s.listPage))
	mux.HandleFunc("POST /lists/{id}/rename", s.requireUser(s.onList(renameList)))
	mux.HandleFunc("POST /lists/{id}/exclusive", s.requireUser(s.onList(setListExclusive)))
	mux.HandleFunc("POST /lists/{id}/members", s.requireUser(s.onList(addListMember)))
	mux.HandleFunc("POST /lists/{id}/members/{handle}/remove", s.requireUser(s.onList(removeListMember)))
	mux.HandleFunc("POST /lists/{id}/delete", s.requireUser(s.deleteList))
	mux.HandleFunc("GET /groups", s.groups)
	mux.HandleFunc("POST /groups", s.requireUser(s.createGroup))
	mux.HandleFunc("GET /g/{name}", s.groupPage)
	mux.HandleFunc("POST /g/{name}/join", s.requireUser(s.onGroup(joinGroup)))
	mux.HandleFunc("POST /g/{name}/leave", s.requireUser(s.onGroup(leaveGroup)))
	mux.HandleFunc("POST /g/{name}/access", s.requireUser(s.onGroup(setGroupAccess)))
	mux.HandleFunc("POST /g/{name}/members/{handle}/approve", s.requireUser(s.onGroup(approveMember)))
	mux.HandleFunc("POST /g/{name}/members/{handle}/admin", s.requireUser(s.onGroup(makeAdmin)))
	mux.HandleFunc("POST /g/{name}/members/{handle}/remove", s.requireUser(s.onGroup(removeMember)))
	mux.HandleFunc("/", s.notFound)

	csrf := http.NewCrossOriginProtection()
	csrf.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, errCSRF)
	}))
	return s.observe(s.recoverPanics(s.guard(compress(csrf.Handler(s.session(routed(mux)))))))
}
