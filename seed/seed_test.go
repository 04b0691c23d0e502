package seed_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
	"tributary/seed"
)

var seedEnd = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// seedSmall is the test world: big enough for the distributions to show, small enough
// to load in about a second.
func seedSmall(n int64) seed.Config {
	return seed.Config{Users: 300, Posts: 2000, Seed: n, End: seedEnd,
		DemoPasswordHash: "$2a$04$test-hash", DemoPassword: "tributary"}
}

func seeded(t *testing.T, cfg seed.Config) (*db.Store, seed.Result) {
	t.Helper()
	s := dbtest.Store(t)
	res, err := seed.Fill(context.Background(), s, cfg)
	if err != nil {
		t.Fatalf("Fill: %v", err)
	}
	return s, res
}

// seedTables are the seeded tables with the order that makes their content comparable.
var seedTables = []struct{ name, order string }{
	{"users", "id"}, {"feeds", "id"}, {"follows", "follower_id, followed_id"}, {"anchors", "id"},
	{"posts", "id"}, {"feed_posts", "feed_id, post_id"}, {"events", "id"},
	{"likes", "post_id, user_id"}, {"comments", "id"}, {"post_bumps", "post_id, at, ord"},
	{"filter_posts", "feed, post_id"},
}

// seedFingerprints hashes every seeded table and the id sequences.
func seedFingerprints(t *testing.T, s *db.Store) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	for _, tb := range seedTables {
		var fp string
		// A post's xid is the transaction that wrote it: never the same twice.
		q := "SELECT count(*) || ':' || md5(coalesce(string_agg((to_jsonb(t) - 'xid')::text, E'\\n' ORDER BY " + tb.order + "), '')) FROM " + tb.name + " t"
		if err := s.Pool.QueryRow(ctx, q).Scan(&fp); err != nil {
			t.Fatalf("fingerprint %s: %v", tb.name, err)
		}
		out[tb.name] = fp
	}
	var seqs string
	err := s.Pool.QueryRow(ctx, `SELECT string_agg(last_value || '/' || is_called, ' ' ORDER BY 1) FROM (
		SELECT last_value, is_called FROM users_id_seq UNION ALL SELECT last_value, is_called FROM feeds_id_seq
		UNION ALL SELECT last_value, is_called FROM anchors_id_seq UNION ALL SELECT last_value, is_called FROM posts_id_seq
		UNION ALL SELECT last_value, is_called FROM events_id_seq UNION ALL SELECT last_value, is_called FROM feed_posts_ord_seq
		UNION ALL SELECT last_value, is_called FROM comments_id_seq) q`).Scan(&seqs)
	if err != nil {
		t.Fatalf("fingerprint sequences: %v", err)
	}
	out["sequences"] = seqs
	return out
}

