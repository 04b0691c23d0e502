package db_test

import (
	"context"
	"testing"
	"time"

	"tributary/db"
	"tributary/db/dbtest"
	"tributary/seed"
)

// Store tests that need a whole world (filter feeds, conversations) take one from the
// generator; its own checks live in package seed.

var seedEnd = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// seedSmall is a small world: big enough for popular posts and long threads, loaded in
// about a second.
func seedSmall(n int64) seed.Config {
	return seed.Config{Users: 300, Posts: 2000, Seed: n, End: seedEnd,
		DemoPasswordHash: "$2a$04$test-hash", DemoPassword: "tributary"}
}

// seeded returns a Store on a fresh database filled with the world cfg describes.
func seeded(t *testing.T, cfg seed.Config) (*db.Store, seed.Result) {
	t.Helper()
	s := dbtest.Store(t)
	res, err := seed.Fill(context.Background(), s, cfg)
	if err != nil {
		t.Fatalf("seed.Fill: %v", err)
	}
	return s, res
}

// seedInt runs a query returning one number.
func seedInt(t *testing.T, s *db.Store, q string, args ...any) float64 {
	t.Helper()
	var v float64
	if err := s.Pool.QueryRow(context.Background(), q, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}
