package db_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// peopleWorld makes users by handle in a fresh store, for the people page's tests.
type peopleWorld struct {
	t   *testing.T
	s   *db.Store
	ids map[string]int64
	now time.Time
}

func newPeopleWorld(t *testing.T, handles ...string) *peopleWorld {
	w := &peopleWorld{t: t, s: dbtest.Store(t), ids: map[string]int64{}, now: time.Now().UTC()}
	for _, h := range handles {
		u, err := w.s.CreateUser(context.Background(), db.NewUser{Handle: h, DisplayName: "Name of " + h, CreatedAt: w.now.Add(-48 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		w.ids[h] = u.ID
	}
	return w
}

func (w *peopleWorld) follow(follower string, followed ...string) {
	w.t.Helper()
	for _, f := range followed {
		if _, err := w.s.Follow(context.Background(), w.ids[follower], w.ids[f]); err != nil {
			w.t.Fatal(err)
		}
	}
}

func (w *peopleWorld) share(author string, n int, tags ...string) {
	w.t.Helper()
	for i := range n {
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: w.ids[author], Title: "A paper",
			URL: fmt.Sprintf("https://example.com/%s/%d", author, i), Tags: tags, CreatedAt: w.now.Add(-time.Duration(i+1) * time.Hour)})
		if err != nil {
			w.t.Fatal(err)
		}
		if _, err := w.s.CreatePost(context.Background(), p); err != nil {
			w.t.Fatal(err)
		}
	}
}

func (w *peopleWorld) exec(q string, args ...any) {
	w.t.Helper()
	if _, err := w.s.Pool.Exec(context.Background(), q, args...); err != nil {
		w.t.Fatal(err)
	}
}

func handles(ps []tributary.Person) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Handle
	}
	return out
}

// Suggestions are the people most followed by the viewer's followees, then sharers of the
// viewer's tags, then trusted members; never the viewer, anyone followed or asked to follow,
// anyone in a ban with the viewer either way, a private account, or a sharer whose posts on
// the tags are not public.
func TestSuggestions(t *testing.T) {
	ctx := context.Background()
	w := newPeopleWorld(t, "viv", "ann", "bob", "dot", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "pat", "vic")
	w.follow("ann", "dot", "eve", "fay", "gus", "hal", "pat", "viv")
	w.follow("bob", "dot", "fay", "gus", "hal", "pat")
	w.follow("viv", "ann", "bob")
	for _, set := range []struct{ who, access string }{{"pat", "private"}, {"hal", "private"}, {"kim", "protected"}} {
		if err := w.s.SetVisibility(ctx, w.ids[set.who], set.access, w.now); err != nil {
			t.Fatal(err)
		}
	}
	w.follow("viv", "hal") // private: a pending request
	if err := w.s.Ban(ctx, w.ids["viv"], w.ids["fay"]); err != nil {
		t.Fatal(err)
	}
	if err := w.s.Ban(ctx, w.ids["gus"], w.ids["viv"]); err != nil {
		t.Fatal(err)
	}
	w.exec("UPDATE users SET vip = true WHERE handle IN ('ivy', 'fay')")
	w.share("jon", 2, "ml")
	w.share("kim", 3, "ml") // protected: their posts are not public
	w.share("eve", 1, "ml")
	w.share("ann", 1, "ml") // followed already
	if err := w.s.SetTags(ctx, w.ids["viv"], []string{"#ML", "ml", "vision"}); err != nil {
		t.Fatal(err)
	}
	if err := w.s.SetTags(ctx, w.ids["ivy"], []string{"ml"}); err != nil {
		t.Fatal(err)
	}

	got, err := w.s.Suggestions(ctx, w.ids["viv"], 10, w.now)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"dot", "eve", "jon", "ivy"}; !slices.Equal(handles(got), want) {
		t.Fatalf("suggestions for viv = %v, want %v", handles(got), want)
	}
	if got[0].FollowedBy != 2 || got[1].FollowedBy != 1 || got[1].TagPosts != 1 || got[2].TagPosts != 2 || !got[3].VIP {
		t.Errorf("reasons = %+v", got)
	}

	// A newcomer with no follows and the tag: its sharers, then trusted members.
	got, err = w.s.Suggestions(ctx, w.ids["ivy"], 10, w.now)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"jon", "ann", "eve", "fay"}; !slices.Equal(handles(got), want) {
		t.Fatalf("suggestions for ivy = %v, want %v", handles(got), want)
	}
	got, err = w.s.Suggestions(ctx, w.ids["ivy"], 2, w.now)
	if err != nil || len(got) != 2 {
		t.Fatalf("limit 2: %v %v", handles(got), err)
	}

	// Trusted members are taken by notability after those the viewer may not be suggested:
	// bob follows fay, the most notable, so his one suggestion is ivy.
	w.exec("UPDATE users SET notability = CASE handle WHEN 'fay' THEN 9 ELSE 1 END WHERE vip")
	got, err = w.s.Suggestions(ctx, w.ids["bob"], 1, w.now)
	if want := []string{"ivy"}; err != nil || !slices.Equal(handles(got), want) {
		t.Fatalf("suggestions for bob, limit 1 = %v (%v), want %v", handles(got), err, want)
	}
}

