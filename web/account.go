package web

import (
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"tributary"
	"tributary/images"
	"tributary/views"
)

// One's own account: profile (display name, bio, avatar), password, sessions.

// maxAvatarBody caps an avatar upload's request: the largest image images accepts, plus the
// multipart envelope. The image itself is bounded by images.ReadAll, so a picture past its
// limit is refused with its own plain message.
const maxAvatarBody = images.MaxBytes + 64<<10

// avatarPath is the one route whose bodies may be larger than maxBody (guard).
const avatarPath = "/settings/avatar"

func (s *Server) profileForm(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r.Context())
	f := views.Form{Values: url.Values{"display_name": {u.DisplayName}, "bio": {u.Bio}}, Errors: views.FieldErrors{}}
	s.render(w, r, http.StatusOK, views.ProfileSettingsPage(s.page(r, "Profile"), f, *u))
}

func (s *Server) saveProfile(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r.Context())
	f := parseForm(r)
	name, err := tributary.NormalizeDisplayName(f.Get("display_name"), u.Handle)
	if err != nil {
		f.Errors["display_name"] = tributary.ErrorMessage(err)
	}
	bio, err := tributary.NormalizeBio(f.Get("bio"))
	if err != nil {
		f.Errors["bio"] = tributary.ErrorMessage(err)
	}
	if len(f.Errors) > 0 {
		s.render(w, r, http.StatusBadRequest, views.ProfileSettingsPage(s.page(r, "Profile"), f, *u))
		return
	}
	if err := s.store.SetProfile(r.Context(), u.ID, name, bio); err != nil {
		s.fail(w, r, err)
		return
	}
	s.bus.Sync(r.Context()) // every instance drops what it kept of the user before the answer
	s.flash(r, "Your profile is saved.")
	http.Redirect(w, r, "/settings/profile", http.StatusSeeOther)
}

// saveAvatar takes an uploaded picture (the form's "avatar" file) through the image pipeline
// and makes it the user's avatar. A picture refused (too large, not an image) answers 400
// with the reason on the profile page.
func (s *Server) saveAvatar(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r.Context())
	b, err := avatarUpload(r)
	var small, large tributary.Image
	if err == nil {
		small, large, err = images.Avatar(b)
	}
	if err == nil {
		err = s.store.SetAvatar(r.Context(), u.ID, small, large)
	}
	if code := tributary.ErrorCode(err); code == tributary.EInvalid || code == tributary.ETooLarge {
		f := views.Form{Values: url.Values{"display_name": {u.DisplayName}, "bio": {u.Bio}},
			Errors: views.FieldErrors{"avatar": tributary.ErrorMessage(err)}}
		s.render(w, r, http.StatusBadRequest, views.ProfileSettingsPage(s.page(r, "Profile"), f, *u))
		return
	} else if err != nil {
		s.fail(w, r, err)
		return
	}
	s.bus.Sync(r.Context())
	s.flash(r, "Your picture is saved.")
	http.Redirect(w, r, "/settings/profile", http.StatusSeeOther)
}

func (s *Server) removeAvatar(w http.ResponseWriter, r *http.Request) {
	if err := s.store.SetAvatar(r.Context(), currentUser(r.Context()).ID, tributary.Image{}, tributary.Image{}); err != nil {
		s.fail(w, r, err)
		return
	}
	s.bus.Sync(r.Context())
	s.flash(r, "Your picture is removed: your initials are shown.")
	http.Redirect(w, r, "/settings/profile", http.StatusSeeOther)
}

// avatarUpload reads the bytes of the request's "avatar" file, streamed from the multipart
// body (nothing is spooled to disk), at most images.MaxBytes of them.
func avatarUpload(r *http.Request) ([]byte, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, tributary.Errorf(tributary.EInvalid, "Send the picture as a form upload (multipart/form-data).")
	}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return nil, tributary.Errorf(tributary.EInvalid, "Choose a picture to upload.")
		} else if err != nil {
			return nil, uploadError(err)
		}
		if p.FormName() != "avatar" {
			continue
		}
		b, err := images.ReadAll(p)
		if err != nil {
			return nil, uploadError(err)
		}
		if len(b) == 0 {
			return nil, tributary.Errorf(tributary.EInvalid, "Choose a picture to upload.")
		}
		return b, nil
	}
}

