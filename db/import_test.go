package db_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// parse reads a JSONL import with the real parser and fails on any bad line.
func parse(t *testing.T, jsonl string) []tributary.ImportRecord {
	t.Helper()
	recs, bad, err := tributary.ParseImport(strings.NewReader(jsonl), tributary.FormatJSONL, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	if err != nil || len(bad) > 0 {
		t.Fatalf("ParseImport: %v %v", err, bad)
	}
	return recs
}

// counts is how many rows an import touches, by table.
type counts struct{ Users, PostsFeeds, Posts, FeedPosts, Anchors int }

func countRows(t *testing.T, s *db.Store) counts {
	t.Helper()
	var c counts
	err := s.Pool.QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM users), (SELECT count(*) FROM feeds WHERE kind = 'posts'),
		(SELECT count(*) FROM posts), (SELECT count(*) FROM feed_posts), (SELECT count(*) FROM anchors)`,
	).Scan(&c.Users, &c.PostsFeeds, &c.Posts, &c.FeedPosts, &c.Anchors)
	if err != nil {
		t.Fatalf("count rows: %v", err)
	}
	return c
}

const sample = `{"url":"https://arxiv.org/abs/2401.00001","handle":"Ada","shared_at":"2026-01-05","tags":["ml"]}
{"url":"https://github.com/a/b","handle":"ADA","shared_at":"2026-01-03"}
{"url":"https://a.com/post","handle":"bob","shared_at":"2026-01-04T10:00:00Z","text":"Read this"}
{"url":"https://arxiv.org/pdf/2401.00001v2","handle":"ada","shared_at":"2026-01-06"}
{"url":"https://a.com/post","handle":"Bob","shared_at":"2026-01-07"}
`

func TestImport(t *testing.T) {
	tests := []struct {
		name     string
		existing []string // handles signed up before the import
		want     db.ImportResult
		wantRows counts
	}{
		{
			name:     "creates each missing user once, whatever the case",
			want:     db.ImportResult{Imported: 5, UsersCreated: 2},
			wantRows: counts{Users: 2, PostsFeeds: 2, Posts: 5, FeedPosts: 5, Anchors: 3},
		},
		{
			name:     "uses existing users",
			existing: []string{"BOB"},
			want:     db.ImportResult{Imported: 5, UsersCreated: 1},
			wantRows: counts{Users: 2, PostsFeeds: 2, Posts: 5, FeedPosts: 5, Anchors: 3},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := dbtest.Store(t)
			for _, h := range tc.existing {
				if _, err := s.CreateUser(ctx, db.NewUser{Handle: h, DisplayName: h, PasswordHash: "x", CreatedAt: time.Now()}); err != nil {
					t.Fatalf("CreateUser: %v", err)
				}
			}
			got, err := s.Import(ctx, parse(t, sample))
			if err != nil {
				t.Fatalf("Import: %v", err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if rows := countRows(t, s); rows != tc.wantRows {
				t.Errorf("got rows %+v, want %+v", rows, tc.wantRows)
			}

			// Re-importing the same shares changes nothing.
			again, err := s.Import(ctx, parse(t, sample))
			if err != nil {
				t.Fatalf("second Import: %v", err)
			}
			if want := (db.ImportResult{AlreadyPresent: 5}); again != want {
				t.Errorf("re-import: got %+v, want %+v", again, want)
			}
			if rows := countRows(t, s); rows != tc.wantRows {
				t.Errorf("re-import: got rows %+v, want %+v", rows, tc.wantRows)
			}
		})
	}
}

func TestImportCreatedUser(t *testing.T) {
	ctx := context.Background()
	s := dbtest.Store(t)
	if _, err := s.Import(ctx, parse(t, sample)); err != nil {
		t.Fatalf("Import: %v", err)
	}
	u, hash, err := s.Credentials(ctx, "aDA")
	if err != nil {
		t.Fatalf("Credentials: %v", err)
	}
	// The first spelling in the file; joined at the earliest share so no post predates the account.
	if u.Handle != "Ada" || u.DisplayName != "Ada" {
		t.Errorf("got handle %q, name %q; want the first spelling %q for both", u.Handle, u.DisplayName, "Ada")
	}
	if want := time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC); !u.CreatedAt.Equal(want) {
		t.Errorf("got created_at %v, want the earliest share %v", u.CreatedAt, want)
	}
	if hash != "" {
		t.Errorf("got password hash %q, want none", hash)
	}
	// Login compares with bcrypt, which rejects an empty hash for every password.
	for _, pw := range []string{"", "password"} {
		if err := bcrypt.CompareHashAndPassword([]byte(hash), []byte(pw)); err == nil {
			t.Errorf("bcrypt accepted password %q for an imported user", pw)
		}
	}
	arrived, err := s.ChronoArrived(ctx, db.ChronoQuery{Author: u.ID, To: time.Now().AddDate(10, 0, 0), Limit: 10})
	if err != nil {
		t.Fatalf("ChronoArrived: %v", err)
	}
	var ids []int64
	for _, a := range arrived {
		ids = append(ids, a.PostID)
	}
	posts, err := s.PostsByID(ctx, tributary.Anonymous, ids)
	if err != nil {
		t.Fatalf("PostsByID: %v", err)
	}
	var got []string
	for _, p := range posts {
		got = append(got, p.CreatedAt.UTC().Format(time.DateOnly)+" "+p.CanonicalURL)
	}
	want := []string{"2026-01-06 https://arxiv.org/abs/2401.00001", "2026-01-05 https://arxiv.org/abs/2401.00001", "2026-01-03 https://github.com/a/b"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got posts\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestImportRollsBack(t *testing.T) {
	ctx := context.Background()
	s := dbtest.Store(t)
	recs := parse(t, sample)
	// A failure while the posts are stored, after users and anchors were written.
	if _, err := s.Pool.Exec(ctx, `CREATE FUNCTION fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'injected failure'; END $$;
		CREATE TRIGGER fail_on_feed_posts BEFORE INSERT ON feed_posts FOR EACH STATEMENT EXECUTE FUNCTION fail_once()`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Import(ctx, recs); err == nil || !strings.Contains(err.Error(), "injected failure") {
		t.Fatalf("got error %v, want the injected failure", err)
	}
	if got, want := countRows(t, s), (counts{}); got != want {
		t.Errorf("got rows %+v after a failed import, want %+v", got, want)
	}
	// Text PostgreSQL cannot store is refused naming its line, before anything is written.
	recs[len(recs)-1].Post.Title = "a\x00b"
	if _, err := s.Import(ctx, recs); err == nil || !strings.Contains(err.Error(), "import line 5") {
		t.Fatalf("got error %v, want one naming line 5", err)
	}
}

func TestImportNothing(t *testing.T) {
	s := dbtest.Store(t)
	got, err := s.Import(context.Background(), nil)
	if err != nil || got != (db.ImportResult{}) {
		t.Errorf("got %+v, %v; want an empty result", got, err)
	}
}
