package web

import (
	"bytes"
	"context"
	"fmt"
	"net"
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

// CloseStreams ends every open live stream and waits until they have; call it when shutting
// down.
func (s *Server) CloseStreams() { s.live.close() }

// contentChanged is called after a write that open pages may hear of (a share, a like, a
// comment) committed. The site is woken once the writer's request is answered (observe): a
// thousand streams asking at once would otherwise share the cores with the rest of that
// request, its session saved and its answer rendered (tier 0 comes first).
func (s *Server) contentChanged(r *http.Request) {
	if u := currentUser(r.Context()); u != nil {
		s.feed.Wrote(u.ID) // their next page comes before the wake-up may have come round
	}
	if ri := infoOf(r.Context()); ri != nil {
		ri.changed = true
		return
	}
	s.wakeSite()
}

// wakeSite tells every instance's streams (this one's too) that content changed: they hear
// of it, with what it was about, as soon as the site's wake-up reaches them.
func (s *Server) wakeSite() {
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

// liveStream serves GET /live?src=…: the page's stream of notices. Over HTTP/1 the stream
// leaves net/http once its head is written (detach): an open page then costs its state and
// two small goroutines, not a request's goroutine with its middleware's stack and buffers.
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
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: pass events on as they come
	if out, head, ok := detach(w); ok {
		// The request's context ends when this handler returns; the stream's ends when the
		// page goes (its connection is read to notice), or the server shuts down.
		ctx, cancel := context.WithCancel(context.Background())
		r = detachedRequest(ctx, r)
		go func() {
			var b [1]byte
			out.Read(b[:]) // a page sends nothing more: a byte, an error or the deadline ends it
			cancel()
		}()
		go func() {
			defer s.live.leave(conn)
			defer out.Close()
			defer cancel()
			s.streamLive(ctx, r, src, conn, out, head)
		}()
		return
	}
	defer s.live.leave(conn)
	w.WriteHeader(http.StatusOK)
	s.streamLive(r.Context(), r, src, conn, flushed{w, http.NewResponseController(w)}, nil)
}

// detachedRequest is what a detached stream keeps of its request, in ctx: what its asks are
// made of (the headers, the session's user, the request id), nothing of the connection
// net/http no longer holds.
func detachedRequest(ctx context.Context, r *http.Request) *http.Request {
	for _, key := range []ctxKey{infoKey, userKey, accessKey} {
		if v := r.Context().Value(key); v != nil {
			ctx = context.WithValue(ctx, key, v)
		}
	}
	d := &http.Request{Method: r.Method, URL: r.URL, Proto: r.Proto, ProtoMajor: r.ProtoMajor, ProtoMinor: r.ProtoMinor,
		Header: r.Header, Body: http.NoBody, Host: r.Host, RemoteAddr: r.RemoteAddr, RequestURI: r.RequestURI, TLS: r.TLS}
	return d.WithContext(ctx)
}

// liveOut is where a stream's events go: written and sent on at once.
type liveOut interface {
	send(b []byte) error
}

// flushed is a stream still in its handler (HTTP/2, or a writer that cannot be detached).
type flushed struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (f flushed) send(b []byte) error {
	if _, err := f.w.Write(b); err != nil {
		return err
	}
	return f.rc.Flush()
}

// detachedConn is a stream's own connection, taken from net/http.
type detachedConn struct{ net.Conn }

// liveWriteTimeout bounds one write to a detached stream: a page that stopped reading ends.
const liveWriteTimeout = 10 * time.Second

// liveMaxAge bounds a detached stream's life (its read deadline): a connection that went
// silent without closing is let go, and the browser's EventSource opens a fresh stream.
const liveMaxAge = time.Hour

func (c detachedConn) send(b []byte) error {
	if err := c.SetWriteDeadline(time.Now().Add(liveWriteTimeout)); err != nil {
		return err
	}
	_, err := c.Write(b)
	return err
}

// detach takes the stream's HTTP/1 connection from net/http, and returns the head of the
// answer, with the headers set so far, for the stream to write first: no length and no
// chunks, the stream ends with the connection. ok is false when the connection cannot be
// taken (HTTP/2): the handler serves the stream.
func detach(w http.ResponseWriter) (c detachedConn, head []byte, ok bool) {
	h := w.Header().Clone()
	nc, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return detachedConn{}, nil, false
	}
	nc.SetReadDeadline(time.Now().Add(liveMaxAge)) // net/http's deadlines went with the connection
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 200 OK\r\n")
	h.Set("Connection", "close")
	h.Write(&b)
	b.WriteString("\r\n")
	return detachedConn{nc}, b.Bytes(), true
}

// streamLive sends a stream's events, after head (the answer's head, when the stream writes
// it), until its page goes (ctx), the reader is logged out, or the server shuts down.
func (s *Server) streamLive(ctx context.Context, r *http.Request, src *url.URL, conn *liveConn, out liveOut, head []byte) {
	if out.send(append(head, "retry: 2000\n\n"...)) != nil {
		return
	}
	var sent []byte
	var seq int
	var reader liveReader // the reader's session and access as last read
	heartbeat := time.NewTicker(heartbeatEvery())
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
				notice, ok, gone := s.askLiveAside(ctx, r, src, &reader)
				if gone {
					out.send(eventBytes(seq+1, "gone", nil))
					return
				}
				var events []byte
				if ok && !bytes.Equal(notice, sent) {
					seq++
					events = append(events, eventBytes(seq, "pill", notice)...)
					sent = notice
				}
				if lost || (asked && reader.epoch != before) || (!asked && reconnected) {
					// Who may read what changed (or too much was said at once, or the page was
					// away for a while): the page checks every card it shows.
					seq++
					events = append(events, eventBytes(seq, "recheck", nil)...)
				} else if cards := talkedCards(talk, reader.access); len(cards) > 0 {
					seq++
					events = append(events, eventBytes(seq, "talk", cards)...)
				}
				if len(events) > 0 && out.send(events) != nil {
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
			if out.send([]byte(": still here\n\n")) != nil {
				return
			}
			ask, force, reader.read = true, true, false
		}
	}
}

// askLiveAside asks on a goroutine of its own, so that the stream's goroutine, which waits for
// hours, keeps the small stack of its loop rather than the deepest of its asks.
func (s *Server) askLiveAside(ctx context.Context, r *http.Request, src *url.URL, reader *liveReader) (notice []byte, ok, gone bool) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		notice, ok, gone = s.askLive(ctx, r, src, reader)
	}()
	<-done
	return notice, ok, gone
}

// pageAuthor is the user whose page src is the notice of (/u/{handle}?new=…: only their
// posts are new there), 0 for every other page.
func (s *Server) pageAuthor(ctx context.Context, src *url.URL) int64 {
	handle, ok := strings.CutPrefix(src.Path, "/u/")
	if !ok || handle == "" || strings.Contains(handle, "/") {
		return 0
	}
	u, err := s.names.byHandle(ctx, handle)
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
		s.session(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u := currentUser(r.Context())
			if userID(u) != want {
				gone = true
				return
			}
			reader.read, reader.epoch, reader.user, reader.access = true, epoch, u, s.viewerAccess(r)
			s.mux.ServeHTTP(w, r)
		})).ServeHTTP(rec, sub.WithContext(base))
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

// eventBytes is one server-sent event: its id, its name and its data, line by line.
func eventBytes(id int, name string, data []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "id: %d\nevent: %s\n", id, name)
	for line := range bytes.SplitSeq(bytes.TrimRight(data, "\n"), []byte("\n")) {
		b.WriteString("data: ")
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}
