package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"tributary"
	"tributary/db"
	"tributary/feed"
)

// Live pages (seed 002's tier 1): an open feed page holds one server-sent-events stream,
// GET /live?src=<its notice>, where src is what the page's "N new" slot would poll. When a
// change that may concern the page is heard of (new posts, the talk of posts: through the
// site's event path, from any instance), the stream asks src again as the page's reader
// (the same handler, the reader's session and access, nothing else) and sends the notice
// when it changed. A change that the reader may not see changes nothing they are sent. The
// page polls src itself only while its stream is not open.

// CloseStreams ends every open live stream; call it when shutting down.
func (s *Server) CloseStreams() { s.live.close() }

// contentChanged is called after a write that open pages may hear of (a share, a like, a
// comment) committed: every instance's streams hear of it (this one's too) as soon as the
// site's wake-up reaches them, with what it was about.
func (s *Server) contentChanged() {
	if s.bus == nil { // this process is the whole site: nothing comes round the event path
		s.live.notify(true, nil, nil)
		return
	}
	s.bus.Changed()
}

// liveSource checks a stream's src: a notice of this site's feeds (a path with its query,
// never another host), either the ranked feed's (/feed/new) or a chronological feed's
// (?new=).
func liveSource(src string) (*url.URL, error) {
	u, err := url.Parse(src)
	bad := err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || !strings.HasPrefix(u.Path, "/") ||
		strings.HasPrefix(src, "//") || (u.Path != "/feed/new" && !u.Query().Has("new"))
	if bad {
		return nil, tributary.Errorf(tributary.EInvalid, "src must be the \"new\" notice of a feed of this site.")
	}
	return u, nil
}

