package web

import (
	"net/http"

	"golang.org/x/crypto/bcrypt"

	"tributary"
	"tributary/views"
)

func (s *Server) exportPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, views.ExportPage(s.page(r, "Download your data")))
}

// export streams the zip of the user's data as it is read (at most one a day: a second
// answers 429 before anything is sent).
func (s *Server) export(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r.Context())
	if err := s.store.ClaimExport(r.Context(), u.ID, s.now()); err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", `attachment; filename="tributary-`+u.Handle+`.zip"`)
	if err := s.store.Export(r.Context(), u.ID, u.Handle, w); err != nil {
		// Half a zip is out already: the client sees a broken file; log it once.
		s.log.ErrorContext(r.Context(), "export failed", "user", u.ID, "err", err)
		panic(http.ErrAbortHandler) // end the response without a valid end, so it reads as failed
	}
}

// deleteAccount deletes the signed-in user's account once they give their password: from
// the transaction's commit nothing they made is read on any instance.
func (s *Server) deleteAccount(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r.Context())
	if s.limited(w, r, loginPerHandle, handleKey(u.Handle)+"@"+s.clientKey(r)) {
		return
	}
	_, hash, err := s.store.Credentials(r.Context(), u.Handle)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(r.PostFormValue("password"))) != nil {
		s.fail(w, r, tributary.FieldErrorf("password", "That is not your password: your account is still here."))
		return
	}
	if err := s.store.DeleteAccount(r.Context(), u.ID, s.now()); err != nil {
		s.fail(w, r, err)
		return
	}
	s.accessChanged(r.Context())
	s.contentChanged(r)
	if err := s.sessions.Destroy(r.Context()); err != nil {
		s.fail(w, r, err)
		return
	}
	pg := s.page(r, "Account deleted")
	pg.User = nil
	s.render(w, r, http.StatusOK, views.AccountDeletedPage(pg))
}
