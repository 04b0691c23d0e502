package web

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"tributary"
	"tributary/db"
)

// statusRecorder remembers a response's status and, when timing (Config.ServerTiming), says
// as the response starts how long the server had worked on it in a Server-Timing header
// ("app;dur=" in milliseconds): the bench reads it as the server-side latency. Handlers
// encode their answer before writing it, so the first write comes when the work is done.
type statusRecorder struct {
	http.ResponseWriter
	status  int
	start   time.Time
	started bool
	timing  bool
}

func (r *statusRecorder) begin() {
	if !r.started {
		r.started = true
		if !r.timing {
			return
		}
		r.Header().Set("Server-Timing", fmt.Sprintf("app;dur=%.3f", float64(time.Since(r.start).Microseconds())/1000))
	}
}

func (r *statusRecorder) WriteHeader(code int) {
	r.begin()
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.begin()
	return r.ResponseWriter.Write(b)
}

// Flush lets streaming responses (server-sent events) through the recorder.
func (r *statusRecorder) Flush() {
	r.begin()
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Hijack lets a live stream take its connection through the compressing writer, which asks
// the writer it wraps for Hijack itself rather than unwrapping it.
func (r *statusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(r.ResponseWriter).Hijack()
}

func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.fail(w, r, fmt.Errorf("panic: %v", v))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// session loads the request's session and puts its user in the request context: read with
// the session when its row names them (db.SessionStore), else by id. Over HTTPS the session
// cookie is a Secure __Host- cookie (hostCookies). The badge's request may be answered
// before, from what this instance kept (keptBadge).
func (s *Server) session(next http.Handler) http.Handler {
	load := s.sessions.LoadAndSave(s.loadUser(next))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.keptBadge(w, r) {
			return
		}
		ctx, su := db.WithSessionUser(r.Context())
		su.Ahead = s.readAhead(r)
		su.UserAgent = userAgent(r)
		if s.isHTTPS(r) {
			hostCookies(w, r.WithContext(ctx), load)
			return
		}
		load.ServeHTTP(w, r.WithContext(ctx))
	})
}

// readAhead is, for a request of a home feed page, what its page will read first, for
// the session's read to bring along in the same round trip (db.SessionUser.Ahead); nil for
// other requests.
func (s *Server) readAhead(r *http.Request) func(int64) (db.Ahead, bool) {
	if r.Method != http.MethodGet || !homePages[r.URL.Path] {
		return nil
	}
	q, err := tributary.ParseFeedQuery(r.URL.Query())
	if err != nil {
		return nil
	}
	return s.feed.ReadAhead(q)
}

// loadUser puts the session's user in the request context.
func (s *Server) loadUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := s.sessions.GetInt64(r.Context(), db.SessionUserKey)
		if id == 0 {
			next.ServeHTTP(w, r)
			return
		}
		u, access, err := s.userWithAccess(r.Context(), id)
		if tributary.ErrorCode(err) == tributary.ENotFound {
			s.sessions.Remove(r.Context(), db.SessionUserKey) // the account is gone
			next.ServeHTTP(w, r)
			return
		} else if err != nil {
			s.fail(w, r, err)
			return
		}
		ctx := context.WithValue(context.WithValue(r.Context(), userKey, &u), accessKey, access)
		if r.Method == http.MethodPost && r.URL.Path != "/events" && s.store.Replicated() {
			s.sessions.Put(ctx, "wrote_at", s.now().Unix())
		}
		if wrote := s.sessions.GetInt64(ctx, "wrote_at"); wrote > 0 && s.now().Unix()-wrote < readYourWrites {
			ctx = db.Primary(ctx) // what they just wrote may not have reached a read replica yet
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// userWithAccess is the signed-in user and their access: as the session's read found them,
// or read now.
func (s *Server) userWithAccess(ctx context.Context, id int64) (tributary.User, tributary.Viewer, error) {
	if su := db.SessionUserOf(ctx); su != nil && su.User.ID == id { // id is not 0
		return su.User, su.Access, nil
	}
	return s.store.UserWithAccess(ctx, id)
}

// readYourWrites is how long (seconds) after a write a reader's reads all go to the primary.
const readYourWrites = 10

// requireUser sends anonymous visitors to the login page (or 401 for JSON clients).
func (s *Server) requireUser(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if currentUser(r.Context()) != nil {
			h(w, r)
			return
		}
		if wantsJSON(r) || r.Method != http.MethodGet {
			s.fail(w, r, tributary.Errorf(tributary.EUnauthorized, "Log in first."))
			return
		}
		http.Redirect(w, r, "/login?next="+r.URL.EscapedPath(), http.StatusSeeOther)
	}
}
