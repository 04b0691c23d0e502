package web

import (
	"net/http"
	"net/url"
	"strings"

	"tributary"
	"tributary/views"
)

// peopleShown bounds the suggestions and the search results the people page lists.
const peopleShown = 20

// suggestedOnHome is how many suggestions a newcomer's home feed shows above it.
const suggestedOnHome = 5

// tagsOffered is how many popular tags the first-run page offers.
const tagsOffered = 24

// people is whom to follow: suggestions, and a search by handle or name.
func (s *Server) people(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r.Context())
	text := strings.TrimSpace(r.URL.Query().Get("q"))
	v := views.PeopleView{Query: text, Searched: text != "", Return: "/people"}
	if text != "" {
		v.Return = "/people?q=" + url.QueryEscape(text)
	}
	p, err := s.store.People(r.Context(), u.ID, text, peopleShown, s.now())
	status := http.StatusOK
	switch {
	case tributary.ErrorCode(err) == tributary.EInvalid:
		v.Error, status = tributary.ErrorMessage(err), http.StatusBadRequest
	case err != nil:
		s.fail(w, r, err)
		return
	}
	v.Suggestions, v.Results = p.Suggestions, p.Results
	s.render(w, r, status, views.PeoplePage(s.page(r, "People"), v))
}

// welcome is the first-run page after sign-up: pick tags, whose sharers are suggested.
func (s *Server) welcome(w http.ResponseWriter, r *http.Request) {
	s.renderWelcome(w, r, http.StatusOK, "")
}

func (s *Server) renderWelcome(w http.ResponseWriter, r *http.Request, status int, msg string) {
	choices, err := s.store.TagChoices(r.Context(), currentUser(r.Context()).ID, tagsOffered, s.now())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := views.WelcomeView{Error: msg, Tags: make([]views.TagChoice, len(choices))}
	for i, c := range choices {
		v.Tags[i] = views.TagChoice(c)
	}
	s.render(w, r, status, views.WelcomePage(s.page(r, "Welcome"), v))
}

// pickTags keeps the tags picked on the first-run page and goes on to the suggestions.
func (s *Server) pickTags(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	err := s.store.SetTags(r.Context(), currentUser(r.Context()).ID, r.PostForm["tag"])
	if tributary.ErrorCode(err) == tributary.EInvalid {
		s.renderWelcome(w, r, http.StatusBadRequest, tributary.ErrorMessage(err))
		return
	} else if err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/people", http.StatusSeeOther)
}

// followedInPlace answers a follow button's htmx post with the button in its new state
// (views.FollowButton), true when it did.
func (s *Server) followedInPlace(w http.ResponseWriter, r *http.Request, target tributary.User, state string) bool {
	if !isHTMX(r) || r.PostFormValue("view") != "person" {
		return false
	}
	p := tributary.Person{ID: target.ID, Handle: target.Handle, DisplayName: target.DisplayName, FollowState: state}
	s.render(w, r, http.StatusOK, views.FollowButton(p, localPath(r.PostFormValue("return"), "/people")))
	return true
}
