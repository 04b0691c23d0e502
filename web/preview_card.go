package web

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"tributary"
	"tributary/db"
	"tributary/views"
)

// previewWithin bounds a share form's preview fetch: the form stays quick whatever the site.
const previewWithin = 3 * time.Second

// sharePreview shows what a link is while the share form is filled in: its card, from the
// database when an earlier share or preview fetched it, else fetched now (and kept for the
// share's job), and the title when the sharer has typed none.
func (s *Server) sharePreview(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r.Context())
	if s.limited(w, r, previewsPerUser, strconv.FormatInt(u.ID, 10)) {
		return
	}
	q := r.URL.Query()
	d, err := tributary.Derive(q.Get("url"), nil)
	if err != nil { // not a link (yet): nothing to show
		s.render(w, r, http.StatusOK, views.SharePreview(nil, false))
		return
	}
	// A card known only through shares the sharer may not read is fetched anew, as for a
	// link never shared: the preview says nothing of them, not even by its speed.
	card, ok, err := s.store.CardOf(r.Context(), s.viewerAccess(r), d.AnchorURL)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !ok && s.store.Fetcher != nil {
		ctx, cancel := context.WithTimeout(db.WithPreview(r.Context()), previewWithin)
		c, err := s.store.Fetcher.FetchCard(ctx, d.AnchorURL)
		cancel()
		if err == nil {
			card, ok = c, true
			if err := s.store.SavePreviewCard(r.Context(), d.AnchorURL, d.AnchorKind, c); err != nil {
				s.log.Warn("share preview: keep card", "err", err)
			}
		}
	}
	var shown *tributary.LinkCard
	if ok {
		shown = &card
	}
	s.render(w, r, http.StatusOK, views.SharePreview(shown, q.Get("title") == ""))
}
