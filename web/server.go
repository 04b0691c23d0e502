// Package web is Tributary's HTTP layer: routes, thin handlers, middleware and the one
// mapping from application errors to HTTP statuses.
package web

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/alexedwards/scs/v2"

	"tributary"
	"tributary/db"
	"tributary/feed"
	"tributary/site"
	"tributary/views"
)

// Server holds what handlers need; it is built once in main and passed down.
type Server struct {
	store    *db.Store
	feed     *feed.Service
	bus      *site.Bus // nil: this process is the whole site
	sessions *scs.SessionManager
	log      *slog.Logger
	now      func() time.Time
	// HashCost is the bcrypt cost; tests lower it.
	hashCost      int
	pollSeconds   int
	dwellFlush    string
	eventsPerUser limit // card_seen events per user
	outage        outageLog
	rateScale     float64 // multiplies every rate limit (load tests raise them)
	decoyOnce     sync.Once
	decoy         string
	metrics       *Metrics
	trusted       []netip.Prefix // proxies whose X-Forwarded-For/-Proto are believed
	serverTiming  bool
	bump          tributary.BumpRule
	live          *liveHub   // this instance's open live streams
	names         *userNames // who handles name, for the pages asked for by handle
}

// Config configures a Server.
type Config struct {
	Store        *db.Store
	Feed         *feed.Service // defaults to a service with the default configuration
	Bus          *site.Bus     // the site's event path, when instances share the database
	Log          *slog.Logger
	Now          func() time.Time // defaults to time.Now
	HashCost     int              // defaults to bcrypt.DefaultCost
	SecureCookie bool             // set the session cookie's Secure flag even over plain HTTP
	// TrustedProxies are the address ranges of the proxies in front of the site: from them,
	// X-Forwarded-For names the client and X-Forwarded-Proto says whether it used HTTPS.
	TrustedProxies []netip.Prefix
	ServerTiming   bool               // say in a Server-Timing header how long each answer took to make
	PollSeconds    int                // how often open feeds ask for new items (default 15; <0: never)
	EventsPerMin   int                // card_seen events accepted per user per minute (default 600)
	DwellFlushMs   int                // how often pages report dwell (0: the script's default)
	RateScale      float64            // multiplies every rate limit (0: 1; load tests raise it)
	Bump           tributary.BumpRule // when a comment bumps its post (zero: tributary.DefaultBumpRule)
	LiveCaps       LiveCaps           // open live streams per address, user and instance (0: DefaultLiveCaps')
	LiveHeartbeat  time.Duration      // the longest a live stream stays silent (0: 25 s)
}

// NewServer builds a Server with sessions stored in PostgreSQL.
func NewServer(cfg Config) *Server {
	sm := scs.New()
	sm.Store = cfg.Store.Sessions() // the scheduler deletes the expired
	sm.Codec = db.SessionCodec{}
	// At most 90 days from log-in, and 30 days unused: the store's own idle timeout
	// (db/sessions.go), since scs's IdleTimeout would rewrite the session row on every request.
	sm.Lifetime = 90 * 24 * time.Hour
	sm.Cookie.Name = sessionCookie
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Secure = cfg.SecureCookie
	s := &Server{store: cfg.Store, feed: cfg.Feed, bus: cfg.Bus, sessions: sm, log: cfg.Log, now: cfg.Now, hashCost: cfg.HashCost}
	if s.now == nil {
		s.now = time.Now
	}
	s.pollSeconds = cfg.PollSeconds
	if s.pollSeconds == 0 {
		s.pollSeconds = 15
	}
	if cfg.DwellFlushMs > 0 {
		s.dwellFlush = strconv.Itoa(cfg.DwellFlushMs)
	}
	s.eventsPerUser = eventsLimit(cfg.EventsPerMin)
	s.rateScale = cfg.RateScale
	s.trusted, s.serverTiming = cfg.TrustedProxies, cfg.ServerTiming
	s.bump = cfg.Bump
	if s.bump == (tributary.BumpRule{}) {
		s.bump = tributary.DefaultBumpRule
	}
	if s.rateScale <= 0 {
		s.rateScale = 1
	}
	if s.feed == nil {
		s.feed = feed.New(cfg.Store, feed.DefaultConfig(), s.now)
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.log = slog.New(requestIDHandler{s.log.Handler()})
	s.live = newLiveHub(cfg.Store, s.log, cfg.LiveCaps.orDefault())
	if cfg.LiveHeartbeat > 0 {
		s.live.heartbeat = cfg.LiveHeartbeat
	}
	s.names = newUserNames(cfg.Store, s.bus, s.now)
	if s.bus != nil {
		s.bus.Subscribe(s.live.siteChanged)
		cfg.Store.KeepUnread(s.bus.Up)
		s.bus.Subscribe(cfg.Store.UnreadHeard)
	}
	s.metrics = newMetrics(cfg.Store.Pool, s.feed.CacheStats, func() (uint64, uint64) {
		h, m := cfg.Store.RiverCounts()
		return uint64(h), uint64(m)
	}, s.bus.Up, s.live)
	sm.ErrorFunc = func(w http.ResponseWriter, r *http.Request, err error) { s.fail(w, r, err) }
	return s
}

// HTTPServer is the http.Server to serve the site with: a client gets 10 s to send a
// request's head and 60 s for the whole request, and an idle kept-alive connection is closed
// after 2 minutes, so slow or silent clients cannot hold connections without end. Open live
// streams end at its shutdown.
func (s *Server) HTTPServer() *http.Server { return s.httpServerFor(s.Handler()) }

func (s *Server) httpServerFor(h http.Handler) *http.Server {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		IdleTimeout: 2 * time.Minute}
	hs.RegisterOnShutdown(s.CloseStreams) // open live streams would hold the shutdown
	return hs
}

