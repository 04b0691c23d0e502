package db_test

import (
	"context"
	"fmt"
	"reflect"
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

			// The reads every page makes (functions whose plans the server keeps, migration 00059)
			// answer through the pooler as they do straight from PostgreSQL.
			plain, err := db.Open(ctx, direct)
			if err != nil {
				t.Fatal(err)
			}
			defer plain.Close()
			token := "pooled-session-" + mode
			data, err := db.SessionData(v.ID, now.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Sessions().CommitCtx(ctx, token, data, now.Add(time.Hour)); err != nil {
				t.Fatalf("session: %v", err)
			}
			type reads struct {
				User, Unread int64
				Access       tributary.Viewer
				Followed     []int64
				Fresh        map[int64]time.Time
				Liked        map[int64]int64
			}
			read := func(st *db.Store) (r reads) {
				sctx, su := db.WithSessionUser(ctx)
				if _, found, err := st.Sessions().FindCtx(sctx, token); err != nil || !found {
					t.Fatalf("session read: found %v, %v", found, err)
				}
				state, err := st.LoadViewer(ctx, db.ViewerQuery{ViewerID: v.ID, SeenTo: now, FreshSince: now.Add(-time.Hour),
					FenceTemplate: "home", AccessKnown: true})
				if err != nil {
					t.Fatalf("viewer state: %v", err)
				}
				liked, err := st.LikedOf(ctx, v, []int64{post.AnchorID})
				if err != nil {
					t.Fatalf("likes: %v", err)
				}
				return reads{User: su.User.ID, Unread: int64(su.Unread), Access: su.Access, Followed: state.Followed.IDs(),
					Fresh: state.Fresh, Liked: liked}
			}
			pooledReads, directReads := read(s), read(db.NewStore(plain))
			if pooledReads.User != v.ID || len(pooledReads.Liked) != 1 || len(pooledReads.Fresh) != 1 {
				t.Errorf("through the pooler: %+v; want the session's user, the share fresh and liked", pooledReads)
			}
			if !reflect.DeepEqual(pooledReads, directReads) {
				t.Errorf("through the pooler:\n%+v\nstraight:\n%+v", pooledReads, directReads)
			}
		})
	}
}