// The people search finds handles and names containing the text (at least three
// characters), or a handle exactly; the exact handle first; never anyone in a ban with the
// viewer either way; with how the viewer follows each.
func TestSearchPeople(t *testing.T) {
	ctx := context.Background()
	w := newPeopleWorld(t, "viv", "ada", "adam", "canada", "al", "bad_ada", "ban", "banner")
	w.exec("UPDATE users SET display_name = 'Ada Lovelace' WHERE handle = 'al'")
	w.follow("viv", "adam")
	if err := w.s.Ban(ctx, w.ids["viv"], w.ids["ban"]); err != nil {
		t.Fatal(err)
	}
	if err := w.s.Ban(ctx, w.ids["banner"], w.ids["viv"]); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		text string
		want []string
	}{
		{"ada", []string{"ada", "adam", "canada", "al", "bad_ada"}},
		{"@ADA", []string{"ada", "adam", "canada", "al", "bad_ada"}},
		{"lovelace", []string{"al"}},
		{"al", []string{"al"}},       // short: the exact handle only
		{"d_a", []string{"bad_ada"}}, // '_' is no wildcard
		{"ban", nil},
		{"banner", nil},
		{"", nil},
	} {
		got, err := w.s.SearchPeople(ctx, w.ids["viv"], c.text, 10)
		if err != nil {
			t.Fatal(err)
		}
		if g := handles(got); !slices.Equal(g, c.want) && !(len(g) == 0 && len(c.want) == 0) {
			t.Errorf("search %q = %v, want %v", c.text, g, c.want)
		}
		for _, p := range got {
			if want := map[bool]string{true: "active"}[p.Handle == "adam"]; p.FollowState != want {
				t.Errorf("search %q: %s's follow state %q, want %q", c.text, p.Handle, p.FollowState, want)
			}
		}
	}
}

// The first-run page offers the tags most used in public posts, the user's picks checked.
func TestTagChoices(t *testing.T) {
	ctx := context.Background()
	w := newPeopleWorld(t, "viv", "ann", "kim")
	w.share("ann", 3, "ml", "nlp")
	w.share("kim", 5, "secret")
	if err := w.s.SetVisibility(ctx, w.ids["kim"], "protected", w.now); err != nil {
		t.Fatal(err)
	}
	if err := w.s.SetTags(ctx, w.ids["viv"], []string{"nlp", "rust"}); err != nil {
		t.Fatal(err)
	}
	got, err := w.s.TagChoices(ctx, w.ids["viv"], 10, w.now)
	if err != nil {
		t.Fatal(err)
	}
	want := []db.TagChoice{{Tag: "ml", Uses: 3}, {Tag: "nlp", Uses: 3, Picked: true}, {Tag: "rust", Picked: true}}
	if !slices.Equal(got, want) {
		t.Fatalf("tag choices = %+v, want %+v", got, want)
	}
	tooMany := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}
	if err := w.s.SetTags(ctx, w.ids["viv"], tooMany); tributary.ErrorCode(err) != tributary.EInvalid {
		t.Fatalf("11 tags: %v, want invalid", err)
	}
}
