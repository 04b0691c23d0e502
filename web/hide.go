package web

import (
	"net/http"
	"strconv"

	"tributary"
	"tributary/views"
)

// Hide and mute: "Hide" on a card takes its item out of the reader's feeds (every share of
// its link); muted words leave cards out, or collapse them behind "show anyway". /hidden
// brings either back. Both apply on every read path of that reader (feed.source.Keep and
// feed.chronoSource.Keep, from the viewer's access, read with the user).

// hiddenLimit is how many hidden posts /hidden lists, newest first.
const hiddenLimit = 500

func (s *Server) hidePost(w http.ResponseWriter, r *http.Request)   { s.setHidden(w, r, true) }
func (s *Server) unhidePost(w http.ResponseWriter, r *http.Request) { s.setHidden(w, r, false) }

// setHidden hides the item of the post in the path from the viewer's feeds, or brings it
// back: htmx gets the stub that stands where the card was, a form post goes back.
func (s *Server) setHidden(w http.ResponseWriter, r *http.Request, hide bool) {
	id, err := pathID(r, "Post")
	if err == nil && hide {
		err = s.store.HideItem(r.Context(), s.viewerAccess(r), id, s.now())
	} else if err == nil {
		err = s.store.UnhideItem(r.Context(), s.viewerAccess(r), id)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	stub, msg, back := views.HiddenStub(id), "Hidden from your feeds.", "/"
	if !hide {
		stub, msg, back = views.UnhiddenStub(id), "Back in your feeds.", "/hidden"
	}
	if isHTMX(r) {
		s.render(w, r, http.StatusOK, stub)
		return
	}
	back = localPath(r.PostFormValue("return"), back)
	if hide {
		s.flashUndo(r, msg, views.Undo{Action: "/p/" + strconv.FormatInt(id, 10) + "/unhide", Return: back})
	} else {
		s.flash(r, msg)
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

func (s *Server) hiddenPage(w http.ResponseWriter, r *http.Request) {
	s.renderHidden(w, r, http.StatusOK, views.Form{Errors: views.FieldErrors{}})
}

func (s *Server) renderHidden(w http.ResponseWriter, r *http.Request, status int, f views.Form) {
	v := s.viewerAccess(r)
	posts, err := s.store.HiddenPosts(r.Context(), v, hiddenLimit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, status, views.HiddenPage(s.page(r, "Hidden and muted"), views.HiddenView{Posts: posts, Mutes: v.Mutes, Form: f}))
}

func (s *Server) mute(w http.ResponseWriter, r *http.Request) {
	f := parseForm(r)
	word, err := tributary.CleanMute(f.Get("word"))
	mode := f.Get("mode")
	if err == nil && mode != "hide" && mode != "collapse" && mode != "" {
		err = tributary.FieldErrorf("mode", "Choose whether cards with the word leave your feeds or collapse.")
	}
	if err == nil {
		err = s.store.Mute(r.Context(), currentUser(r.Context()).ID, tributary.Mute{Word: word, Collapse: mode == "collapse"}, s.now())
	}
	if tributary.ErrorCode(err) == tributary.EInvalid {
		f.Errors[tributary.ErrorField(err)] = tributary.ErrorMessage(err)
		s.renderHidden(w, r, http.StatusBadRequest, f)
		return
	} else if err != nil {
		s.fail(w, r, err)
		return
	}
	s.flash(r, "Muted “"+word+"”.")
	http.Redirect(w, r, "/hidden", http.StatusSeeOther)
}

func (s *Server) unmute(w http.ResponseWriter, r *http.Request) {
	word, err := tributary.CleanMute(r.PostFormValue("word"))
	if err == nil {
		err = s.store.Unmute(r.Context(), currentUser(r.Context()).ID, word)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.flash(r, "Unmuted “"+word+"”.")
	http.Redirect(w, r, "/hidden", http.StatusSeeOther)
}
