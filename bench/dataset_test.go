package bench

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tributary/db"
	"tributary/db/dbtest"
	seeding "tributary/seed"
)

// Restoring the dataset deletes a run's posts with foreign keys unchecked: what would have
// cascaded from them goes too, so that runs do not pile up notifications of posts long gone.
func TestRestoreLeavesNoNotificationOfADeletedPost(t *testing.T) {
	ctx := context.Background()
	pool := smallWorld(t)
	var d DatasetInfo
	if err := pool.QueryRow(ctx, `SELECT (SELECT max(id) FROM posts), (SELECT max(id) FROM anchors),
		coalesce((SELECT max(id) FROM events), 0)`).Scan(&d.MaxPost, &d.MaxAnchor, &d.MaxEvent); err != nil {
		t.Fatal(err)
	}
	// A run's post (a seeded one's copy), liked by someone its author hears from.
	var post, author, anchor int64
	if err := pool.QueryRow(ctx, `INSERT INTO posts (author_id, anchor_id, url, title, body, canonical_url, anchor_url,
			kind, host, link_hosts, linked_urls, image_count, url_count, sci_score, tags, is_public, protected_owner_ids,
			private_feed_ids, created_at, bumped_at, anchor_kind, like_count, comment_count, mentions, in_own_feed, is_direct, group_feed_ids)
		SELECT author_id, anchor_id, url, title, body, canonical_url, anchor_url, kind, host, link_hosts, linked_urls,
			image_count, url_count, sci_score, tags, true, '{}', '{}', now(), now(), anchor_kind, 0, 0, mentions, in_own_feed,
			is_direct, '{}'
		  FROM posts WHERE deleted_at IS NULL ORDER BY id LIMIT 1
		RETURNING id, author_id, anchor_id`).Scan(&post, &author, &anchor); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO likes (post_id, user_id, anchor_id, public)
		SELECT $1, u.id, $3, true FROM users u WHERE u.id <> $2 AND NOT in_ban(u.id, $2) ORDER BY u.id LIMIT 1`,
		post, author, anchor); err != nil {
		t.Fatal(err)
	}
	orphans := func() (n int) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM notifications n
			WHERE n.post_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM posts p WHERE p.id = n.post_id)`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var told int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM notifications WHERE post_id = $1`, post).Scan(&told); err != nil {
		t.Fatal(err)
	}
	if told != 1 {
		t.Fatalf("the like made %d notifications, want 1", told)
	}
	if err := restore(ctx, pool, d); err != nil {
		t.Fatal(err)
	}
	if n := orphans(); n != 0 {
		t.Errorf("after restoring: %d notifications of posts that are gone", n)
	}
}

// smallWorld is a fresh database holding a seeded world of 10 users and 30 posts.
func smallWorld(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := dbtest.Pool(t)
	if _, err := seeding.Fill(context.Background(), db.NewStore(pool), seeding.Config{Users: 10, Posts: 30, Seed: 3,
		End: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), DemoPasswordHash: "x", DemoPassword: "x"}); err != nil {
		t.Fatal(err)
	}
	return pool
}
