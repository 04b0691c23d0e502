package db

import (
	"context"
	"fmt"
	"time"

	"tributary"
	"tributary/db/internal/dbq"
)

// EventCardSeen is the event type of a card being looked at (seed 000).
const EventCardSeen = 7

// Event is something a viewer did with an item.
type Event struct {
	ViewerID int64
	Type     int16
	AnchorID int64
	DwellMs  int32
	At       time.Time
}

// AddEvents stores events in one COPY.
func (s *Store) AddEvents(ctx context.Context, events []Event) error {
	rows := make([]dbq.InsertEventsParams, len(events))
	for i, e := range events {
		rows[i] = dbq.InsertEventsParams{ViewerID: e.ViewerID, Type: e.Type, AnchorID: e.AnchorID, DwellMs: e.DwellMs, CreatedAt: e.At}
	}
	if _, err := s.q.InsertEvents(ctx, rows); err != nil {
		return fmt.Errorf("db: add events: %w", err)
	}
	return nil
}

// ReadableAnchors returns which of ids are items the viewer may read.
func (s *Store) ReadableAnchors(ctx context.Context, ids []int64, v tributary.Viewer) (map[int64]bool, error) {
	found, err := s.q.ReadableAnchors(ctx, dbq.ReadableAnchorsParams{Ids: ids, ViewerID: v.ID,
		Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	if err != nil {
		return nil, fmt.Errorf("db: readable anchors: %w", err)
	}
	m := make(map[int64]bool, len(found))
	for _, id := range found {
		m[id] = true
	}
	return m, nil
}
