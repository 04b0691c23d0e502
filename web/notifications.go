package web

import (
	"net/http"

	"tributary"
	"tributary/db"
	"tributary/views"
)

// Notifications (issue 46): the list, its JSON, "mark all read", opening a line, the badge's
// poll for pages without a live stream, and the choices of what to hear of.

// notificationPage reads the page of the viewer's list at the request's ?cursor=.
func (s *Server) notificationPage(r *http.Request) (tributary.NotificationPage, error) {
	from, err := tributary.ParseNotificationCursor(r.URL.Query().Get("cursor"))
	if err != nil {
		return tributary.NotificationPage{}, err
	}
	return s.store.Notifications(r.Context(), s.viewerAccess(r), from, tributary.NotificationPageSize)
}

// notifications serves /notifications: the whole page, or (htmx, a cursor) the next lines.
func (s *Server) notifications(w http.ResponseWriter, r *http.Request) {
	page, err := s.notificationPage(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if r.Header.Get("HX-Request") == "true" && r.URL.Query().Has("cursor") {
		s.render(w, r, http.StatusOK, views.NotificationLines(page))
		return
	}
	s.render(w, r, http.StatusOK, views.NotificationsPage(s.page(r, "Notifications"), page))
}

// apiNotifications is GET /api/notifications: a page of lines as JSON
// (tributary.NotificationPage.AppendJSON).
func (s *Server) apiNotifications(w http.ResponseWriter, r *http.Request) {
	page, err := s.notificationPage(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.writeJSON(w, r, page.AppendJSON)
}

// markNotificationsRead is "mark all read": every device's badge goes to 0.
func (s *Server) markNotificationsRead(w http.ResponseWriter, r *http.Request) {
	if err := s.store.MarkNotificationsRead(r.Context(), currentUser(r.Context()).ID, s.now()); err != nil {
		s.fail(w, r, err)
		return
	}
	if r.Header.Get("HX-Request") == "true" {
		w.Header().Set("HX-Refresh", "true")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	http.Redirect(w, r, "/notifications", http.StatusSeeOther)
}

// openNotification marks a line read and goes to what it is about.
func (s *Server) openNotification(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "Notification")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	n, err := s.store.OpenNotification(r.Context(), currentUser(r.Context()).ID, id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, views.NotificationTarget(n), http.StatusSeeOther)
}

// badgePath is the badge's request (pages without a live stream ask it), badgeRoute its route.
const (
	badgePath  = "/notifications/unread"
	badgeRoute = "GET " + badgePath
)

// unreadBadge answers the header's badge for pages without a live stream (on focus, and on
// a slow timer).
func (s *Server) unreadBadge(w http.ResponseWriter, r *http.Request) {
	n, err := s.unread(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.writeBadge(w, r, n)
}

func (s *Server) writeBadge(w http.ResponseWriter, r *http.Request, n int) {
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, http.StatusOK, views.UnreadBadge(n))
}

// keptBadge answers the badge's request, before its session is read, from what this
// instance kept of the session and of its user's unread count (db.Store.KeptUnread): no
// read at all. False: it did not answer, and the request goes on as any other.
func (s *Server) keptBadge(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet || r.URL.Path != badgePath {
		return false
	}
	token := sessionToken(r, s.isHTTPS(r))
	if token == "" {
		return false
	}
	n, ok := s.store.KeptUnread(token, s.now())
	if !ok {
		return false
	}
	s.metrics.badgeKept.Inc()
	if ri := infoOf(r.Context()); ri != nil {
		ri.route = badgeRoute
	}
	s.writeBadge(w, r, n)
	return true
}

// unread is the signed-in reader's unread count: the one their session's read brought, or
// asked now when it brought none.
func (s *Server) unread(r *http.Request) (int, error) {
	u := currentUser(r.Context())
	if u == nil {
		return 0, nil
	}
	if su := db.SessionUserOf(r.Context()); su != nil && su.User.ID == u.ID {
		return su.Unread, nil
	}
	return s.store.UnreadNotifications(r.Context(), s.viewerAccess(r))
}

// readPostNotifications reads the signed-in reader's notifications about a post they opened
// (when their badge has any unread), and counts their unread again for the page's header.
func (s *Server) readPostNotifications(r *http.Request, postID int64) {
	u, su := currentUser(r.Context()), db.SessionUserOf(r.Context())
	if u == nil || su == nil || su.User.ID != u.ID || su.Unread == 0 {
		return
	}
	ctx := r.Context()
	changed, err := s.store.ReadPostNotifications(ctx, u.ID, postID)
	if err == nil && changed {
		su.Unread, err = s.store.UnreadNotifications(ctx, s.viewerAccess(r))
	}
	if err != nil { // the badge is not worth failing a page for
		s.log.WarnContext(ctx, "read post notifications", "err", err)
	}
}

func (s *Server) notificationSettings(w http.ResponseWriter, r *http.Request) {
	st, err := s.store.NotificationSettings(r.Context(), currentUser(r.Context()).ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, views.NotificationSettingsPage(s.page(r, "Notification settings"), st))
}

func (s *Server) setNotificationSettings(w http.ResponseWriter, r *http.Request) {
	f := parseForm(r)
	set := tributary.NotificationSettings{Grouping: f.Get("grouping") == "on", Policy: map[string]string{}}
	for _, kind := range tributary.NotificationKinds {
		if p := f.Get(kind); p != "" {
			set.Policy[kind] = p
		}
	}
	if err := s.store.SetNotificationSettings(r.Context(), currentUser(r.Context()).ID, set); err != nil {
		s.fail(w, r, err)
		return
	}
	s.flash(r, "Your notification settings are saved.")
	http.Redirect(w, r, "/notifications/settings", http.StatusSeeOther)
}

// muteThread stops (or, with mute=off, restarts) reply notifications from a post's thread.
func (s *Server) muteThread(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "Post")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	mute := r.PostFormValue("mute") != "off"
	if err := s.store.MuteThread(r.Context(), currentUser(r.Context()).ID, id, mute); err != nil {
		s.fail(w, r, err)
		return
	}
	s.flash(r, map[bool]string{true: "You will hear no more replies in that thread.", false: "You will hear of replies in that thread again."}[mute])
	http.Redirect(w, r, "/notifications", http.StatusSeeOther)
}
