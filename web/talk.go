package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"tributary"
	"tributary/views"
)

// liveTalkMost is how many cards of each kind one GET /talk brings up to date.
const liveTalkMost = 200

// talkNow serves GET /talk?p=<post ids>&i=<item id>:<post id>,…&return=<path>: the open page's
// cards named there, brought up to date for the reader (a live stream said their talk
// changed, or told the page to check every card): post cards and item cards get their
// counts, like button and likers anew, edited posts' cards their title and text; cards the
// reader may no longer read leave (an item card when none of the item's shares is theirs to
// read).
func (s *Server) talkNow(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	posts, err := idList(q.Get("p"), "p", "post ids")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var anchors, reps []int64
	if q.Get("i") != "" {
		for pair := range strings.SplitSeq(q.Get("i"), ",") {
			a, p, ok := strings.Cut(pair, ":")
			an, err1 := strconv.ParseInt(a, 10, 64)
			pn, err2 := strconv.ParseInt(p, 10, 64)
			if !ok || err1 != nil || err2 != nil || an <= 0 || pn <= 0 {
				s.fail(w, r, tributary.Errorf(tributary.EInvalid, "Parameter 'i' must be item:post id pairs separated by commas."))
				return
			}
			anchors, reps = append(anchors, an), append(reps, pn)
		}
	}
	if len(posts) > liveTalkMost || len(anchors) > liveTalkMost {
		s.fail(w, r, tributary.Errorf(tributary.EInvalid, "At most %d cards of each kind at once.", liveTalkMost))
		return
	}
	v := s.viewerAccess(r)
	back := localPath(q.Get("return"), "/")
	var talks []views.Talk
	var gone []string
	var fresh []views.FreshCard
	var edited []tributary.Post // their cards get their text anew: an edit is told as talk
	if len(posts) > 0 {
		readable, err := s.store.PostsByID(r.Context(), v, posts)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		fresh = append(fresh, s.freshCards(r.Context(), "post", readable, func(p tributary.Post) int64 { return p.ID })...)
		talk := make(map[int64]tributary.Talk, len(readable))
		for _, p := range readable {
			talk[p.ID] = p.Talk
			if p.EditedAt != nil {
				edited = append(edited, p)
			}
		}
		for _, id := range posts {
			if t, ok := talk[id]; ok {
				talks = append(talks, views.Talk{View: "post", PostID: id, Talk: t, Return: back, LoggedIn: v.ID != 0})
			} else {
				gone = append(gone, "post-"+strconv.FormatInt(id, 10))
			}
		}
	}
	if len(anchors) > 0 {
		readable, err := s.store.ReadableAnchors(r.Context(), anchors, v)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		talk, err := s.store.AnchorTalk(r.Context(), v, anchors)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		for i, a := range anchors {
			if !readable[a] {
				gone = append(gone, "item-"+strconv.FormatInt(a, 10))
				continue
			}
			t := views.Talk{View: "item", AnchorID: a, PostID: reps[i], Talk: talk[a], Return: back, LoggedIn: v.ID != 0}
			if t.Talk.LikedPost != 0 {
				t.PostID = t.Talk.LikedPost
			}
			talks = append(talks, t)
		}
		var arrived []int64 // the items whose cards arrived, by their shown share
		for i, a := range anchors {
			if readable[a] && len(s.feed.FreshCards([]int64{a})) > 0 {
				arrived = append(arrived, reps[i])
			}
		}
		if len(arrived) > 0 {
			reps, err := s.store.PostsByID(r.Context(), v, arrived)
			if err != nil {
				s.fail(w, r, err)
				return
			}
			fresh = append(fresh, s.freshCards(r.Context(), "item", reps, func(p tributary.Post) int64 { return p.AnchorID })...)
		}
	}
	s.render(w, r, http.StatusOK, views.TalkNow(talks, gone, fresh, edited))
}

// freshCards are the cards among posts' items that arrived while pages showed them, by the
// id their page shows them under (a post's or an item's).
func (s *Server) freshCards(ctx context.Context, kind string, posts []tributary.Post, id func(tributary.Post) int64) []views.FreshCard {
	var arrived []tributary.Post
	for _, p := range posts {
		if len(s.feed.FreshCards([]int64{p.AnchorID})) > 0 {
			arrived = append(arrived, p)
		}
	}
	s.feed.PostCards(ctx, arrived)
	var out []views.FreshCard
	for _, p := range arrived {
		if p.Card != nil {
			out = append(out, views.FreshCard{Kind: kind, ID: id(p), Title: p.Title, Card: p.Card})
		}
	}
	return out
}

// idList parses a comma-separated list of ids (empty: none).
func idList(s, param, what string) ([]int64, error) {
	if s == "" {
		return nil, nil
	}
	var ids []int64
	for f := range strings.SplitSeq(s, ",") {
		id, err := strconv.ParseInt(f, 10, 64)
		if err != nil || id <= 0 {
			return nil, tributary.Errorf(tributary.EInvalid, "Parameter '%s' must be %s separated by commas.", param, what)
		}
		ids = append(ids, id)
	}
	return ids, nil
}
