package seed_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/seed"
)

func TestSeedTalk(t *testing.T) {
	cfg := seedSmall(1)
	s, res := seeded(t, cfg)
	ctx := context.Background()

	if got, want := []int{res.Likes, res.Comments}, []int{5 * cfg.Posts, cfg.Posts}; !slices.Equal(got, want) {
		t.Errorf("likes, comments: got %v, want %v (the defaults: 5 and 1 per post)", got, want)
	}
	for _, c := range []struct {
		table string
		want  int
	}{{"likes", res.Likes}, {"comments", res.Comments}} {
		if got := int(seedInt(t, s, "SELECT count(*) FROM "+c.table)); got != c.want {
			t.Errorf("%s: got %d rows, want %d", c.table, got, c.want)
		}
	}

	// Who may read a post, as the app decides it for a viewer (LoadViewer's blocked and
	// private feeds): likes and comments must come from such readers.
	const mayRead = `can_read(p.is_public, p.protected_owner_ids, p.private_feed_ids, %[1]s,
		ARRAY(SELECT b.banned_id FROM bans b WHERE b.user_id = %[1]s UNION SELECT b.user_id FROM bans b WHERE b.banned_id = %[1]s),
		ARRAY(SELECT r.feed_id FROM feed_readers r WHERE r.user_id = %[1]s))`
	const inBan = `EXISTS (SELECT 1 FROM bans b WHERE (b.user_id = %[1]s AND b.banned_id = p.author_id)
		OR (b.user_id = p.author_id AND b.banned_id = %[1]s))`
	likeBy, commentBy := "l.user_id", "c.author_id"
	checks := []struct {
		name     string
		q        string
		min, max float64
		args     []any
	}{
		{"posts whose like_count is not their likes", "SELECT count(*) FROM posts p WHERE like_count <> (SELECT count(*) FROM likes l WHERE l.post_id = p.id)", 0, 0, nil},
		{"posts whose comment_count is not their comments", "SELECT count(*) FROM posts p WHERE comment_count <> (SELECT count(*) FROM comments c WHERE c.post_id = p.id)", 0, 0, nil},
		{"likes by someone who may not read the post", "SELECT count(*) FROM likes l JOIN posts p ON p.id = l.post_id WHERE NOT " + fmt.Sprintf(mayRead, likeBy), 0, 0, nil},
		{"comments by someone who may not read the post", "SELECT count(*) FROM comments c JOIN posts p ON p.id = c.post_id WHERE NOT " + fmt.Sprintf(mayRead, commentBy), 0, 0, nil},
		{"likes by someone in a ban with the author", "SELECT count(*) FROM likes l JOIN posts p ON p.id = l.post_id WHERE " + fmt.Sprintf(inBan, likeBy), 0, 0, nil},
		{"comments by someone in a ban with the author", "SELECT count(*) FROM comments c JOIN posts p ON p.id = c.post_id WHERE " + fmt.Sprintf(inBan, commentBy), 0, 0, nil},
		{"self-likes", "SELECT count(*) FROM likes l JOIN posts p ON p.id = l.post_id WHERE l.user_id = p.author_id", 0, 0, nil},
		{"likes not after their post or after the end", "SELECT count(*) FROM likes l JOIN posts p ON p.id = l.post_id WHERE l.created_at <= p.created_at OR l.created_at > $1", 0, 0, []any{seedEnd}},
		{"comments not after their post or after the end", "SELECT count(*) FROM comments c JOIN posts p ON p.id = c.post_id WHERE c.created_at <= p.created_at OR c.created_at > $1", 0, 0, []any{seedEnd}},
		{"comments whose ids are out of time order", "SELECT count(*) FROM (SELECT created_at, lag(created_at) OVER (ORDER BY id) prev FROM comments) q WHERE created_at < prev", 0, 0, nil},
		{"empty or edited comments", "SELECT count(*) FROM comments WHERE body = '' OR edited_at IS NOT NULL", 0, 0, nil},
		{"share of posts without likes", "SELECT avg((like_count = 0)::int) FROM posts", 0.4, 0.85, nil},
		{"share of posts without comments", "SELECT avg((comment_count = 0)::int) FROM posts", 0.6, 0.95, nil},
		{"most likes on a post", "SELECT max(like_count) FROM posts", 50, 149, nil},
		{"most comments on a post", "SELECT max(comment_count) FROM posts", 20, 300, nil},
		{"VIP / other mean likes", "SELECT avg(like_count) FILTER (WHERE u.vip) / avg(like_count) FILTER (WHERE NOT u.vip) FROM posts p JOIN users u ON u.id = p.author_id", 2, 50, nil},
		{"widely shared / other mean likes", `SELECT avg(like_count) FILTER (WHERE n >= 5) / avg(like_count) FILTER (WHERE n < 5)
			FROM posts p JOIN (SELECT anchor_id, count(*) n FROM posts GROUP BY anchor_id) a USING (anchor_id)`, 1.5, 50, nil},
		{"share of likes by followers of the author", `SELECT avg((EXISTS (SELECT 1 FROM follows f
			WHERE f.follower_id = l.user_id AND f.followed_id = p.author_id))::int) FROM likes l JOIN posts p ON p.id = l.post_id`, 0.5, 0.95, nil},
		{"share of likes within a day", "SELECT avg((l.created_at < p.created_at + interval '1 day')::int) FROM likes l JOIN posts p ON p.id = l.post_id", 0.6, 0.98, nil},
		{"share of comments by the post's author", "SELECT avg((c.author_id = p.author_id)::int) FROM comments c JOIN posts p ON p.id = c.post_id", 0.02, 0.4, nil},
		{"share of comments with a mention", "SELECT avg((body ~ '(^|\\s)@\\w')::int) FROM comments", 0.1, 0.7, nil},
		{"share of comments with a tag", "SELECT avg((body ~ '(^|\\s)#\\w')::int) FROM comments", 0.03, 0.3, nil},
		{"comments of several sentences", "SELECT count(*) FROM comments WHERE body ~ '[.?!] [A-Z]'", 20, 2000, nil},
		{"bumped posts", "SELECT count(*) FROM posts WHERE bumped_at > created_at", 50, 2000, nil},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if got := seedInt(t, s, c.q, c.args...); got < c.min || got > c.max {
				t.Errorf("got %v, want between %v and %v", got, c.min, c.max)
			}
		})
	}

	t.Run("mentions and tags name real users and the world's tags", func(t *testing.T) {
		handles, err := seedStrings(ctx, s, "SELECT lower(handle) FROM users")
		if err != nil {
			t.Fatal(err)
		}
		tags, err := seedStrings(ctx, s, "SELECT DISTINCT unnest(tags) FROM posts")
		if err != nil {
			t.Fatal(err)
		}
		bodies, err := seedStrings(ctx, s, "SELECT body FROM comments ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		known := map[string]bool{}
		for _, h := range handles {
			known["/u/"+h] = true
		}
		for _, tag := range tags {
			known["/t/"+tag] = true
		}
		replies := 0
		for _, b := range bodies {
			for _, seg := range tributary.Linkify(b) {
				if seg.Href != "" && !known[strings.ToLower(seg.Href)] {
					t.Fatalf("comment %q links %s, which names no seeded user or tag", b, seg.Href)
				}
			}
			if strings.HasPrefix(b, "@") {
				replies++
			}
		}
		if replies == 0 {
			t.Errorf("no comment answers anyone by @handle")
		}
	})

	t.Run("bumps follow the bump rule", func(t *testing.T) {
		checkSeedBumps(t, s, res)
	})

	// The seeder writes the filter feeds itself; they must be what the app's own rule,
	// post_filters, makes of the posts, likes and comments, entry for entry.
	t.Run("filter feeds are post_filters'", func(t *testing.T) {
		for _, c := range []struct{ what, q string }{
			{"entries post_filters does not make", "SELECT count(*) FROM (SELECT feed, post_id, at FROM filter_posts EXCEPT SELECT * FROM post_filters(NULL)) q"},
			{"entries of post_filters missing", "SELECT count(*) FROM (SELECT * FROM post_filters(NULL) EXCEPT SELECT feed, post_id, at FROM filter_posts) q"},
		} {
			if n := seedInt(t, s, c.q); n != 0 {
				t.Errorf("%s: %v", c.what, n)
			}
		}
		// Each kind of feed is there, mentions by posts too (their "cc @handle").
		for _, c := range []struct{ what, q string }{
			{"liked by", "SELECT count(*) FROM filter_posts WHERE feed LIKE 'l:%'"},
			{"commented on by", "SELECT count(*) FROM filter_posts WHERE feed LIKE 'c:%'"},
			{"discussions", "SELECT count(*) FROM filter_posts WHERE feed LIKE 'd:%'"},
			{"tags", "SELECT count(*) FROM filter_posts WHERE feed LIKE 't:%'"},
			{"mentions by comments", "SELECT count(*) FROM filter_posts f JOIN comments c ON c.post_id = f.post_id AND c.created_at = f.at WHERE f.feed LIKE 'm:%'"},
			{"mentions by posts", "SELECT count(*) FROM filter_posts f JOIN posts p ON p.id = f.post_id AND p.created_at = f.at WHERE f.feed LIKE 'm:%'"},
			{"posts that mention", "SELECT count(*) FROM posts WHERE cardinality(mentions) > 0"},
		} {
			if n := seedInt(t, s, c.q); n == 0 {
				t.Errorf("no %s entries", c.what)
			}
		}
	})
}

