package web

import (
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	"tributary"
	"tributary/db"
)

// Limits of card_seen ingestion.
const (
	maxEventBatch = 100
	maxDwellMs    = 60_000 // one report of one card; longer is a stuck tab, not reading
	maxEventBody  = 64 << 10
)

type seenReport struct {
	Events []struct {
		Item    int64 `json:"item"`
		DwellMs int64 `json:"dwell_ms"`
	} `json:"events"`
}

// parseSeenReport reads and checks a batch of dwell events; every failure is a plain
// invalid-input error.
func parseSeenReport(body []byte) (seenReport, error) {
	var rep seenReport
	if err := json.Unmarshal(body, &rep); err != nil {
		return rep, tributary.Errorf(tributary.EInvalid, "Request body must be JSON like {\"events\": [{\"item\": 1, \"dwell_ms\": 1800}]}.")
	}
	if n := len(rep.Events); n == 0 || n > maxEventBatch {
		return rep, tributary.Errorf(tributary.EInvalid, "Send between 1 and %d events at a time, got %d.", maxEventBatch, n)
	}
	for i, e := range rep.Events {
		if e.DwellMs <= 0 || e.DwellMs > maxDwellMs {
			return rep, tributary.Errorf(tributary.EInvalid, "Event %d: dwell_ms must be between 1 and %d, got %d.", i+1, maxDwellMs, e.DwellMs)
		}
	}
	return rep, nil
}

// events records card_seen dwell reported by the page's tracker (static/js/dwell.js).
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r.Context())
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxEventBody))
	if err != nil {
		s.fail(w, r, tributary.Errorf(tributary.EInvalid, "Request body is too large (at most %d bytes).", maxEventBody))
		return
	}
	rep, err := parseSeenReport(body)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	ids := make([]int64, len(rep.Events))
	for i, e := range rep.Events {
		ids[i] = e.Item
	}
	v := s.viewerAccess(r)
	known, err := s.store.ReadableAnchors(r.Context(), ids, v)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	now := s.now()
	events := make([]db.Event, len(rep.Events))
	for i, e := range rep.Events {
		if !known[e.Item] {
			s.fail(w, r, tributary.Errorf(tributary.EInvalid, "Event %d: no item %d.", i+1, e.Item))
			return
		}
		events[i] = db.Event{ViewerID: u.ID, Type: db.EventCardSeen, AnchorID: e.Item, DwellMs: int32(e.DwellMs), At: now}
	}
	if !s.limiter.allow(u.ID, len(events)) {
		s.fail(w, r, tributary.Errorf(tributary.ETooMany, "Too many events; slow down."))
		return
	}
	if err := s.store.AddEvents(r.Context(), events); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// eventLimiter caps events per user per minute (a fixed window per user).
type eventLimiter struct {
	perMin int
	now    func() time.Time
	mu     sync.Mutex
	users  map[int64]*window
}

type window struct {
	start time.Time
	n     int
}

func newEventLimiter(perMin int, now func() time.Time) *eventLimiter {
	if perMin <= 0 {
		perMin = 600
	}
	return &eventLimiter{perMin: perMin, now: now, users: map[int64]*window{}}
}

func (l *eventLimiter) allow(user int64, n int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	w := l.users[user]
	if w == nil || now.Sub(w.start) >= time.Minute {
		if len(l.users) > 100_000 { // forget idle users rather than grow without bound
			clear(l.users)
		}
		w = &window{start: now}
		l.users[user] = w
	}
	if w.n+n > l.perMin {
		return false
	}
	w.n += n
	return true
}
