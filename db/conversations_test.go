package db_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"tributary"
)

// A like, an unlike and a comment return the post card's talk in the same statement: it must
// be what PostTalk reads right after, for viewers in bans with some of the post's likers and
// commenters (left out of the counts and never named), liked or not. The post page's two
// statements read what Post, PostTalk, Likers and Threads read. A post the viewer may not
// read gets none of it (404, as for no post).
func TestConversationReadsAgree(t *testing.T) {
	s, _ := seeded(t, seedSmall(4))
	ctx := context.Background()
	var posts []int64
	rows, err := s.Pool.Query(ctx, "SELECT id FROM posts WHERE deleted_at IS NULL ORDER BY like_count + comment_count DESC, id LIMIT 12")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		posts = append(posts, id)
	}
	if rows.Err() != nil || len(posts) == 0 {
		t.Fatalf("no discussed posts: %v", rows.Err())
	}
	// people who liked or commented on a post: the bans of the viewers below.
	talkers := func(post int64) []int64 {
		var ids []int64
		if err := s.Pool.QueryRow(ctx, `SELECT coalesce(array_agg(DISTINCT u), '{}') FROM (
			SELECT user_id FROM likes WHERE post_id = $1 UNION ALL SELECT author_id FROM comments WHERE post_id = $1) t(u)`,
			post).Scan(&ids); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	rng := rand.New(rand.NewPCG(4, 12))
	now := time.Now().UTC().Truncate(time.Microsecond)
	banned, liked := 0, 0
	for step := range 240 {
		post := posts[rng.IntN(len(posts))]
		v, err := s.ViewerAccess(ctx, int64(1+rng.IntN(60)))
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range talkers(post) {
			if u != v.ID && rng.IntN(3) == 0 {
				v.Blocked = append(v.Blocked, u)
			}
		}
		banned += len(v.Blocked)
		now = now.Add(time.Duration(rng.IntN(5)) * time.Second) // some likes at the same instant
		var got tributary.Talk
		var op string
		switch rng.IntN(3) {
		case 0:
			op = "like"
			got, err = s.LikeTalk(ctx, v, post, now)
		case 1:
			op = "unlike"
			got, err = s.UnlikeTalk(ctx, v, post)
		default:
			op = "comment"
			_, _, got, err = s.AddCommentTalk(ctx, v, post, "Agreed, @ada #ml", now, tributary.DefaultBumpRule)
		}
		if err != nil {
			t.Fatalf("step %d: %s of %d by %d: %v", step, op, post, v.ID, err)
		}
		want, err := s.PostTalk(ctx, v, []int64{post})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want[post]) {
			t.Fatalf("step %d: %s of %d by %d (bans %v): returned %+v, PostTalk reads %+v", step, op, post, v.ID, v.Blocked, got, want[post])
		}
		if got.Liked {
			liked++
		}
	}
	if banned == 0 || liked == 0 {
		t.Fatalf("the test did not exercise bans (%d) or liked posts (%d)", banned, liked)
	}

	// The post page reads the post with its talk and likers in one statement and its thread
	// in another, each checking access: the same as Post, PostTalk, Likers and Threads.
	for step := range 60 {
		post := posts[rng.IntN(len(posts))]
		v, err := s.ViewerAccess(ctx, int64(1+rng.IntN(60)))
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range talkers(post) {
			if u != v.ID && rng.IntN(3) == 0 {
				v.Blocked = append(v.Blocked, u)
			}
		}
		got, likers, err := s.PostPage(ctx, v, post, 50)
		if err != nil {
			t.Fatalf("step %d: post page %d for %d: %v", step, post, v.ID, err)
		}
		cards, err := s.PostsByID(ctx, v, []int64{post})
		if err != nil || len(cards) != 1 {
			t.Fatalf("step %d: post %d: %v, %v", step, post, cards, err)
		}
		talk, err := s.PostTalk(ctx, v, []int64{post})
		if err != nil {
			t.Fatal(err)
		}
		want := cards[0]
		want.Talk = talk[post]
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: post page %d for %d (bans %v): %+v, want %+v", step, post, v.ID, v.Blocked, got, want)
		}
		wantLikers, err := s.Likers(ctx, v, post, 50)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(likers, wantLikers) {
			t.Fatalf("step %d: likers of %d for %d (bans %v): %+v, want %+v", step, post, v.ID, v.Blocked, likers, wantLikers)
		}
		thread, err := s.PostThread(ctx, v, post, tributary.ThreadCursor{}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		threads, err := s.Threads(ctx, v, []int64{post}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(thread.Comments) == 0 || !reflect.DeepEqual(thread, threads[post]) {
			t.Fatalf("step %d: thread of %d for %d (bans %v): %d comments, want %d", step, post, v.ID, v.Blocked, len(thread.Comments), len(threads[post].Comments))
		}
	}

	// A post the viewer may not read: nothing stored, no talk.
	var private int64
	err = s.Pool.QueryRow(ctx, "UPDATE posts SET is_public = false WHERE id = $1 RETURNING id", posts[0]).Scan(&private)
	if err != nil {
		t.Fatal(err)
	}
	outsider := tributary.Viewer{ID: 0}
	if tk, err := s.LikeTalk(ctx, outsider, private, now); tributary.ErrorCode(err) != tributary.ENotFound || !reflect.DeepEqual(tk, tributary.Talk{}) {
		t.Fatalf("like of an unreadable post: %+v, %v", tk, err)
	}
	if tk, err := s.UnlikeTalk(ctx, outsider, private); tributary.ErrorCode(err) != tributary.ENotFound || !reflect.DeepEqual(tk, tributary.Talk{}) {
		t.Fatalf("unlike of an unreadable post: %+v, %v", tk, err)
	}
	if _, _, tk, err := s.AddCommentTalk(ctx, outsider, private, "hi", now, tributary.DefaultBumpRule); tributary.ErrorCode(err) != tributary.ENotFound || !reflect.DeepEqual(tk, tributary.Talk{}) {
		t.Fatalf("comment on an unreadable post: %+v, %v", tk, err)
	}
	_, _, missing := s.PostPage(ctx, outsider, 1<<40, 50)
	if p, likers, err := s.PostPage(ctx, outsider, private, 50); err == nil || err.Error() != missing.Error() || p.ID != 0 || likers != nil {
		t.Fatalf("post page of an unreadable post: %+v %v, %v; want %v as for no post", p, likers, err, missing)
	}
	if thread, err := s.PostThread(ctx, outsider, private, tributary.ThreadCursor{}, 50); err != nil || len(thread.Comments) != 0 {
		t.Fatalf("thread of an unreadable post: %d comments, %v", len(thread.Comments), err)
	}
}

