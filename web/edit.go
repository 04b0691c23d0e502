package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"tributary"
	"tributary/views"
)

// editPostForm shows an author's post in the edit form; anyone else gets 404.
func (s *Server) editPostForm(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "Post")
	if err != nil {
		s.fail(w, r, tributary.Errorf(tributary.ENotFound, "No such post."))
		return
	}
	p, err := s.store.PostOfAuthor(r.Context(), currentUser(r.Context()).ID, id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	f := views.Form{Values: url.Values{"title": {p.Title}, "body": {p.Body}, "tags": {strings.Join(p.Tags, " ")}}}
	s.render(w, r, http.StatusOK, views.EditPostPage(s.page(r, "Edit your post"), f, p.ID, p.URL))
}

// editPost saves an author's edit of a post's title, text and tags.
func (s *Server) editPost(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r.Context())
	id, err := pathID(r, "Post")
	if err != nil {
		s.fail(w, r, tributary.Errorf(tributary.ENotFound, "No such post."))
		return
	}
	f := parseForm(r)
	e, err := tributary.PrepareEdit(f.Get("title"), f.Get("body"), tributary.ParseTags(f.Get("tags")))
	if err == nil {
		err = s.store.EditPost(r.Context(), u.ID, id, e, s.now())
	}
	if tributary.ErrorCode(err) == tributary.EInvalid {
		f.Errors[tributary.ErrorField(err)] = tributary.ErrorMessage(err)
		s.render(w, r, http.StatusBadRequest, views.EditPostPage(s.page(r, "Edit your post"), f, id, ""))
		return
	} else if err != nil {
		s.fail(w, r, err)
		return
	}
	s.contentChanged(r)
	s.flash(r, "Saved.")
	http.Redirect(w, r, "/p/"+strconv.FormatInt(id, 10), http.StatusSeeOther)
}
