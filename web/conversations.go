package web

import (
	"net/http"
	"slices"
	"strconv"
	"sync"

	"tributary"
	"tributary/db"
	"tributary/views"
)

// Conversations: post and item pages, likes and comments. Every action answers htmx with the
// block it changed (tier 0: the card's conversation line, or the post page's conversation)
// and a plain form post with a redirect back to where the reader was.

// pathID reads a positive id from the path.
func pathID(r *http.Request, what string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, tributary.Errorf(tributary.EInvalid, "%s id must be a positive number, got %q.", what, r.PathValue("id"))
	}
	return id, nil
}

// viewerAccess is what the access rules know of the request's viewer (read with the user).
func (s *Server) viewerAccess(r *http.Request) tributary.Viewer {
	if v, ok := r.Context().Value(accessKey).(tributary.Viewer); ok {
		return v
	}
	return tributary.Anonymous
}

func (s *Server) postPage(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "Post")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	from, err := tributary.ParseThreadCursor(r.URL.Query().Get("from"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	c, err := s.conversationFrom(r, id, views.Talk{}, from)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.readPostNotifications(r, id)
	s.renderPostPage(w, r, http.StatusOK, c)
}

func (s *Server) renderPostPage(w http.ResponseWriter, r *http.Request, status int, c views.Conversation) {
	pg := s.page(r, c.Post.Title)
	pg.Description = "“" + views.Excerpt(c.Post.Title, 120) + "”, shared by " + c.Post.Author.Name + " on Tributary, and its discussion."
	s.render(w, r, status, views.PostPage(pg, c))
}

// conversation reads a post the viewer may read with its likers and the first page of its
// thread; t carries a refused comment's text and message to show again.
func (s *Server) conversation(r *http.Request, postID int64, t views.Talk) (views.Conversation, error) {
	return s.conversationFrom(r, postID, t, tributary.ThreadCursor{})
}

// conversationFrom is conversation with the page of the thread that starts at from.
func (s *Server) conversationFrom(r *http.Request, postID int64, t views.Talk, from tributary.ThreadCursor) (views.Conversation, error) {
	v := s.viewerAccess(r)
	// The post with its talk and likers, and its thread, are read at once, on two connections:
	// each statement checks that the viewer may read the post (the thread is empty otherwise).
	var (
		p         tributary.Post
		likers    []tributary.UserRef
		thread    tributary.Thread
		threadErr error
		wg        sync.WaitGroup
		ctx       = r.Context()
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		thread, threadErr = s.store.PostThread(ctx, v, postID, from, tributary.ThreadPageSize)
	}()
	p, likers, err := s.store.PostPage(ctx, v, postID, 50)
	wg.Wait()
	if err != nil {
		return views.Conversation{}, err
	}
	if threadErr != nil {
		return views.Conversation{}, threadErr
	}
	withCard := []tributary.Post{p}
	s.feed.PostCards(ctx, withCard)
	p = withCard[0]
	back := "/p/" + strconv.FormatInt(p.ID, 10)
	return views.Conversation{Post: p, Likers: likers, Comments: thread.Comments, ViewerID: v.ID,
		Newer: threadPage(back, thread.Next), Paged: !from.IsZero(),
		Talk: views.Talk{View: "page", PostID: p.ID, Talk: p.Talk, Return: back,
			LoggedIn: v.ID != 0, Body: t.Body, Error: t.Error}}, nil
}

// threadPage is the address of the page of a post's thread that starts at from ("": none).
func threadPage(post string, from tributary.ThreadCursor) string {
	if from.IsZero() {
		return ""
	}
	return post + "?from=" + from.String() + "#thread"
}

// itemDiscussions is how many shares an item page shows with their discussions; the
// others are listed by who shared them.
const itemDiscussions = 20

func (s *Server) itemPage(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "Item")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	page := 1
	if p := r.URL.Query().Get("page"); p != "" {
		if page, err = strconv.Atoi(p); err != nil || page < 1 {
			s.fail(w, r, tributary.Errorf(tributary.EInvalid, "Parameter 'page' must be a page number, got %q.", p))
			return
		}
	}
	v := s.viewerAccess(r)
	shares, err := s.store.ItemPosts(r.Context(), v, id, page)
	posts := shares.Posts
	if err == nil && len(posts) == 0 {
		err = tributary.Errorf(tributary.ENotFound, "No such item.")
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.feed.PostCards(r.Context(), posts)
	// The shares people talk about come first, the most discussed first, with the viewer's own
	// and the first share (where a new discussion starts) among them; the rest are listed.
	first := posts[0].ID
	weight := func(p tributary.Post) int {
		w := 3*p.Talk.Comments + p.Talk.Likes
		if p.Author.ID == v.ID || p.ID == first {
			w += 1 << 20
		}
		return w
	}
	slices.SortStableFunc(posts, func(a, b tributary.Post) int { return weight(b) - weight(a) })
	n := 0
	for n < len(posts) && n < itemDiscussions && weight(posts[n]) > 0 {
		n++
	}
	talked, quiet := posts[:n], posts[n:]
	tids := make([]int64, len(talked)) // never empty: the first share is always among them
	for i, p := range talked {
		tids[i] = p.ID
	}
	threads, err := s.store.Threads(r.Context(), v, tids, tributary.ThreadPageSize)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	back := "/i/" + strconv.FormatInt(id, 10)
	convs := make([]views.Conversation, len(talked))
	for i, p := range talked {
		convs[i] = views.Conversation{Post: p, Likers: p.Talk.Likers, Comments: threads[p.ID].Comments, ViewerID: v.ID,
			Newer: threadPage("/p/"+strconv.FormatInt(p.ID, 10), threads[p.ID].Next),
			Talk:  views.Talk{View: "page", PostID: p.ID, Talk: p.Talk, Return: back, LoggedIn: v.ID != 0}}
	}
	pg := s.page(r, posts[0].Title)
	pg.Description = "Every share of “" + views.Excerpt(posts[0].Title, 120) + "” on Tributary, with their discussions."
	s.render(w, r, http.StatusOK, views.ItemPage(pg, views.Item{ID: id, Title: posts[0].Title, URL: posts[0].AnchorURL, Card: posts[0].Card,
		Shares: shares.Shares, Sharers: shares.Sharers, Page: page, PageSize: db.ItemSharesPage, Listed: len(posts),
		Discussions: convs, Quiet: quiet}))
}

func (s *Server) like(w http.ResponseWriter, r *http.Request) {
	if !s.limited(w, r, likesPerUser, strconv.FormatInt(currentUser(r.Context()).ID, 10)) {
		s.onPost(w, r, likePost)
	}
}

func (s *Server) unlike(w http.ResponseWriter, r *http.Request) {
	if !s.limited(w, r, likesPerUser, strconv.FormatInt(currentUser(r.Context()).ID, 10)) {
		s.onPost(w, r, unlikePost)
	}
}

// acted is what an action on a post leaves: the comment it added, and the post card's talk
// after it, which the action's statement read in the same round trip.
type acted struct {
	added *tributary.Comment
	talk  *tributary.Talk
}

func likePost(s *Server, r *http.Request, v tributary.Viewer, id int64) (acted, error) {
	t, err := s.store.LikeTalk(r.Context(), v, id, s.now())
	return acted{talk: &t}, err
}

func unlikePost(s *Server, r *http.Request, v tributary.Viewer, id int64) (acted, error) {
	t, err := s.store.UnlikeTalk(r.Context(), v, id)
	return acted{talk: &t}, err
}

func addComment(s *Server, r *http.Request, v tributary.Viewer, id int64) (acted, error) {
	body, err := tributary.CleanComment(r.PostFormValue("body"))
	if err != nil {
		return acted{}, err
	}
	c, _, t, err := s.store.AddCommentTalk(r.Context(), v, id, body, s.now(), s.bump)
	return acted{added: &c, talk: &t}, err
}

func (s *Server) comment(w http.ResponseWriter, r *http.Request) {
	if s.limited(w, r, commentsPerUser, strconv.FormatInt(currentUser(r.Context()).ID, 10)) {
		return
	}
	s.onPost(w, r, addComment)
}

// onPost runs the viewer's action on the post in the path, then answers with the block the
// form came from (htmx) or goes back where the reader was. A refused comment comes back
// with its text and the reason, as 400.
func (s *Server) onPost(w http.ResponseWriter, r *http.Request, act func(*Server, *http.Request, tributary.Viewer, int64) (acted, error)) {
	id, err := pathID(r, "Post")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := s.viewerAccess(r)
	done, err := act(s, r, v, id)
	added := done.added
	status := http.StatusOK
	t := views.Talk{View: r.PostFormValue("view"), PostID: id, LoggedIn: true,
		Return: localPath(r.PostFormValue("return"), "/p/"+strconv.FormatInt(id, 10))}
	if tributary.ErrorCode(err) == tributary.EInvalid && tributary.ErrorField(err) == "body" {
		status, t.Body, t.Error, added, done.talk = http.StatusBadRequest, r.PostFormValue("body"), tributary.ErrorMessage(err), nil, nil
		if !isHTMX(r) {
			c, err := s.conversation(r, id, t)
			if err != nil {
				s.fail(w, r, err)
				return
			}
			s.renderPostPage(w, r, status, c)
			return
		}
	} else if err != nil {
		s.fail(w, r, err)
		return
	} else {
		s.contentChanged(r)
	}
	if !isHTMX(r) {
		back := t.Return
		if added != nil && t.View == "page" {
			// On a post's own page, a thread longer than a page is shown from the new comment.
			if back == "/p/"+strconv.FormatInt(id, 10) && done.talk != nil && done.talk.Comments > tributary.ThreadPageSize {
				back += "?from=" + tributary.CursorOf(*added).String()
			}
			back += "#c" + strconv.FormatInt(added.ID, 10)
		}
		http.Redirect(w, r, back, http.StatusSeeOther)
		return
	}
	t.Added = added
	s.renderTalk(w, r, status, v, t, done.talk)
}

// renderTalk answers htmx with the block a conversation form came from, as it is now. known
// is the post card's talk when the action just read it (nil: read it here).
func (s *Server) renderTalk(w http.ResponseWriter, r *http.Request, status int, v tributary.Viewer, t views.Talk, known *tributary.Talk) {
	switch t.View {
	case "item":
		anchor, err := strconv.ParseInt(r.PostFormValue("item"), 10, 64)
		if err != nil || anchor <= 0 {
			s.fail(w, r, tributary.Errorf(tributary.EInvalid, "Parameter 'item' must be an item id."))
			return
		}
		talk, err := s.store.AnchorTalk(r.Context(), v, []int64{anchor})
		if err != nil {
			s.fail(w, r, err)
			return
		}
		t.AnchorID, t.Talk = anchor, talk[anchor]
		if t.Talk.LikedPost != 0 {
			t.PostID = t.Talk.LikedPost
		}
		s.render(w, r, status, views.CardTalk(t))
	case "post":
		if known != nil {
			t.Talk = *known
			s.render(w, r, status, views.CardTalk(t))
			return
		}
		talk, err := s.store.PostTalk(r.Context(), v, []int64{t.PostID})
		if err != nil {
			s.fail(w, r, err)
			return
		}
		var ok bool
		if t.Talk, ok = talk[t.PostID]; !ok {
			s.fail(w, r, tributary.Errorf(tributary.ENotFound, "No such post."))
			return
		}
		s.render(w, r, status, views.CardTalk(t))
	default:
		c, err := s.conversation(r, t.PostID, t)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		s.render(w, r, status, views.ConversationView(c, s.now()))
	}
}

// editCommentForm shows the viewer's own comment in an editor: in place of it (htmx) or on a
// page of its own.
func (s *Server) editCommentForm(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "Comment")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := s.viewerAccess(r)
	cm, err := s.store.OwnComment(r.Context(), v, id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if isHTMX(r) {
		s.render(w, r, http.StatusOK, views.CommentEditor(cm, "/p/"+strconv.FormatInt(cm.PostID, 10), ""))
		return
	}
	s.render(w, r, http.StatusOK, views.EditCommentPage(s.page(r, "Edit your comment"), cm, ""))
}

func (s *Server) editComment(w http.ResponseWriter, r *http.Request) {
	s.onComment(w, r, func(v tributary.Viewer, id int64) (int64, error) {
		body, err := tributary.CleanComment(r.PostFormValue("body"))
		if err != nil {
			return 0, err
		}
		return s.store.EditComment(r.Context(), v, id, body, s.now())
	})
}

func (s *Server) deleteComment(w http.ResponseWriter, r *http.Request) {
	s.onComment(w, r, func(v tributary.Viewer, id int64) (int64, error) {
		return s.store.DeleteComment(r.Context(), v, id)
	})
}

// onComment runs an action on the comment in the path, then answers with the post's
// conversation (htmx) or goes back to the post's page.
func (s *Server) onComment(w http.ResponseWriter, r *http.Request, act func(v tributary.Viewer, id int64) (int64, error)) {
	id, err := pathID(r, "Comment")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := s.viewerAccess(r)
	postID, err := act(v, id)
	if err == nil {
		s.contentChanged(r)
	}
	if tributary.ErrorField(err) == "body" {
		cm, err2 := s.store.OwnComment(r.Context(), v, id)
		if err2 != nil {
			s.fail(w, r, err2)
			return
		}
		cm.Body = r.PostFormValue("body")
		if isHTMX(r) {
			w.Header().Set("HX-Retarget", "#c"+strconv.FormatInt(id, 10))
			s.render(w, r, http.StatusBadRequest, views.CommentEditor(cm, "/p/"+strconv.FormatInt(cm.PostID, 10), tributary.ErrorMessage(err)))
			return
		}
		s.render(w, r, http.StatusBadRequest, views.EditCommentPage(s.page(r, "Edit your comment"), cm, tributary.ErrorMessage(err)))
		return
	} else if err != nil {
		s.fail(w, r, err)
		return
	}
	back := "/p/" + strconv.FormatInt(postID, 10)
	if !isHTMX(r) {
		http.Redirect(w, r, back, http.StatusSeeOther)
		return
	}
	s.renderTalk(w, r, http.StatusOK, v, views.Talk{View: "page", PostID: postID, Return: back, LoggedIn: true}, nil)
}
