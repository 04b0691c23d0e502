package seed_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"tributary/db/dbtest"
)

// The seeder fills the filter feeds before it builds their indexes again: they come back as
// the migrations made them, the primary key as a constraint.
func TestSeedBuildsFilterFeedIndexesAgain(t *testing.T) {
	s, _ := seeded(t, seedSmall(1))
	var defs []string
	rows, err := s.Pool.Query(context.Background(), `SELECT indexdef FROM pg_indexes WHERE tablename = 'filter_posts' ORDER BY indexname`)
	if err == nil {
		defs, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil {
		t.Fatal(err)
	}
	var pkey string
	if err := s.Pool.QueryRow(context.Background(), `SELECT coalesce((SELECT pg_get_constraintdef(oid) FROM pg_constraint
		WHERE conrelid = 'filter_posts'::regclass AND contype = 'p'), '')`).Scan(&pkey); err != nil {
		t.Fatal(err)
	}
	fresh := dbtest.Store(t)
	rows, err = fresh.Pool.Query(context.Background(), `SELECT indexdef FROM pg_indexes WHERE tablename = 'filter_posts' ORDER BY indexname`)
	if err != nil {
		t.Fatal(err)
	}
	want, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(defs, want) || pkey != "PRIMARY KEY (feed, post_id)" {
		t.Errorf("filter_posts after seeding: indexes %q, primary key %q; want %q and PRIMARY KEY (feed, post_id)", defs, pkey, want)
	}
}
