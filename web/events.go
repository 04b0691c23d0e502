package web

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
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
	// Limited before anything is read: a flood costs one counting statement a request.
	if s.limitedBy(w, r, s.eventsPerUser, strconv.FormatInt(u.ID, 10), len(rep.Events)) {
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
	if err := s.store.AddEvents(r.Context(), events); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// eventsLimit caps the card_seen events a user reports per minute (default 600), counted in
// PostgreSQL like every limit, so it holds however many instances the reports reach.
func eventsLimit(perMin int) limit {
	if perMin <= 0 {
		perMin = 600
	}
	return limit{"events-user", perMin, time.Minute}
}
