package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"tributary"
	"tributary/db"
)

// Live pages (seed 002's tier 1): an open feed page holds one server-sent-events stream,
// GET /live?src=<its notice>, where src is what the page's "N new" slot would poll. When a
// change that may concern the page is heard of (new posts, the talk of posts: through the
// site's event path, from any instance), the stream asks src again as the page's reader
// (the same handler, the reader's session and access, nothing else) and sends the notice
// when it changed. A change that the reader may not see changes nothing they are sent. The
// page polls src itself only while its stream is not open.

// liveEvery is the least time between two asks of one stream: a burst of changes costs each
// open page one ask.
const liveEvery = 250 * time.Millisecond

// liveHeartbeat is how often an idle stream sends a comment, so that proxies keep it open,
// and asks again.
const liveHeartbeat = 25 * time.Second

// liveHub is this instance's open streams.
type liveHub struct {
	mu      sync.Mutex
	streams map[chan struct{}]struct{}
	closed  bool
	done    chan struct{} // closed when the server shuts down: streams end
	// epoch moves at every change that may change who may read what, or whose session is
	// whose (and after a reset): a stream reads its reader's session and access again then,
	// and keeps them between new posts and talk.
	epoch atomic.Int64
}

func newLiveHub() *liveHub {
	return &liveHub{streams: map[chan struct{}]struct{}{}, done: make(chan struct{})}
}

// join adds a stream; its channel receives a value when the stream should ask again. ok is
// false after close.
func (h *liveHub) join() (wake chan struct{}, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, false
	}
	wake = make(chan struct{}, 1)
	h.streams[wake] = struct{}{}
	return wake, true
}

func (h *liveHub) leave(wake chan struct{}) {
	h.mu.Lock()
	delete(h.streams, wake)
	h.mu.Unlock()
}

// notify wakes every open stream (coalesced: a stream asks once however many notifications
// came while it waited).
func (h *liveHub) notify() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for wake := range h.streams {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
}

// open is how many streams are open.
func (h *liveHub) open() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.streams)
}

// close ends every stream, for a shutdown (open streams would keep it waiting).
func (h *liveHub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
}

// accessChanged wakes every stream to read its reader's session and access again.
func (h *liveHub) accessChanged() {
	h.epoch.Add(1)
	h.notify()
}

// siteChanged hears of the site's changes (from every instance): the streams ask again
// after new posts, talk, a change in access, or a reset (a change may have been missed).
func (h *liveHub) siteChanged(changes []db.SiteChange, reset bool) {
	switch {
	case reset || slices.ContainsFunc(changes, func(c db.SiteChange) bool { return !c.Live() }):
		h.accessChanged()
	case len(changes) > 0:
		h.notify()
	}
}

// CloseStreams ends every open live stream; call it when shutting down.
func (s *Server) CloseStreams() { s.live.close() }

// contentChanged is called after a write that open pages may hear of (a share, a like, a
// comment) committed: this instance's streams ask at once, every other instance's as soon as
// the site's wake-up reaches it.
func (s *Server) contentChanged() {
	s.live.notify()
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
	wake, ok := s.live.join()
	if !ok {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "The server is shutting down.", http.StatusServiceUnavailable)
		return
	}
	defer s.live.leave(wake)

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
	// date rather than replayed.
	ask := true
	for {
		if ask {
			notice, ok, gone := s.askLive(ctx, r, src, &reader)
			if gone {
				writeEvent(w, seq+1, "gone", nil)
				rc.Flush()
				return
			}
			if ok && !bytes.Equal(notice, sent) {
				seq++
				if writeEvent(w, seq, "pill", notice) != nil || rc.Flush() != nil {
					return
				}
				sent = notice
			}
			ask = false
			select { // at most one ask per liveEvery
			case <-ctx.Done():
				return
			case <-s.live.done:
				return
			case <-time.After(liveEvery):
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-s.live.done:
			return
		case <-wake:
			ask = true
		case <-heartbeat.C: // and ask again: the session may have ended elsewhere
			if _, err := fmt.Fprint(w, ": still here\n\n"); err != nil || rc.Flush() != nil {
				return
			}
			ask, reader.read = true, false
		}
	}
}

// liveReader is a stream's reader as its last full ask read them: their user and access,
// good while the hub's epoch stays where it was.
type liveReader struct {
	read   bool
	epoch  int64
	user   *tributary.User
	access tributary.Viewer
}

// askLive asks src as the stream's reader and returns the notice. The reader's session and
// access are read afresh (the stream may be open for hours; a follower removed meanwhile must
// not go on counting a private feed) whenever the hub's epoch moved since the last read, and
// at each heartbeat; between them only new posts and talk happened, and the last read holds.
// ok is false when no notice could be had (the database away): the page keeps what it shows;
// gone is true when the session no longer has the stream's reader (logged out): the stream
// ends.
func (s *Server) askLive(ctx context.Context, r *http.Request, src *url.URL, reader *liveReader) (notice []byte, ok, gone bool) {
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
		sub = sub.WithContext(context.WithValue(context.WithValue(ctx, userKey, reader.user), accessKey, reader.access))
		s.mux.ServeHTTP(rec, sub)
	} else {
		// A context without the stream's session and user in it, ended with the stream.
		base, cancel := context.WithCancel(context.Background())
		defer cancel()
		defer context.AfterFunc(ctx, cancel)()
		s.sessions.LoadAndSave(s.loadUser(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u := currentUser(r.Context())
			if userID(u) != want {
				gone = true
				return
			}
			*reader = liveReader{read: true, epoch: epoch, user: u, access: s.viewerAccess(r)}
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
