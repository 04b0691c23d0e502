package web

import (
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"tributary"
	"tributary/db"
	"tributary/views"
)

func (s *Server) signupForm(w http.ResponseWriter, r *http.Request) {
	f := views.Form{Values: url.Values{"next": {r.URL.Query().Get("next")}}}
	s.render(w, r, http.StatusOK, views.SignupPage(s.page(r, "Sign up"), f))
}

func (s *Server) signup(w http.ResponseWriter, r *http.Request) {
	if s.limited(w, r, signupPerAddress, s.clientKey(r)) {
		return
	}
	f := parseForm(r)
	handle := strings.TrimSpace(f.Get("handle"))
	password := f.Get("password")
	if err := tributary.ValidateHandle(handle); err != nil {
		f.Errors["handle"] = tributary.ErrorMessage(err)
	}
	name, err := tributary.NormalizeDisplayName(f.Get("display_name"), handle)
	if err != nil {
		f.Errors["display_name"] = tributary.ErrorMessage(err)
	}
	if err := tributary.ValidatePassword(password); err != nil {
		f.Errors["password"] = tributary.ErrorMessage(err)
	}
	if len(f.Errors) > 0 {
		s.render(w, r, http.StatusBadRequest, views.SignupPage(s.page(r, "Sign up"), f))
		return
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), s.cost())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	u, err := s.store.CreateUser(r.Context(), db.NewUser{Handle: handle, DisplayName: name,
		PasswordHash: string(hash), CreatedAt: s.now()})
	if tributary.ErrorCode(err) == tributary.EConflict {
		f.Errors["handle"] = tributary.ErrorMessage(err)
		s.render(w, r, http.StatusBadRequest, views.SignupPage(s.page(r, "Sign up"), f))
		return
	} else if err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.startSession(r, u.ID); err != nil {
		s.fail(w, r, err)
		return
	}
	s.flash(r, "Welcome to Tributary, "+u.DisplayName+"! Pick a few tags to find people to follow.")
	http.Redirect(w, r, localPath(f.Get("next"), "/welcome"), http.StatusSeeOther) // the first run
}

func (s *Server) loginForm(w http.ResponseWriter, r *http.Request) {
	f := views.Form{Values: url.Values{"next": {r.URL.Query().Get("next")}}}
	s.render(w, r, http.StatusOK, views.LoginPage(s.page(r, "Log in"), f))
}

// errBadLogin deliberately does not say which of handle or password was wrong.
const errBadLogin = "Handle or password is incorrect."

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	f := parseForm(r)
	client := s.clientKey(r)
	if s.limited(w, r, loginPerAddress, client) || s.limited(w, r, loginPerHandle, handleKey(f.Get("handle"))+"@"+client) {
		return
	}
	u, hash, err := s.store.Credentials(r.Context(), strings.TrimSpace(f.Get("handle")))
	if err != nil && tributary.ErrorCode(err) != tributary.ENotFound {
		s.fail(w, r, err)
		return
	}
	if err != nil {
		// No such handle: spend the time a wrong password costs, so that the answer's timing
		// does not tell whether the handle exists.
		hash = s.decoyHash()
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(f.Get("password"))) != nil || err != nil {
		f.Errors[""] = errBadLogin
		s.render(w, r, http.StatusBadRequest, views.LoginPage(s.page(r, "Log in"), f))
		return
	}
	if err := s.startSession(r, u.ID); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, localPath(f.Get("next"), "/"), http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if err := s.sessions.Destroy(r.Context()); err != nil {
		s.fail(w, r, err)
		return
	}
	s.sessionsEnded(r)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// startSession renews the session token on login, so a token planted before login is useless.
func (s *Server) startSession(r *http.Request, userID int64) error {
	if err := s.sessions.RenewToken(r.Context()); err != nil {
		return err
	}
	s.sessions.Put(r.Context(), db.SessionUserKey, userID)
	return nil
}

// decoyHash is a hash of the server's cost that no password matches, compared against when
// a handle does not exist.
func (s *Server) decoyHash() string {
	s.decoyOnce.Do(func() {
		h, _ := bcrypt.GenerateFromPassword([]byte("no password is this one"), s.cost())
		s.decoy = string(h)
	})
	return s.decoy
}

func (s *Server) cost() int {
	if s.hashCost == 0 {
		return bcrypt.DefaultCost
	}
	return s.hashCost
}

func parseForm(r *http.Request) views.Form {
	r.ParseForm()
	return views.Form{Values: r.PostForm, Errors: views.FieldErrors{}}
}