// LikedOf reads a like of a public share from the like alone (likes.public) and reads the
// post of the others: it must give each item the share AnchorTalk gives as liked, after
// liked shares went private (to a feed some likers read), protected or were deleted.
func TestLikedOfAgreesWithAnchorTalk(t *testing.T) {
	s, _ := seeded(t, seedSmall(5))
	ctx := context.Background()
	var feed int64
	if err := s.Pool.QueryRow(ctx, "SELECT min(id) FROM feeds").Scan(&feed); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		// a third of the liked shares go private to one feed, some protected, some deleted
		`UPDATE posts SET is_public = false, private_feed_ids = ARRAY[$1::bigint]
		  WHERE id IN (SELECT DISTINCT post_id FROM likes) AND id % 3 = 0`,
		`UPDATE posts SET is_public = false, protected_owner_ids = ARRAY[author_id]
		  WHERE id IN (SELECT DISTINCT post_id FROM likes) AND id % 5 = 1`,
		`UPDATE posts SET deleted_at = now() WHERE id IN (SELECT DISTINCT post_id FROM likes) AND id % 7 = 2`,
		// half the likers read that feed
		`INSERT INTO feed_readers (feed_id, user_id) SELECT DISTINCT $1::bigint, user_id FROM likes WHERE user_id % 2 = 0
		  ON CONFLICT DO NOTHING`,
	} {
		args := []any{}
		if strings.Contains(q, "$1") {
			args = append(args, feed)
		}
		if _, err := s.Pool.Exec(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	kinds := map[string]int{}
	rows, err := s.Pool.Query(ctx, `SELECT l.user_id, array_agg(DISTINCT l.anchor_id ORDER BY l.anchor_id)
		  FROM likes l GROUP BY l.user_id ORDER BY l.user_id LIMIT 80`)
	if err != nil {
		t.Fatal(err)
	}
	type liker struct {
		id      int64
		anchors []int64
	}
	var likers []liker
	for rows.Next() {
		var l liker
		if err := rows.Scan(&l.id, &l.anchors); err != nil {
			t.Fatal(err)
		}
		likers = append(likers, l)
	}
	if rows.Err() != nil || len(likers) == 0 {
		t.Fatalf("no likers: %v", rows.Err())
	}
	for _, l := range likers {
		v, err := s.ViewerAccess(ctx, l.id)
		if err != nil {
			t.Fatal(err)
		}
		v.Blocked = nil                     // AnchorTalk's liked share is for a viewer in no ban
		anchors := append(l.anchors, 0, -1) // and items nobody liked
		got, err := s.LikedOf(ctx, v, anchors)
		if err != nil {
			t.Fatal(err)
		}
		want, err := s.AnchorTalk(ctx, v, anchors)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range anchors {
			if got[a] != want[a].LikedPost {
				t.Fatalf("viewer %d, item %d: LikedOf gives share %d, AnchorTalk %d", l.id, a, got[a], want[a].LikedPost)
			}
			switch {
			case got[a] != 0:
				kinds["liked"]++
			case a > 0:
				kinds["liked, no longer readable"]++
			}
		}
	}
	if kinds["liked"] == 0 || kinds["liked, no longer readable"] == 0 {
		t.Fatalf("the test did not exercise both kinds of likes: %v", kinds)
	}
}

// Every read of a post's conversation applies the access rule itself: a post gone private to
// no one, or deleted, gives no talk, no likers and no thread, whoever asks (issue 43).
func TestConversationReadsApplyAccess(t *testing.T) {
	s, _ := seeded(t, seedSmall(4))
	ctx := context.Background()
	var posts []int64
	if err := s.Pool.QueryRow(ctx, `SELECT array_agg(id ORDER BY id) FROM (SELECT id FROM posts
		 WHERE deleted_at IS NULL AND is_public AND like_count > 0 AND comment_count > 0 ORDER BY id LIMIT 3) t`).Scan(&posts); err != nil || len(posts) < 3 {
		t.Fatalf("want 3 public posts with likes and comments: %v, %v", posts, err)
	}
	open, private, deleted := posts[0], posts[1], posts[2]
	if _, err := s.Pool.Exec(ctx, `UPDATE posts SET is_public = false, protected_owner_ids = '{}', private_feed_ids = '{}' WHERE id = $1`, private); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pool.Exec(ctx, `UPDATE posts SET deleted_at = now() WHERE id = $1`, deleted); err != nil {
		t.Fatal(err)
	}
	var viewer int64 // someone who wrote none of them
	if err := s.Pool.QueryRow(ctx, `SELECT min(id) FROM users WHERE id NOT IN (SELECT author_id FROM posts WHERE id = ANY($1))`, posts).Scan(&viewer); err != nil {
		t.Fatal(err)
	}
	for _, who := range []int64{0, viewer} {
		v, err := s.ViewerAccess(ctx, who)
		if err != nil {
			t.Fatal(err)
		}
		talk, err := s.PostTalk(ctx, v, posts)
		if err != nil {
			t.Fatal(err)
		}
		threads, err := s.Threads(ctx, v, posts, 50)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name     string
			post     int64
			readable bool
		}{{"public", open, true}, {"private", private, false}, {"deleted", deleted, false}} {
			likers, err := s.Likers(ctx, v, c.post, 50)
			if err != nil {
				t.Fatal(err)
			}
			_, hasTalk := talk[c.post]
			got := []bool{hasTalk, len(threads[c.post].Comments) > 0, len(likers) > 0}
			if want := []bool{c.readable, c.readable, c.readable}; !reflect.DeepEqual(got, want) {
				t.Errorf("viewer %d, %s post: talk, thread, likers read %v, want %v", who, c.name, got, want)
			}
		}
	}
}