// liveStream serves GET /live?src=…: the page's stream of notices.
func (s *Server) liveStream(w http.ResponseWriter, r *http.Request) {
	src, err := liveSource(r.URL.Query().Get("src"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	conn, ok := s.live.join()
	if !ok {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "The server is shutting down.", http.StatusServiceUnavailable)
		return
	}
	defer s.live.leave(conn)

	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: pass events on as they come
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 2000\n\n")
	if err := rc.Flush(); err != nil {
		return
	}

	ctx := r.Context()
	var sent []byte
	var seq int
	var reader liveReader // the reader's session and access as last read
	heartbeat := time.NewTicker(liveHeartbeat)
	defer heartbeat.Stop()
	// The first ask is at once: after a reconnect (Last-Event-ID) the notice is brought up to
	// date and the page checks its cards, rather than what was missed being replayed.
	ask, asked, force := true, false, false
	reconnected := r.Header.Get("Last-Event-ID") != ""
	author := s.pageAuthor(ctx, src)
	for {
		if ask {
			ask = false
			talk, arrived, must, lost := conn.taken()
			if !asked || must || lost || force || len(talk) > 0 || newToPage(arrived, reader.access, author) {
				force = false
				before := reader.epoch
				notice, ok, gone := s.askLive(ctx, r, src, &reader)
				if gone {
					writeEvent(w, seq+1, "gone", nil)
					rc.Flush()
					return
				}
				var events []liveEvent
				if ok && !bytes.Equal(notice, sent) {
					events = append(events, liveEvent{"pill", notice})
					sent = notice
				}
				if lost || (asked && reader.epoch != before) || (!asked && reconnected) {
					// Who may read what changed (or too much was said at once, or the page was
					// away for a while): the page checks every card it shows.
					events = append(events, liveEvent{"recheck", nil})
				} else if cards := talkedCards(talk, reader.access); len(cards) > 0 {
					events = append(events, liveEvent{"talk", cards})
				}
				for _, ev := range events {
					seq++
					if writeEvent(w, seq, ev.name, ev.data) != nil {
						return
					}
				}
				if len(events) > 0 && rc.Flush() != nil {
					return
				}
				asked = true
				select { // at most one ask per liveEvery
				case <-ctx.Done():
					return
				case <-s.live.done:
					return
				case <-time.After(liveEvery):
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-s.live.done:
			return
		case <-conn.wake:
			ask = true
		case <-heartbeat.C: // and ask again: the session may have ended elsewhere
			if _, err := fmt.Fprint(w, ": still here\n\n"); err != nil || rc.Flush() != nil {
				return
			}
			ask, force, reader.read = true, true, false
		}
	}
}

// pageAuthor is the user whose page src is the notice of (/u/{handle}?new=…: only their
// posts are new there), 0 for every other page.
func (s *Server) pageAuthor(ctx context.Context, src *url.URL) int64 {
	handle, ok := strings.CutPrefix(src.Path, "/u/")
	if !ok || handle == "" || strings.Contains(handle, "/") {
		return 0
	}
	u, err := s.store.UserByHandle(ctx, handle)
	if err != nil {
		return 0
	}
	return u.ID
}

// newToPage reports whether any of the posts made may be new on the page: one the reader may
// read (by the page's author, on a user's page). Any other post changes no notice of theirs.
func newToPage(arrived []db.LivePost, v tributary.Viewer, author int64) bool {
	return slices.ContainsFunc(arrived, func(p db.LivePost) bool {
		return v.CanRead(p.Access) && (author == 0 || p.AuthorID == author)
	})
}

type liveEvent struct {
	name string
	data []byte
}

// talkedCards names the cards whose talk changed, among the posts talked of, that the reader
// may read: "p<post id>" for a post's card, "i<item id>" for its item's card, unique.
func talkedCards(talk []db.LivePost, v tributary.Viewer) []byte {
	var b []byte
	seen := map[string]bool{}
	for _, p := range talk {
		if !v.CanRead(p.Access) {
			continue
		}
		for _, key := range []string{"p" + strconv.FormatInt(p.ID, 10), "i" + strconv.FormatInt(p.AnchorID, 10)} {
			if !seen[key] {
				seen[key] = true
				if len(b) > 0 {
					b = append(b, ' ')
				}
				b = append(b, key...)
			}
		}
	}
	return b
}

// liveReader is a stream's reader as its last full ask read them: their user and access,
// good while the hub's epoch stays where it was.
type liveReader struct {
	read   bool
	epoch  int64
	user   *tributary.User
	access tributary.Viewer
	notice feed.NoticeState // the feed's state of the reader, kept as long
}

// askLive asks src as the stream's reader and returns the notice. The reader's session and
// access are read afresh (the stream may be open for hours; a follower removed meanwhile must
// not go on counting a private feed) whenever the hub's epoch moved since the last read, and
// at each heartbeat; between them only new posts and talk happened, and the last read holds
// (so does the feed's state of the reader the notice counts with: feed.NoticeState).
// ok is false when no notice could be had (the database away): the page keeps what it shows;
// gone is true when the session no longer has the stream's reader (logged out): the stream
// ends.
func (s *Server) askLive(ctx context.Context, r *http.Request, src *url.URL, reader *liveReader) (notice []byte, ok, gone bool) {
	select {
	case s.live.asking <- struct{}{}:
		defer func() { <-s.live.asking }()
	case <-ctx.Done():
		return nil, false, false
	}
	s.live.asks.Add(1)
	want := userID(currentUser(r.Context()))
	sub := r.Clone(ctx)
	sub.Method = http.MethodGet
	sub.URL = src
	sub.RequestURI = src.RequestURI()
	sub.Header = r.Header.Clone()
	sub.Header.Set("HX-Request", "true")
	sub.Header.Del("Last-Event-ID")
	rec := httptest.NewRecorder()
	if epoch := s.live.epoch.Load(); reader.read && reader.epoch == epoch {
		// The stream's own context has the session it opened with; the reader read since.
		ctx := context.WithValue(context.WithValue(ctx, userKey, reader.user), accessKey, reader.access)
		s.mux.ServeHTTP(rec, sub.WithContext(feed.WithNoticeState(ctx, &reader.notice)))
	} else {
		// A context without the stream's session and user in it, ended with the stream.
		base, cancel := context.WithCancel(feed.WithNoticeState(context.Background(), &reader.notice))
		defer cancel()
		defer context.AfterFunc(ctx, cancel)()
		reader.notice.Forget()
		s.sessions.LoadAndSave(s.loadUser(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u := currentUser(r.Context())
			if userID(u) != want {
				gone = true
				return
			}
			reader.read, reader.epoch, reader.user, reader.access = true, epoch, u, s.viewerAccess(r)
			s.mux.ServeHTTP(w, r)
		}))).ServeHTTP(rec, sub.WithContext(base))
	}
	if gone || rec.Code != http.StatusOK {
		return nil, false, gone
	}
	return rec.Body.Bytes(), true, false
}

func userID(u *tributary.User) int64 {
	if u == nil {
		return 0
	}
	return u.ID
}

// writeEvent writes one server-sent event: its id, its name and its data, line by line.
func writeEvent(w http.ResponseWriter, id int, name string, data []byte) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "id: %d\nevent: %s\n", id, name)
	for line := range bytes.SplitSeq(bytes.TrimRight(data, "\n"), []byte("\n")) {
		b.WriteString("data: ")
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}
