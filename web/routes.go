package web

import (
	"net/http"

	"tributary/static"
)

// Handler returns every route of the app wrapped in its middleware.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.Handle("GET /static/", http.StripPrefix("/static/", static.Handler()))
	mux.HandleFunc("GET /preview/{key}", s.preview)

	mux.HandleFunc("GET /{$}", s.home)
	mux.HandleFunc("GET /api/timeline", s.apiTimeline)
	mux.HandleFunc("GET /feed/new", s.newCount)
	mux.HandleFunc("GET /feed/new/items", s.newItems)
	mux.HandleFunc("POST /events", s.requireUser(s.events))
	mux.HandleFunc("GET /signup", s.signupForm)
	mux.HandleFunc("POST /signup", s.signup)
	mux.HandleFunc("GET /login", s.loginForm)
	mux.HandleFunc("POST /login", s.login)
	mux.HandleFunc("POST /logout", s.logout)
	mux.HandleFunc("GET /share", s.requireUser(s.shareForm))
	mux.HandleFunc("POST /share", s.requireUser(s.share))
	mux.HandleFunc("GET /u/{handle}", s.userPage)
	mux.HandleFunc("POST /u/{handle}/follow", s.requireUser(s.follow))
	mux.HandleFunc("POST /u/{handle}/unfollow", s.requireUser(s.unfollow))
	mux.HandleFunc("/", s.notFound)

	csrf := http.NewCrossOriginProtection()
	csrf.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, errCSRF)
	}))
	return s.recoverPanics(s.logRequests(csrf.Handler(s.sessions.LoadAndSave(s.loadUser(mux)))))
}
