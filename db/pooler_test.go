package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
	"tributary/seed"
)

// Through PgBouncer in transaction mode, with the statement mode made for it
// (cache_describe; the default, named prepared statements, fails at the first statement that
// lands on another server connection), the store's key paths work: the generator's bulk load, a share, a like, a comment,
// the post page and its thread, and the snapshot's refreshes one after another (its session
// lock on the direct connection, never left behind on a pooled one). The bouncer hands
// transactions to its two server connections in turn, so a prepared statement or session
// state relied on across transactions fails here at once.
func TestStoreThroughPgBouncer(t *testing.T) {
	for _, mode := range []string{"cache_describe"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			direct := dbtest.DSN(t)
			pooled := dbtest.Bouncer(t, direct)
			m, err := db.ParseExecMode(mode)
			if err != nil {
				t.Fatal(err)
			}
			pool, err := db.OpenWith(ctx, pooled, db.Options{ExecMode: m})
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			session, err := db.OpenWith(ctx, direct, db.Options{ExecMode: m})
			if err != nil {
				t.Fatal(err)
			}
			defer session.Close()
			s := db.NewStore(pool)
			s.Session = session

			if _, err := seed.Fill(ctx, s, seed.Config{Users: 60, Posts: 300, Seed: 3, End: seedEnd,
				DemoPasswordHash: "$2a$04$test-hash", DemoPassword: "tributary"}); err != nil {
				t.Fatalf("seed through the pooler: %v", err)
			}
			for i := range 3 { // each refresh takes and gives back the lock
				res, err := s.Refresh(ctx, seedEnd.Add(time.Duration(i)*time.Hour))
				if err != nil || res.Skipped {
					t.Fatalf("refresh %d: %v, %v; want it done", i, res, err)
				}
			}
			if res, err := s.RefreshSnapshot(ctx, seedEnd.Add(5*time.Hour)); err != nil || res.Skipped {
				t.Fatalf("full rebuild after the refreshes: %v, %v; want it done", res, err)
			}

			v, err := s.ViewerAccess(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			now := time.Now().UTC().Truncate(time.Microsecond)
			p, err := tributary.Prepare(tributary.NewPost{AuthorID: v.ID, URL: fmt.Sprintf("https://example.com/pooled/%s", mode),
				Title: "Through the pooler", CreatedAt: now})
			if err != nil {
				t.Fatal(err)
			}
			id, err := s.Share(ctx, p, db.Destination{OwnFeed: true})
			if err != nil {
				t.Fatalf("share: %v", err)
			}
			if err := s.Like(ctx, v, id, now); err != nil {
				t.Fatalf("like: %v", err)
			}
			for i := range 3 {
				if _, _, err := s.AddComment(ctx, v, id, fmt.Sprintf("comment %d", i), now.Add(time.Duration(i)*time.Second), tributary.DefaultBumpRule); err != nil {
					t.Fatalf("comment: %v", err)
				}
			}
			post, likers, err := s.PostPage(ctx, v, id, 10)
			if err != nil {
				t.Fatalf("post page: %v", err)
			}
			if post.Title != "Through the pooler" || len(likers) != 1 {
				t.Errorf("post page: %q with %d likers; want the share with its one liker", post.Title, len(likers))
			}
			thread, err := s.PostThread(ctx, v, id, tributary.ThreadCursor{}, 10)
			if err != nil || len(thread.Comments) != 3 {
				t.Fatalf("thread: %d comments, %v; want 3", len(thread.Comments), err)
			}
		})
	}
}
