package db

import (
	"context"
	"fmt"
	"time"

	"tributary/db/internal/dbq"
)

// Hit counts n hits of key in the current window (windows are fixed, of length window, on
// the database's clock, so every instance counts into the same one) and returns the hits
// so far and how long the window lasts yet.
func (s *Store) Hit(ctx context.Context, key string, n int, window time.Duration) (int, time.Duration, error) {
	r, err := s.q.HitRateLimit(ctx, dbq.HitRateLimitParams{Key: key, N: int32(n), WindowSecs: window.Seconds()})
	if err != nil {
		return 0, 0, fmt.Errorf("db: rate limit: %w", err)
	}
	return int(r.Hits), time.Duration(max(r.RetrySecs, 1)) * time.Second, nil
}

// PruneRateLimits forgets windows that started before before.
func (s *Store) PruneRateLimits(ctx context.Context, before time.Time) (int64, error) {
	n, err := s.q.PruneRateLimits(ctx, before)
	if err != nil {
		return 0, fmt.Errorf("db: prune rate limits: %w", err)
	}
	return n, nil
}
