package web

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"time"

	"tributary"
	"tributary/db"
)

// Live pages (seed 002's tier 1): an open feed page holds one server-sent-events stream,
// GET /live?src=<its notice>, where src is what the page's "N new" slot would poll. When a
// change that may concern the page is heard of (new posts, the talk of posts: through the
// site's event path, from any instance), the stream asks src again as the page's reader
// (the poll's own function, notices.go, with the reader's session and access; src is one of
// the feeds' notices, nothing else) and sends the notice when it changed. A change that the
// reader may not see changes nothing they are sent. The page polls src itself only while its
// stream is not open; streams are capped (LiveCaps).

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
		s.live.notify(true, false, nil, nil, nil)
		return
	}
	s.bus.Changed()
}

// liveStream serves GET /live?src=…: the page's stream of notices. Over HTTP/1 the stream
// leaves net/http once its head is written (detach): an open page then costs its state and
// two small goroutines, not a request's goroutine with its middleware's stack and buffers.
func (s *Server) liveStream(w http.ResponseWriter, r *http.Request) {
	src, err := s.liveNotice(r, r.URL.Query().Get("src"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	conn, err := s.live.join(s.liveClient(r), userID(currentUser(r.Context())))
	if err != nil {
		w.Header().Set("Retry-After", strconv.Itoa(int(liveRetry(err).Seconds())))
		if err == errLiveClosing {
			http.Error(w, "The server is shutting down.", http.StatusServiceUnavailable)
			return
		}
		s.fail(w, r, err)
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

// liveClient is the client a stream counts against (LiveCaps.PerAddress): its address as
// every limit keys it (an IPv6 one as its /64, which one client holds whole; behind a
// trusted proxy, the address it names).
func (s *Server) liveClient(r *http.Request) string { return s.clientKey(r) }

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
func (s *Server) streamLive(ctx context.Context, r *http.Request, src notice, conn *liveConn, out liveOut, head []byte) {
	if out.send(append(head, "retry: 2000\n\n"...)) != nil {
		return
	}
	var sent []byte
	var seq int
	sentUnread := -1      // the reader's unread notifications as last sent (the header's badge)
	var reader liveReader // the reader's session and access as last read
	conn.setPage(src.author)
	heartbeat := time.NewTicker(heartbeatEvery(s.live.heartbeat))
	defer heartbeat.Stop()
	// The first ask is at once: after a reconnect (Last-Event-ID) the notice is brought up to
	// date and the page checks its cards, rather than what was missed being replayed.
	ask, asked, force := true, false, false
	reconnected := r.Header.Get("Last-Event-ID") != ""
	for {
		if ask {
			ask = false
			news := conn.taken()
			if !asked || news.must || news.reread || news.lost || force || news.unread || len(news.talk) > 0 || newToPage(news.arrived, &reader, src.author) {
				countUnread := !asked || force || news.unread
				force = false
				if news.reread {
					reader.read, reader.keepState = false, false
				}
				// Only posts made: the notice may be told from the last count, without asking.
				onlyPosts := !countUnread && !news.must && !news.reread && !news.lost && len(news.talk) == 0
				var notice []byte
				ok, gone := false, false
				if onlyPosts {
					notice, ok = s.countArrived(ctx, src, &reader, news.arrived)
				}
				if !ok {
					notice, ok, gone = s.askLive(ctx, r, src, &reader, countUnread)
				}
				if !ok {
					reader.notice.Missed() // what woke the stream is in no count: the next is asked
				}
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
				if ok {
					conn.setReader(reader.access)
				}
				if ok && reader.user != nil && reader.unread >= 0 && reader.unread != sentUnread {
					seq++
					events = append(events, eventBytes(seq, "unread", []byte(strconv.Itoa(reader.unread)))...)
					sentUnread = reader.unread
				}
				if news.lost || (asked && news.reread) || (!asked && reconnected) {
					// Who may read what changed (or too much was said at once, or the page was
					// away for a while): the page checks every card it shows.
					seq++
					events = append(events, eventBytes(seq, "recheck", nil)...)
				} else if cards := talkedCards(news.talk, reader.access); len(cards) > 0 {
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
		case <-heartbeat.C:
			if out.send([]byte(": still here\n\n")) != nil {
				return
			}
			reader.beats++
			// While this instance hears the site's change log, the reader's session ended, their
			// access and their notifications changed come through it (the hub wakes the stream);
			// the reader is read again every liveStateBeats beats, for what the log names not:
			// an item hidden or a word muted elsewhere, the session's expiry by time.
			if s.bus.Up() && reader.beats%liveStateBeats != 0 {
				continue
			}
			ask, force, reader.read = true, true, false
			reader.keepState = reader.beats%liveStateBeats != 0
		}
	}
}

// newToPage reports whether any of the posts made may be new on the page: one the reader may
// read, by the page's author on a user's page, by someone the reader follows (or in a group)
// on their home. Any other post changes no notice of theirs.
func newToPage(arrived []db.LivePost, reader *liveReader, author int64) bool {
	return slices.ContainsFunc(arrived, func(p db.LivePost) bool { return mayBeNew(p, reader, author) })
}

// mayBeNew is newToPage's test of one post.
func mayBeNew(p db.LivePost, reader *liveReader, author int64) bool {
	if !reader.access.CanRead(p.Access) {
		return false
	}
	if author != 0 {
		return p.AuthorID == author
	}
	return reader.notice.MayCount(p.AuthorID, p.InGroup)
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
