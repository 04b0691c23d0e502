package db_test

import (
	"context"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// An item page counts every share its reader may read, and the people who made them (the
// count its card gives), however many it lists; the shares past a page are on the next.
func TestItemPostsCountAndPageEveryShare(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Store(t)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	const url = "https://arxiv.org/abs/2411.00001"
	var anchor int64
	share := func(author int64, at time.Time) {
		t.Helper()
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: author, URL: url, CreatedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		id, err := store.CreatePost(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Pool.QueryRow(ctx, "SELECT anchor_id FROM posts WHERE id = $1", id).Scan(&anchor); err != nil {
			t.Fatal(err)
		}
	}
	var users []int64
	for _, h := range []string{"ada", "bob", "cy"} {
		u, err := store.CreateUser(ctx, db.NewUser{Handle: h, DisplayName: h, CreatedAt: now.Add(-time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, u.ID)
	}
	const shares = db.ItemSharesPage + 5
	for i := range shares - 2 {
		share(users[0], now.Add(-time.Duration(i)*time.Minute))
	}
	share(users[1], now)
	share(users[2], now)

	for _, c := range []struct{ page, listed int }{{1, db.ItemSharesPage}, {2, 5}, {3, 0}} {
		got, err := store.ItemPosts(ctx, tributary.Anonymous, anchor, c.page)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Posts) != c.listed {
			t.Errorf("page %d lists %d shares, want %d", c.page, len(got.Posts), c.listed)
		}
		if c.listed > 0 && (got.Shares != shares || got.Sharers != 3) {
			t.Errorf("page %d counts %d shares by %d people, want %d by 3", c.page, got.Shares, got.Sharers, shares)
		}
	}
}