func TestSeedDeterministic(t *testing.T) {
	a, _ := seeded(t, seedSmall(7))
	b, _ := seeded(t, seedSmall(7))
	c, _ := seeded(t, seedSmall(8))
	fa, fb, fc := seedFingerprints(t, a), seedFingerprints(t, b), seedFingerprints(t, c)
	for _, tb := range seedTables {
		t.Run(tb.name, func(t *testing.T) {
			if got, want := fb[tb.name], fa[tb.name]; got != want {
				t.Errorf("same seed: got %s, want %s", got, want)
			}
			if got, other := fc[tb.name], fa[tb.name]; got == other {
				t.Errorf("another seed gave the same %s: %s", tb.name, got)
			}
		})
	}
	if got, want := fb["sequences"], fa["sequences"]; got != want {
		t.Errorf("sequences: got %s, want %s", got, want)
	}
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

func TestSeedWorld(t *testing.T) {
	cfg := seedSmall(1)
	s, res := seeded(t, cfg)
	start := seedEnd.Add(-seed.Window)

	t.Run("counts", func(t *testing.T) {
		got := []int{res.Users, res.Posts, res.Events}
		want := []int{300, 2000, 12 * 2000}
		if !slices.Equal(got, want) {
			t.Errorf("users, posts, events: got %v, want %v", got, want)
		}
		for _, c := range []struct {
			table string
			want  int
		}{{"users", res.Users}, {"follows", res.Follows}, {"posts", res.Posts}, {"anchors", res.Anchors}, {"events", res.Events},
			{"feeds", res.Users}, {"feed_posts", res.Posts}} {
			if got := int(seedInt(t, s, "SELECT count(*) FROM "+c.table)); got != c.want {
				t.Errorf("%s: got %d rows, want %d", c.table, got, c.want)
			}
		}
	})

	// Each check is a number and the range it must fall in.
	checks := []struct {
		name     string
		q        string
		min, max float64
		args     []any
	}{
		{"VIP share", "SELECT avg(vip::int) FROM users", 0.01, 0.05, nil},
		{"median notability", "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY notability) FROM users", 250, 1000, nil},
		{"most notable", "SELECT max(notability) FROM users", 20_000, 10_000_000, nil},
		{"every user logs in with the demo hash", "SELECT count(*) FROM users WHERE password_hash <> $1", 0, 0, []any{cfg.DemoPasswordHash}},
		{"one public posts feed per user", "SELECT count(*) FROM users u WHERE NOT EXISTS (SELECT 1 FROM feeds f WHERE f.id = u.id AND f.owner_id = u.id AND f.kind = 'posts' AND f.access = 'public')", 0, 0, nil},
		{"posts without their anchor row", "SELECT count(*) FROM posts p LEFT JOIN anchors a ON a.id = p.anchor_id AND a.url = p.anchor_url WHERE a.id IS NULL", 0, 0, nil},
		{"followers whose followed set has its first version", "SELECT count(*) FROM users u WHERE u.follows_version = 1 AND EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = u.id)", 0, 0, nil},
		{"posts whose anchor kind is not their anchor's", "SELECT count(*) FROM posts p JOIN anchors a ON a.id = p.anchor_id WHERE p.anchor_kind <> a.kind", 0, 0, nil},
		{"anchors nobody shared", "SELECT count(*) FROM anchors a WHERE NOT EXISTS (SELECT 1 FROM posts p WHERE p.anchor_id = a.id)", 0, 0, nil},
		{"most sharers of one anchor", "SELECT max(n) FROM (SELECT count(DISTINCT author_id) n FROM posts GROUP BY anchor_id) q", 20, 300, nil},
		{"anchors shared by 10+ users", "SELECT count(*) FROM (SELECT 1 FROM posts GROUP BY anchor_id HAVING count(DISTINCT author_id) >= 10) q", 5, 500, nil},
		{"tweets anchored to an arXiv paper", "SELECT count(*) FROM posts WHERE kind = 'tweet' AND anchor_url LIKE 'https://arxiv.org/abs/%'", 50, 2000, nil},
		{"tweets with a preview image", "SELECT count(*) FROM posts WHERE kind = 'tweet' AND image_count > 0", 20, 2000, nil},
		{"images not under /preview/", "SELECT count(*) FROM posts, jsonb_array_elements(linked_urls::jsonb) l WHERE l ? 'image' AND l->>'image' NOT LIKE '/preview/%.svg'", 0, 0, nil},
		{"kinds", "SELECT count(DISTINCT kind) FROM posts", 7, 7, nil},
		{"GitHub sub-path shares", "SELECT count(*) FROM posts WHERE url LIKE 'https://github.com/%/tree/main/%'", 1, 2000, nil},
		{"versioned arXiv shares", "SELECT count(*) FROM posts WHERE url ~ '^https://arxiv.org/(abs|pdf)/[0-9.]+v[0-9]$'", 1, 2000, nil},
		{"posts before the window", "SELECT count(*) FROM posts WHERE created_at < $1", 0, 0, []any{start}},
		{"posts after the end", "SELECT count(*) FROM posts WHERE created_at >= $1", 0, 0, []any{seedEnd}},
		{"recent half / older half", "SELECT count(*) FILTER (WHERE created_at >= $1::timestamptz - interval '90 days')::float / count(*) FILTER (WHERE created_at < $1::timestamptz - interval '90 days') FROM posts", 1.2, 4, []any{seedEnd}},
		{"afternoon / night posts", "SELECT count(*) FILTER (WHERE extract(hour FROM created_at AT TIME ZONE 'UTC') BETWEEN 13 AND 18)::float / count(*) FILTER (WHERE extract(hour FROM created_at AT TIME ZONE 'UTC') BETWEEN 2 AND 7) FROM posts", 2, 6, nil},
		// A post's first arrival is its creation; a bumped post's is logged in post_bumps.
		{"creations out of ord order", `SELECT count(*) FROM (SELECT a.first, lag(a.first) OVER (ORDER BY p.created_at, p.id) prev
			FROM posts p JOIN feed_posts fp ON fp.post_id = p.id,
			LATERAL (SELECT coalesce(min(b.ord), fp.ord) first FROM post_bumps b WHERE b.post_id = p.id) a) q WHERE first <= prev`, 0, 0, nil},
		{"posts outside their author's feed", "SELECT count(*) FROM posts p WHERE NOT EXISTS (SELECT 1 FROM feed_posts fp WHERE fp.post_id = p.id AND fp.feed_id = p.author_id AND fp.time_ord = p.created_at)", 0, 0, nil},
		// The bulk load does not fire feed_posts_group_feeds: no seeded post may be in a group.
		{"group feeds", "SELECT count(*) FROM feeds WHERE kind = 'group'", 0, 0, nil},
		{"median following", "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY n) FROM (SELECT count(f.*) n FROM users u LEFT JOIN follows f ON f.follower_id = u.id GROUP BY u.id) q", 10, 40, nil},
		{"max following / median", "SELECT max(n) / percentile_cont(0.5) WITHIN GROUP (ORDER BY n) FROM (SELECT count(*) n FROM follows GROUP BY follower_id) q", 5, 100, nil},
		{"max followers / median", "SELECT max(n) / percentile_cont(0.5) WITHIN GROUP (ORDER BY n) FROM (SELECT count(*) n FROM follows GROUP BY followed_id) q", 5, 200, nil},
		{"VIP / other mean followers", "SELECT avg(n) FILTER (WHERE vip) / avg(n) FILTER (WHERE NOT vip) FROM (SELECT u.vip, count(f.*) n FROM users u LEFT JOIN follows f ON f.followed_id = u.id GROUP BY u.id) q", 3, 50, nil},
		{"rows referring to missing rows", `SELECT
			(SELECT count(*) FROM follows f WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = f.follower_id)
				OR NOT EXISTS (SELECT 1 FROM users u WHERE u.id = f.followed_id)) +
			(SELECT count(*) FROM feeds f WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = f.owner_id)) +
			(SELECT count(*) FROM posts p WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = p.author_id)) +
			(SELECT count(*) FROM feed_posts fp WHERE NOT EXISTS (SELECT 1 FROM feeds f WHERE f.id = fp.feed_id)
				OR NOT EXISTS (SELECT 1 FROM posts p WHERE p.id = fp.post_id)) +
			(SELECT count(*) FROM events e WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = e.viewer_id)
				OR NOT EXISTS (SELECT 1 FROM anchors a WHERE a.id = e.anchor_id))`, 0, 0, nil},
		{"events not of type 7", "SELECT count(*) FROM events WHERE type <> 7", 0, 0, nil},
		{"events on nothing a followee shared before", `SELECT count(*) FROM events e WHERE NOT EXISTS (SELECT 1 FROM posts p
			JOIN follows f ON f.followed_id = p.author_id AND f.follower_id = e.viewer_id
			WHERE p.anchor_id = e.anchor_id AND p.created_at < e.created_at)`, 0, 0, nil},
		{"events after the end", "SELECT count(*) FROM events WHERE created_at > $1", 0, 0, []any{seedEnd}},
		{"dwell share in 300-5000 ms", "SELECT avg((dwell_ms BETWEEN 300 AND 5000)::int) FROM events", 0.6, 0.95, nil},
		{"viewers with events", "SELECT count(DISTINCT viewer_id) FROM events", 150, 300, nil},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if got := seedInt(t, s, c.q, c.args...); got < c.min || got > c.max {
				t.Errorf("got %v, want between %v and %v", got, c.min, c.max)
			}
		})
	}

	t.Run("derived fields match the app", func(t *testing.T) {
		rows, err := s.Pool.Query(context.Background(), `SELECT id, url, linked_urls, canonical_url, anchor_url, kind, host,
			link_hosts, url_count, sci_score, image_count FROM posts ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var url, canonical, anchor, kind, host string
			var linkedJSON []byte
			var hosts []string
			var urlCount, sci, images int
			if err := rows.Scan(&id, &url, &linkedJSON, &canonical, &anchor, &kind, &host, &hosts, &urlCount, &sci, &images); err != nil {
				t.Fatal(err)
			}
			var links []tributary.Link
			if err := json.Unmarshal(linkedJSON, &links); err != nil {
				t.Fatalf("post %d links: %v", id, err)
			}
			p, err := tributary.Prepare(tributary.NewPost{URL: url, Title: "t", Links: links})
			if err != nil {
				t.Fatalf("post %d: Prepare(%s): %v", id, url, err)
			}
			got := []any{canonical, anchor, kind, host, strings.Join(hosts, " "), urlCount, sci, images}
			want := []any{p.CanonicalURL, p.AnchorURL, string(p.Kind), p.Host, strings.Join(p.LinkHosts, " "), p.URLCount, p.SciScore, p.ImageCount}
			if !slices.Equal(got, want) {
				t.Fatalf("post %d (%s): got %v, want %v", id, url, got, want)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("demo logins", func(t *testing.T) {
		var handles []string
		for _, l := range res.Logins {
			handles = append(handles, l.Handle)
			if l.Password != "tributary" || l.Note == "" {
				t.Errorf("login %s: got password %q note %q, want the demo password and a note", l.Handle, l.Password, l.Note)
			}
		}
		if want := []string{"ada", "grace", "alan", "vera"}; !slices.Equal(handles, want) {
			t.Errorf("logins: got %v, want %v", handles, want)
		}
		ada, err := s.UserByHandle(context.Background(), "ada")
		if err != nil || !ada.VIP || ada.ID != 1 {
			t.Errorf("ada: got %+v (%v), want user 1, a VIP", ada, err)
		}
		grace, err := s.UserByHandle(context.Background(), "grace")
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.Profile(context.Background(), grace.ID, tributary.Viewer{ID: grace.ID})
		if st := p.Stats; err != nil || st.Following < 200 {
			t.Errorf("grace follows %d (%v), want at least 200 of 300", st.Following, err)
		}
		if res.Note == "" {
			t.Errorf("result note is empty, want a word about the shared password")
		}
	})

	t.Run("the app inserts after seeding", func(t *testing.T) {
		ctx := context.Background()
		u, err := s.CreateUser(ctx, db.NewUser{Handle: "newcomer", DisplayName: "New Comer", CreatedAt: seedEnd})
		if err != nil || u.ID != int64(res.Users)+1 {
			t.Fatalf("CreateUser: got id %d (%v), want %d", u.ID, err, res.Users+1)
		}
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: u.ID, URL: "https://arxiv.org/abs/9912.99999", Title: "Fresh", CreatedAt: seedEnd})
		if err != nil {
			t.Fatal(err)
		}
		id, err := s.CreatePost(ctx, p)
		if err != nil || id != int64(res.Posts)+1 {
			t.Fatalf("CreatePost: got id %d (%v), want %d", id, err, res.Posts+1)
		}
		got := seedInt(t, s, "SELECT a.id FROM posts p JOIN anchors a ON a.id = p.anchor_id WHERE p.id = $1", id)
		if want := float64(res.Anchors + 1); got != want {
			t.Errorf("new anchor id: got %v, want %v", got, want)
		}
		ords := seedInt(t, s, "SELECT max(ord) FROM (SELECT ord FROM feed_posts WHERE post_id <> $1 UNION ALL SELECT ord FROM post_bumps) q", id)
		if got, want := seedInt(t, s, "SELECT ord FROM feed_posts WHERE post_id = $1", id), ords+1; got != want {
			t.Errorf("new feed entry ord: got %v, want %v", got, want)
		}
		// A comment on the newest seeded post bumps it (it is less than a day old): the bump
		// takes the next ord, and the post's creation or last bump stays logged.
		last := int64(res.Posts)
		before := seedInt(t, s, "SELECT count(*) FROM post_bumps WHERE post_id = $1", last)
		c, bumped, err := s.AddComment(ctx, tributary.Viewer{ID: 2}, last, "Late to this, but great.", seedEnd, tributary.DefaultBumpRule)
		if err != nil || !bumped || c.ID != int64(res.Comments)+1 {
			t.Fatalf("AddComment: got id %d, bumped %v (%v); want id %d, bumped", c.ID, bumped, err, res.Comments+1)
		}
		if got, want := seedInt(t, s, "SELECT ord FROM feed_posts WHERE post_id = $1", last), ords+2; got != want {
			t.Errorf("bumped feed entry ord: got %v, want %v", got, want)
		}
		if got, want := seedInt(t, s, "SELECT count(*) FROM post_bumps WHERE post_id = $1", last), max(before, 1)+1; got != want {
			t.Errorf("post_bumps rows of the bumped post: got %v, want %v", got, want)
		}
		ev := seedInt(t, s, "INSERT INTO events (viewer_id, type, anchor_id, dwell_ms) VALUES (1, 7, 1, 900) RETURNING id")
		if want := float64(res.Events + 1); ev != want {
			t.Errorf("new event id: got %v, want %v", ev, want)
		}
	})

	t.Run("a second seed is refused", func(t *testing.T) {
		_, err := seed.Fill(context.Background(), s, cfg)
		if !errors.Is(err, seed.ErrNotEmpty) {
			t.Errorf("got %v, want ErrNotEmpty", err)
		}
	})
}

func TestSeedRejectsBadConfig(t *testing.T) {
	s := dbtest.Store(t)
	for _, cfg := range []seed.Config{{Users: 3, Posts: 10}, {Users: 50, Posts: -1}, {Users: 50, Posts: 10, Events: -5},
		{Users: 50, Posts: 10, Likes: -1}, {Users: 50, Posts: 10, Comments: -1}} {
		if _, err := seed.Fill(context.Background(), s, cfg); err == nil {
			t.Errorf("Fill(%+v): got no error, want one", cfg)
		}
	}
	if got := seedInt(t, s, "SELECT count(*) FROM users"); got != 0 {
		t.Errorf("users after refused seeds: got %v, want 0", got)
	}
}

// An ordinary role cannot skip the per-row foreign-key checks, so Fill takes its slower,
// single-connection path; it must write the same data.
func TestSeedAsOrdinaryRole(t *testing.T) {
	ctx := context.Background()
	dsn := dbtest.DSN(t)
	admin, err := db.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	_, err = admin.Exec(ctx, `DO $$ BEGIN CREATE ROLE tributary_seed_test LOGIN;
		EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`)
	if err != nil {
		t.Fatalf("create role: %v", err)
	}
	_, err = admin.Exec(ctx, `GRANT ALL ON ALL TABLES IN SCHEMA public TO tributary_seed_test;
		GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO tributary_seed_test`)
	if err != nil {
		t.Fatalf("grant: %v", err)
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.User = "tributary_seed_test"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err == nil {
		err = pool.Ping(ctx)
	}
	if err != nil {
		t.Skipf("this server does not let a password-less role log in: %v", err)
	}
	defer pool.Close()
	ordinary := db.NewStore(pool)
	if _, err := seed.Fill(ctx, ordinary, seedSmall(3)); err != nil {
		t.Fatalf("Fill as an ordinary role: %v", err)
	}
	super, _ := seeded(t, seedSmall(3))
	got, want := seedFingerprints(t, ordinary), seedFingerprints(t, super)
	for _, tb := range append(seedTables, struct{ name, order string }{"sequences", ""}) {
		if got[tb.name] != want[tb.name] {
			t.Errorf("%s: got %s, want %s (as a superuser)", tb.name, got[tb.name], want[tb.name])
		}
	}
}

func TestSeedTiny(t *testing.T) {
	for _, c := range []struct {
		name                                   string
		cfg                                    seed.Config
		posts, events, likes, comments, logins int
	}{
		{"no posts", seed.Config{Users: 10, End: seedEnd}, 0, 0, 0, 0, 4},
		{"a few posts", seed.Config{Users: 10, Posts: 50, Events: 7, Likes: 30, Comments: 12, End: seedEnd}, 50, 7, 30, 12, 4},
		// 5 likes per post by default, but 10 users give a post at most 4 likers.
		{"more likes than likers", seed.Config{Users: 10, Posts: 50, End: seedEnd}, 50, 600, 200, 50, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, res := seeded(t, c.cfg)
			got := []int{res.Users, res.Posts, res.Events, res.Likes, res.Comments, len(res.Logins)}
			want := []int{10, c.posts, c.events, c.likes, c.comments, c.logins}
			if !slices.Equal(got, want) {
				t.Errorf("users, posts, events, likes, comments, logins: got %v, want %v", got, want)
			}
			if got := seedInt(t, s, "SELECT count(*) FROM likes"); int(got) != c.likes {
				t.Errorf("likes: got %v rows, want %d", got, c.likes)
			}
			u, err := s.CreateUser(context.Background(), db.NewUser{Handle: "later", DisplayName: "Later", CreatedAt: seedEnd})
			if err != nil || u.ID != 11 {
				t.Errorf("CreateUser after seeding: got id %d (%v), want 11", u.ID, err)
			}
		})
	}
}