// A thread is read a page at a time: walking PostThread's pages from the start gives every
// comment once, in order (ties in time by id), and Threads' first page of each post is
// PostThread's, with where the next starts.
func TestThreadPages(t *testing.T) {
	s, _ := seeded(t, seedSmall(4))
	ctx := context.Background()
	var post int64
	if err := s.Pool.QueryRow(ctx, `SELECT id FROM posts WHERE deleted_at IS NULL AND is_public ORDER BY id LIMIT 1`).Scan(&post); err != nil {
		t.Fatal(err)
	}
	v, err := s.ViewerAccess(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC().Truncate(time.Microsecond)
	for i := range 8 {
		if _, _, err := s.AddComment(ctx, v, post, "comment", at.Add(time.Duration(i/3)*time.Second), tributary.DefaultBumpRule); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.PostThread(ctx, v, post, tributary.ThreadCursor{}, 1000)
	if err != nil || len(all.Comments) < 8 || !all.Next.IsZero() {
		t.Fatalf("the whole thread: %d comments, next %v, %v", len(all.Comments), all.Next, err)
	}
	for _, size := range []int{1, 3, 5} {
		var walked []tributary.Comment
		from := tributary.ThreadCursor{}
		for range 100 {
			page, err := s.PostThread(ctx, v, post, from, size)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Comments) > size {
				t.Fatalf("a page of %d comments, asked for %d", len(page.Comments), size)
			}
			walked = append(walked, page.Comments...)
			if from = page.Next; from.IsZero() {
				break
			}
		}
		if !reflect.DeepEqual(walked, all.Comments) {
			t.Errorf("pages of %d: %d comments walked, want the thread's %d in order", size, len(walked), len(all.Comments))
		}
		first, err := s.Threads(ctx, v, []int64{post}, size)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := s.PostThread(ctx, v, post, tributary.ThreadCursor{}, size)
		if !reflect.DeepEqual(first[post], want) || first[post].Next.IsZero() {
			t.Errorf("Threads' first page of %d: %+v, want PostThread's %+v", size, first[post].Next, want.Next)
		}
	}
}
