package web

import (
	"net/http"

	"tributary"
	"tributary/db"
	"tributary/feed"
	"tributary/views"
)

// Filter feeds (seed 003): the posts a user liked (/u/{handle}/likes) or commented on
// (/u/{handle}/comments), a tag's posts (/t/{tag}), the posts mentioning the viewer
// (/mentions) and the viewer's discussions (/discussions). Each is a chronological feed
// like a user's posts: fenceposts, infinite scroll, "N new" and ?format=json.

// userFilter is one of a user's filter feeds: its feed, and what its page says.
type userFilter struct {
	feed                 func(user int64) string
	heading, verb, order string
}

var (
	likesFilter    = userFilter{feed: db.LikedByFeed, heading: "Liked by ", verb: "liked", order: "most recently liked first"}
	commentsFilter = userFilter{feed: db.CommentedByFeed, heading: "Commented on by ", verb: "commented on", order: "most recently commented first"}
)

func (s *Server) likesPage(w http.ResponseWriter, r *http.Request) {
	s.userFilterPage(w, r, "likes", likesFilter)
}

func (s *Server) commentsPage(w http.ResponseWriter, r *http.Request) {
	s.userFilterPage(w, r, "comments", commentsFilter)
}

func (s *Server) userFilterPage(w http.ResponseWriter, r *http.Request, tab string, f userFilter) {
	u, err := s.names.byHandle(r.Context(), r.PathValue("handle"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	path := "/u/" + u.Handle + "/" + tab
	l, done := s.chronoList(w, r, feed.Chrono{Filter: f.feed(u.ID)}, path,
		"@"+u.Handle+" has not "+f.verb+" any post you can read.", false)
	if done {
		return
	}
	v := views.FilterView{Heading: f.heading + u.DisplayName, Intro: "Posts @" + u.Handle + " " + f.verb + ", " + f.order + ".",
		Tabs: views.UserTabs(u.Handle, tab), Posts: l}
	pg := s.page(r, v.Heading)
	pg.Preview, pg.URL, pg.Description = true, absoluteURL(r, path), v.Intro
	s.render(w, r, http.StatusOK, views.FilterPage(pg, v))
}

func (s *Server) tagPage(w http.ResponseWriter, r *http.Request) {
	name, atom := atomName(r.PathValue("tag"))
	tags, err := tributary.NormalizeTags([]string{name})
	if err != nil || len(tags) != 1 {
		s.fail(w, r, tributary.Errorf(tributary.EInvalid, "Tag %q may use only letters, digits, '-', '_' and '.', at most %d of them.",
			r.PathValue("tag"), tributary.TagMaxLen))
		return
	}
	tag := tags[0]
	if atom {
		s.tagAtom(w, r, tag)
		return
	}
	path := "/t/" + tag
	l, done := s.chronoList(w, r, feed.Chrono{Filter: db.TagFeed(tag)}, path, "No post you can read has #"+tag+" yet.", false)
	if done {
		return
	}
	v := views.FilterView{Heading: "#" + tag, Posts: l,
		Intro: "Posts tagged #" + tag + ", or with #" + tag + " in their text or comments, newest first."}
	pg := s.page(r, v.Heading)
	pg.Preview, pg.URL, pg.Description, pg.Atom = true, absoluteURL(r, path), v.Intro, path+".atom"
	s.render(w, r, http.StatusOK, views.FilterPage(pg, v))
}

func (s *Server) mentionsPage(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r.Context())
	l, done := s.chronoList(w, r, feed.Chrono{Filter: db.MentionsFeed(u.ID)}, "/mentions", "Nobody has mentioned you yet.", false)
	if done {
		return
	}
	v := views.FilterView{Heading: "Mentions", Posts: l,
		Intro: "Posts that mention @" + u.Handle + " in their text or comments, newest mention first."}
	s.render(w, r, http.StatusOK, views.FilterPage(s.page(r, "Mentions"), v))
}

func (s *Server) discussionsPage(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r.Context())
	l, done := s.chronoList(w, r, feed.Chrono{Filter: db.DiscussionsFeed(u.ID)}, "/discussions", "Nothing yet: your posts and the posts you like or comment on come here.", false)
	if done {
		return
	}
	v := views.FilterView{Heading: "My discussions", Posts: l,
		Intro: "Your posts and the posts you liked or commented on, by their last comment or yours."}
	s.render(w, r, http.StatusOK, views.FilterPage(s.page(r, "My discussions"), v))
}

func (s *Server) writeChronoJSON(w http.ResponseWriter, r *http.Request, path string, p feed.ChronoPage) {
	l := tributary.PostList{Posts: p.Posts, NextCursor: p.NextCursor, Path: path, Fencepost: p.Fencepost, Refreshed: p.Refreshed}
	s.writeJSON(w, r, l.AppendJSON)
}