// uploadError is a broken or oversized upload as the uploader is told of it.
func uploadError(err error) error {
	var tooBig *http.MaxBytesError
	switch {
	case images.ReasonOf(err) != "":
		return err
	case errors.As(err, &tooBig):
		return tributary.Errorf(tributary.ETooLarge, "The picture is too large (at most %d MiB).", images.MaxBytes>>20)
	case errors.Is(err, multipart.ErrMessageTooLarge), errors.Is(err, io.ErrUnexpectedEOF):
		return tributary.Errorf(tributary.EInvalid, "The upload was cut short or malformed.")
	}
	return tributary.Errorf(tributary.EInvalid, "The upload could not be read.")
}

func (s *Server) passwordForm(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, views.PasswordPage(s.page(r, "Password"), views.Form{Errors: views.FieldErrors{}}))
}

// changePassword sets a new password when the current one is given, and ends every other
// session of the user (on every instance: sessions are read from the database); this one
// goes on under a new token. Attempts are limited as log-ins are.
func (s *Server) changePassword(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r.Context())
	if s.limited(w, r, loginPerAddress, s.clientKey(r)) || s.limited(w, r, passwordPerUser, strconv.FormatInt(u.ID, 10)) {
		return
	}
	f := parseForm(r)
	_, hash, err := s.store.Credentials(r.Context(), u.Handle)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(f.Get("current"))) != nil {
		f.Errors["current"] = "Your current password is incorrect."
	} else if err := tributary.ValidatePassword(f.Get("password")); err != nil {
		f.Errors["password"] = tributary.ErrorMessage(err)
	}
	if len(f.Errors) > 0 {
		s.render(w, r, http.StatusBadRequest, views.PasswordPage(s.page(r, "Password"), f))
		return
	}
	newHash, err := bcrypt.GenerateFromPassword([]byte(f.Get("password")), s.cost())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.sessions.RenewToken(r.Context()); err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.store.ChangePassword(r.Context(), u.ID, string(newHash), s.sessions.Token(r.Context())); err != nil {
		s.fail(w, r, err)
		return
	}
	s.sessionsEnded(r)
	s.flash(r, "Your password is changed; you are logged out everywhere else.")
	http.Redirect(w, r, "/settings/password", http.StatusSeeOther)
}

func (s *Server) sessionsPage(w http.ResponseWriter, r *http.Request) {
	list, err := s.store.UserSessions(r.Context(), currentUser(r.Context()).ID, s.sessions.Token(r.Context()))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, views.SessionsPage(s.page(r, "Sessions"), list))
}

// endSession ends one of the user's sessions by its id; ending this one logs out.
func (s *Server) endSession(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		s.fail(w, r, tributary.Errorf(tributary.EInvalid, "Not a session id."))
		return
	}
	current, err := s.store.EndSession(r.Context(), currentUser(r.Context()).ID, id, s.sessions.Token(r.Context()))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.sessionsEnded(r)
	if current {
		s.loggedOut(w, r)
		return
	}
	s.flash(r, "That session is logged out.")
	http.Redirect(w, r, "/settings/sessions", http.StatusSeeOther)
}

// endAllSessions logs the user out everywhere, here too.
func (s *Server) endAllSessions(w http.ResponseWriter, r *http.Request) {
	if err := s.store.EndSessions(r.Context(), currentUser(r.Context()).ID, ""); err != nil {
		s.fail(w, r, err)
		return
	}
	s.sessionsEnded(r)
	s.loggedOut(w, r)
}

// loggedOut ends the request's session, whose row is gone already: destroyed rather than
// saved at the end of the request, which would write it again.
func (s *Server) loggedOut(w http.ResponseWriter, r *http.Request) {
	if err := s.sessions.Destroy(r.Context()); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// userAgent is a request's User-Agent as a session keeps it: valid UTF-8 without NUL bytes
// (PostgreSQL's text refuses those), at most 256 bytes.
func userAgent(r *http.Request) string {
	ua := r.UserAgent()
	if len(ua) > 256 {
		ua = ua[:256]
	}
	return strings.ReplaceAll(strings.ToValidUTF8(ua, ""), "\x00", "")
}