// arrival is a post_bumps row: when a post arrived, with which ord.
type arrival struct {
	at  time.Time
	ord int64
}

func (a arrival) String() string {
	return fmt.Sprintf("%s ord %d", a.at.Format(time.RFC3339Nano), a.ord)
}

func seedStrings(ctx context.Context, s *db.Store, q string) ([]string, error) {
	rows, err := s.Pool.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// checkSeedBumps replays tributary.DefaultBumpRule over every thread, comment by comment,
// and compares what it says with bumped_at, post_bumps and the feed entries' ords.
func checkSeedBumps(t *testing.T, s *db.Store, res seed.Result) {
	t.Helper()
	ctx := context.Background()
	type post struct {
		created, bumped time.Time
		ord             int64
		comments        []time.Time
		arrivals        []arrival
	}
	posts := map[int64]*post{}
	rows, err := s.Pool.Query(ctx, "SELECT p.id, p.created_at, p.bumped_at, fp.ord FROM posts p JOIN feed_posts fp ON fp.post_id = p.id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		p := &post{}
		if err := rows.Scan(&id, &p.created, &p.bumped, &p.ord); err != nil {
			t.Fatal(err)
		}
		posts[id] = p
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows, err = s.Pool.Query(ctx, "SELECT post_id, created_at FROM comments ORDER BY post_id, created_at, id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var at time.Time
		if err := rows.Scan(&id, &at); err != nil {
			t.Fatal(err)
		}
		posts[id].comments = append(posts[id].comments, at)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows, err = s.Pool.Query(ctx, "SELECT post_id, at, ord FROM post_bumps ORDER BY post_id, at, ord")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var a arrival
		if err := rows.Scan(&id, &a.at, &a.ord); err != nil {
			t.Fatal(err)
		}
		posts[id].arrivals = append(posts[id].arrivals, a)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}

	rule := tributary.DefaultBumpRule
	var bumped []arrival
	for id, p := range posts {
		var bumps []time.Time
		for j, at := range p.comments {
			recent := 0 // comments in the window ending at this one, this one included
			for _, c := range p.comments[:j+1] {
				if c.After(at.Add(-rule.Window)) {
					recent++
				}
			}
			if rule.Bumps(p.created, at, recent) {
				bumps = append(bumps, at)
			}
		}
		if len(bumps) == 0 {
			if !p.bumped.Equal(p.created) || p.ord != id || len(p.arrivals) > 0 {
				t.Fatalf("post %d, never bumped: bumped_at %v (created %v), ord %d, %d post_bumps rows; want its creation, its id, none",
					id, p.bumped, p.created, p.ord, len(p.arrivals))
			}
			continue
		}
		if len(p.arrivals) != len(bumps)+1 {
			t.Fatalf("post %d: got arrivals %v, want its creation and bumps at %v", id, p.arrivals, bumps)
		}
		if a := p.arrivals[0]; !a.at.Equal(p.created) || a.ord != id {
			t.Fatalf("post %d: got arrivals %v, want the first to be its creation at %v, ord %d", id, p.arrivals, p.created, id)
		}
		for k, at := range bumps {
			a := p.arrivals[k+1]
			if !a.at.Equal(at) || a.ord <= p.arrivals[k].ord {
				t.Fatalf("post %d: got arrivals %v, want bumps at %v with growing ords", id, p.arrivals, bumps)
			}
			bumped = append(bumped, a)
		}
		last := p.arrivals[len(p.arrivals)-1]
		if !p.bumped.Equal(last.at) || p.ord != last.ord {
			t.Fatalf("post %d: bumped_at %v, feed ord %d; want its last bump's, %v and %d", id, p.bumped, p.ord, last.at, last.ord)
		}
	}
	// Each bump took the next value of the ord sequence, after every post's own.
	slices.SortFunc(bumped, func(a, b arrival) int { return cmp.Compare(a.ord, b.ord) })
	for k, a := range bumped {
		if want := int64(res.Posts + k + 1); a.ord != want || k > 0 && a.at.Before(bumped[k-1].at) {
			t.Fatalf("bumps in ord order: #%d is %v, want ord %d, not before the one before (%v)", k, a, want, bumped[max(k-1, 0)])
		}
	}
	if got, want := int64(seedInt(t, s, "SELECT last_value FROM feed_posts_ord_seq")), int64(res.Posts+len(bumped)); got != want {
		t.Errorf("feed_posts_ord_seq: got %d, want %d (one per post and per bump)", got, want)
	}
}