// Metrics are the server's Prometheus metrics (Metrics.Handler serves them).
func (s *Server) Metrics() *Metrics { return s.metrics }

// page builds the layout data of the current request.
func (s *Server) page(r *http.Request, title string) views.Page {
	unread, err := s.unread(r)
	if err != nil { // the badge is not worth failing a page for
		s.log.WarnContext(r.Context(), "unread notifications", "err", err)
	}
	p := views.Page{
		Title:  title,
		User:   currentUser(r.Context()),
		Unread: unread,
		Flash:  s.sessions.PopString(r.Context(), "flash"),
		Now:    s.now(),

		DwellFlushMs: s.dwellFlush,
	}
	if action, back := s.sessions.PopString(r.Context(), "flash_undo"), s.sessions.PopString(r.Context(), "flash_undo_return"); action != "" && p.Flash != "" {
		p.FlashUndo = &views.Undo{Action: action, Return: back}
	}
	return p
}

// absoluteURL is path on the host the request came to (for link previews).
func absoluteURL(r *http.Request, path string) string {
	scheme := "http"
	if ri := infoOf(r.Context()); r.TLS != nil || ri != nil && ri.peer.https {
		scheme = "https"
	}
	return scheme + "://" + r.Host + path
}

// render answers with a page or fragment made whole first, in a buffer kept for the next:
// it goes out in one write with its length, not in a dozen chunked writes as it is made; the
// Server-Timing header counts its making (it is set as the answer starts); and a page that
// fails half-way is answered with an internal error rather than half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	buf := pageBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= pageBufferKept {
			buf.Reset()
			pageBuffers.Put(buf)
		}
	}()
	if err := c.Render(r.Context(), buf); err != nil {
		if r.Context().Err() != nil {
			return // the client is gone: nobody to answer
		}
		// Not through fail, whose error page is rendered here too.
		s.log.ErrorContext(r.Context(), "render", "path", r.URL.Path, "err", err)
		http.Error(w, "Internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// pageBuffers hold pages as they are rendered; one that grew past pageBufferKept (a long
// thread) is let go rather than kept.
var pageBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const pageBufferKept = 1 << 20

// accessChanged is called after a change in who may read what (or a deletion) committed:
// this instance's caches drop at once, and every other instance's before the response goes
// out, so the change holds everywhere from the next request on.
func (s *Server) accessChanged(ctx context.Context) {
	s.feed.AccessChanged()
	s.bus.Sync(ctx)
	s.live.accessChanged() // open pages' notices may count less now
}

// readersChanged is accessChanged for a change between users (a follow, a ban): what it
// changes concerns their reading alone, nothing anonymous visitors see. Every instance
// hears of it with the change's record (site_changes.readers), this one at once too.
func (s *Server) readersChanged(ctx context.Context, users ...int64) {
	s.bus.Sync(ctx)
	s.live.accessOfChanged(users)
}

// sessionsEnded is called after sessions of the request's user ended (a logout, a password
// changed): the change log names them (migration 00061), so the streams of those sessions end
// on every instance, this one at once.
func (s *Server) sessionsEnded(r *http.Request) {
	if u := currentUser(r.Context()); u != nil {
		s.readersChanged(r.Context(), u.ID)
	}
}

// flash shows msg on the next page rendered for this session.
func (s *Server) flash(r *http.Request, msg string) { s.sessions.Put(r.Context(), "flash", msg) }

// flashUndo shows msg as flash does, with a button that takes it back (no-JS pages' undo).
func (s *Server) flashUndo(r *http.Request, msg string, undo views.Undo) {
	s.flash(r, msg)
	s.sessions.Put(r.Context(), "flash_undo", undo.Action) // strings: the session codec's own types
	s.sessions.Put(r.Context(), "flash_undo_return", undo.Return)
}

type ctxKey int

const (
	userKey   ctxKey = iota // *tributary.User
	accessKey               // tributary.Viewer: the user's bans and private feeds, read with them
)

// currentUser is the logged-in user of a request, or nil.
func currentUser(ctx context.Context) *tributary.User {
	u, _ := ctx.Value(userKey).(*tributary.User)
	return u
}
