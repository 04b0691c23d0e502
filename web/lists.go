package web

import (
	"cmp"
	"net/http"
	"net/url"
	"strconv"

	"tributary"
	"tributary/views"
)

// Lists (seed 003's several friend feeds): each is the home feed's ranking over chosen
// members, with its own fence. Its first page is /lists/{id}; the pages after, its notice
// and its JSON are the home feed's with ?list={id}, which answers 404 to anyone but the
// list's owner.

func (s *Server) lists(w http.ResponseWriter, r *http.Request) {
	s.renderLists(w, r, http.StatusOK, views.Form{})
}

func (s *Server) renderLists(w http.ResponseWriter, r *http.Request, status int, f views.Form) {
	ls, err := s.store.ListsOf(r.Context(), currentUser(r.Context()).ID, 0)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, status, views.ListsPage(s.page(r, "Lists"), ls, f))
}

func (s *Server) createList(w http.ResponseWriter, r *http.Request) {
	f := parseForm(r)
	id, err := s.store.CreateList(r.Context(), currentUser(r.Context()).ID, f.Get("name"), f.Get("exclusive") == "1")
	if tributary.ErrorCode(err) == tributary.EInvalid {
		f.Errors[tributary.ErrorField(err)] = tributary.ErrorMessage(err)
		s.renderLists(w, r, http.StatusBadRequest, f)
		return
	} else if err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/lists/"+strconv.FormatInt(id, 10), http.StatusSeeOther)
}

// listPage is a list's first page (and, without JavaScript, any page of it).
func (s *Server) listPage(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "List")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := r.URL.Query()
	v.Set("list", strconv.FormatInt(id, 10))
	q, err := tributary.ParseFeedQuery(v)
	if err != nil {
		s.failFeed(w, r, q, err)
		return
	}
	s.renderList(w, r, q, http.StatusOK, views.Form{})
}

// renderList renders a whole page of list q.List with form f (its errors) on it.
func (s *Server) renderList(w http.ResponseWriter, r *http.Request, q tributary.FeedQuery, status int, f views.Form) {
	u := currentUser(r.Context())
	l, members, err := s.store.ListOf(r.Context(), u.ID, q.List)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	t, err := s.feed.Timeline(r.Context(), u, q)
	if err != nil {
		s.failFeed(w, r, q, err)
		return
	}
	fv := s.feedView(r, q, t) // the pages after, its notice: the home feed's with ?list=
	fv.Heading, fv.Empty = l.Name, "Nothing shared by the people in this list yet."
	if len(members) == 0 {
		fv.Empty = "This list has nobody in it yet: add people below, or from their pages."
	}
	if f.Values == nil {
		f = views.Form{Values: url.Values{"name": {l.Name}}, Errors: views.FieldErrors{}}
	}
	s.render(w, r, status, views.ListPage(s.page(r, l.Name), views.ListView{List: l, Members: members, Feed: fv, Form: f}))
}

// onList runs an action of the viewer on their list named in the path, then goes back to
// the list, or to where the form says (a user's page). An action's bad input is shown on the
// list's page (400), or as a notice on the page the form came from.
func (s *Server) onList(act func(s *Server, r *http.Request, list int64, f views.Form) (string, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "List")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		f := parseForm(r)
		back := localPath(f.Get("return"), "/lists/"+strconv.FormatInt(id, 10))
		msg, err := act(s, r, id, f)
		if tributary.ErrorCode(err) == tributary.EInvalid && f.Get("return") == "" {
			f.Errors[cmp.Or(tributary.ErrorField(err), "handle")] = tributary.ErrorMessage(err)
			s.renderList(w, r, tributary.FeedQuery{Limit: tributary.DefaultLimit, List: id}, http.StatusBadRequest, f)
			return
		} else if tributary.ErrorCode(err) == tributary.EInvalid {
			msg = tributary.ErrorMessage(err)
		} else if err != nil {
			s.fail(w, r, err)
			return
		}
		if msg != "" {
			s.flash(r, msg)
		}
		http.Redirect(w, r, back, http.StatusSeeOther)
	}
}

func renameList(s *Server, r *http.Request, list int64, f views.Form) (string, error) {
	return "", s.store.RenameList(r.Context(), currentUser(r.Context()).ID, list, f.Get("name"))
}

func setListExclusive(s *Server, r *http.Request, list int64, f views.Form) (string, error) {
	on := f.Get("exclusive") == "1"
	if err := s.store.SetListExclusive(r.Context(), currentUser(r.Context()).ID, list, on); err != nil {
		return "", err
	}
	if on {
		return "The people in this list no longer appear in your home feed.", nil
	}
	return "The people in this list appear in your home feed again.", nil
}

func addListMember(s *Server, r *http.Request, list int64, f views.Form) (string, error) {
	handle := f.Get("handle")
	if handle == "" {
		return "", tributary.FieldErrorf("handle", "Type the handle of the person to add.")
	}
	member, err := s.store.UserByHandle(r.Context(), handle)
	if tributary.ErrorCode(err) == tributary.ENotFound {
		return "", tributary.FieldErrorf("handle", "Nobody has the handle %q.", handle)
	} else if err != nil {
		return "", err
	}
	if err := s.store.AddListMember(r.Context(), currentUser(r.Context()).ID, list, member.ID); err != nil {
		return "", err
	}
	return "@" + member.Handle + " is in the list.", nil
}

func removeListMember(s *Server, r *http.Request, list int64, _ views.Form) (string, error) {
	member, err := s.store.UserByHandle(r.Context(), r.PathValue("handle"))
	if err != nil {
		return "", err
	}
	if err := s.store.RemoveListMember(r.Context(), currentUser(r.Context()).ID, list, member.ID); err != nil {
		return "", err
	}
	return "@" + member.Handle + " is no longer in the list.", nil
}

func (s *Server) deleteList(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "List")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.store.DeleteList(r.Context(), currentUser(r.Context()).ID, id); err != nil {
		s.fail(w, r, err)
		return
	}
	s.flash(r, "List deleted.")
	http.Redirect(w, r, "/lists", http.StatusSeeOther)
}
