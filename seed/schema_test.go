package seed_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"tributary/db"
	"tributary/db/dbtest"
)

// The seeder writes rows before it builds their tables' indexes, and lets the follows
// trigger fire while foreign keys are skipped: indexes and triggers come back as the
// migrations made them, primary keys and unique constraints as constraints.
func TestSeedLeavesTheSchemaAsMigrated(t *testing.T) {
	s, _ := seeded(t, seedSmall(1))
	fresh := dbtest.Store(t)
	got, want := indexDefs(t, s), indexDefs(t, fresh)
	if len(want) < 30 {
		t.Fatalf("a fresh database has %d indexes and constraints on the seeded tables; the query is wrong", len(want))
	}
	if !slices.Equal(got, want) {
		for _, d := range got {
			if !slices.Contains(want, d) {
				t.Errorf("after seeding, unexpected: %s", d)
			}
		}
		for _, d := range want {
			if !slices.Contains(got, d) {
				t.Errorf("after seeding, missing: %s", d)
			}
		}
	}
}

// indexDefs lists the indexes, key constraints and triggers of the tables the seeder writes.
func indexDefs(t *testing.T, s *db.Store) []string {
	t.Helper()
	rows, err := s.Pool.Query(context.Background(), `
		SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = ANY ($1)
		UNION ALL
		SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
		 WHERE contype IN ('p', 'u', 'f') AND conrelid::regclass::text = ANY ($1)
		UNION ALL
		SELECT tgrelid::regclass::text || ' trigger ' || tgname || ' enabled ' || tgenabled::text FROM pg_trigger
		 WHERE NOT tgisinternal AND tgrelid::regclass::text = ANY ($1)
		ORDER BY 1`,
		[]string{"users", "feeds", "follows", "anchors", "posts", "feed_posts", "events", "likes", "comments", "post_bumps", "filter_posts"})
	if err != nil {
		t.Fatal(err)
	}
	defs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return defs
}
