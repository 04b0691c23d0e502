package bench

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// Through the load balancer only a 503 with Retry-After is an expected failure: a 503
// without it, any other 5xx and no answer at all are unexpected.
func TestSummarizeSoakSite(t *testing.T) {
	at := time.Now()
	for _, tc := range []struct {
		name       string
		s          soakSample
		status     string
		unexpected int
	}{
		{"ok", soakSample{kind: "share", status: http.StatusSeeOther}, "303", 0},
		{"503 with Retry-After", soakSample{kind: "share", status: 503, retryAfter: true}, "503 Retry-After", 0},
		{"503 without Retry-After", soakSample{kind: "share", status: 503}, "503", 1},
		{"502 from the load balancer", soakSample{kind: "like", status: 502, retryAfter: true}, "502", 1},
		{"no answer", soakSample{kind: "comment"}, "no answer", 1},
		{"429", soakSample{kind: "comment", status: 429, retryAfter: true}, "429", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.at, tc.s.dur = at, time.Millisecond
			kinds, unexpected := summarizeSoakSite([]soakSample{tc.s})
			if len(kinds) != 1 || kinds[0].ByStatus[tc.status] != 1 {
				t.Fatalf("kinds %+v, want one %s", kinds, tc.status)
			}
			if kinds[0].FiveXXOutsideRestart != tc.unexpected || len(unexpected) != tc.unexpected {
				t.Errorf("unexpected %d (%v), want %d", kinds[0].FiveXXOutsideRestart, unexpected, tc.unexpected)
			}
		})
	}
}

// The ledger's check finds every acknowledged write the database holds and counts the
// others lost.
func TestCheckLedger(t *testing.T) {
	ctx := context.Background()
	pool := smallWorld(t)
	var (
		titles, bodies []string
		user, post     int64
	)
	if err := pool.QueryRow(ctx, "SELECT array_agg(title) FROM (SELECT title FROM posts WHERE deleted_at IS NULL LIMIT 2) p").Scan(&titles); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, "SELECT array_agg(body) FROM (SELECT body FROM comments LIMIT 2) c").Scan(&bodies); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, "SELECT user_id, post_id FROM likes LIMIT 1").Scan(&user, &post); err != nil {
		t.Fatal(err)
	}
	l := &ledger{shares: append(titles, "never shared"), comments: append(bodies, "never said"),
		likes: [][2]int64{{user, post}, {user, post}, {user, -1}}, ryowMiss: []string{"a share not on its page"}}
	got, err := checkLedger(ctx, pool, l)
	if err != nil {
		t.Fatal(err)
	}
	want := SoakLedger{Shares: 3, LostShares: 1, Comments: 3, LostComments: 1, Likes: 2, LostLikes: 1,
		ReadYourWrites: 3, ReadYourWritesMissed: 1}
	if len(got.FirstMissed) != 1 {
		t.Errorf("first missed %v, want the one", got.FirstMissed)
	}
	got.FirstMissed = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("checkLedger = %+v, want %+v", got, want)
	}
}

// The two soaks share SOAK.md: each replaces its own part and keeps the other's.
func TestReplaceSoakPart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "SOAK.md")
	steps := []struct{ part, want string }{
		{"# Soak\n\nfirst\n", "# Soak\n\nfirst\n"},
		{"# Soak through the topology\n\nsite 1\n", "# Soak\n\nfirst\n\n# Soak through the topology\n\nsite 1\n"},
		{"# Soak\n\nsecond\n", "# Soak\n\nsecond\n\n# Soak through the topology\n\nsite 1\n"},
		{"# Soak through the topology\n\nsite 2\n", "# Soak\n\nsecond\n\n# Soak through the topology\n\nsite 2\n"},
	}
	for i, s := range steps {
		if err := replaceSoakPart(path, s.part); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		if string(got) != s.want {
			t.Errorf("step %d:\n%q\nwant\n%q", i, got, s.want)
		}
	}
}
