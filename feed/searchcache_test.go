package feed_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"tributary"
	"tributary/db"
	"tributary/feed"
)

// A search's candidates are shared by its readers and checked again for each: every reader
// finds exactly what they may read, from the candidates kept (the second reader's search
// reads no new ones); a comment made or edited after the candidates were read, and a post
// made with a time in the past (heard of through the site's event path), still come.
func TestSearchCandidatesSharedAndChecked(t *testing.T) {
	ctx := context.Background()
	w, log := tracedWorld(t)
	pool := w.store.Pool
	for _, h := range []string{"ada", "bob", "cy", "dee", "eve"} {
		w.user(h, false, 0)
	}
	// More results than a search keeps candidates of: cy's, and dee's, whom bob may not
	// read (dee is protected and banned bob).
	if err := w.store.SetVisibility(ctx, w.users["dee"].ID, tributary.AccessProtected, w.now); err != nil {
		t.Fatal(err)
	}
	if err := w.store.Ban(ctx, w.users["dee"].ID, w.users["bob"].ID); err != nil {
		t.Fatal(err)
	}
	const n = 450
	for i := range n {
		author := []string{"cy", "cy", "dee"}[i%3]
		w.share(author, fmt.Sprintf("https://example.com/quantum/%d", i), time.Duration(i+1)*7*time.Minute, false)
	}
	w.share("eve", "https://example.com/lattice", 20*time.Minute, false)
	eveNote := w.postOf("eve", "https://example.com/lattice")

	bus := runBus(t, ctx, w.store)
	s := feed.New(w.store, feed.DefaultConfig(), w.clock)
	s.Attach(bus)
	// The listener starts reading at the server's oldest running transaction, which another
	// database's may hold back: the setup's own changes (the posts made in the past among
	// them) may then be heard of later and drop the candidates mid-test. Caught up now, they
	// are applied once and not heard of again.
	bus.Sync(ctx)

	q := db.Search{Text: "'quantum'"}
	want := func(viewer string) []int64 {
		t.Helper()
		rows, err := pool.Query(ctx, `SELECT p.id FROM posts p JOIN users u ON u.id = p.author_id
			WHERE (p.search @@ to_tsquery('english', 'quantum')
			       OR EXISTS (SELECT 1 FROM comments c WHERE c.post_id = p.id AND c.search @@ to_tsquery('english', 'quantum')))
			  AND NOT ($1 = 'bob' AND u.handle = 'dee') ORDER BY p.id`, viewer)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	search := func(what, viewer string) {
		t.Helper()
		if err := w.store.ResetFences(ctx, w.users[viewer].ID); err != nil {
			t.Fatal(err)
		}
		v := w.users[viewer]
		got := slices.Sorted(slices.Values(walkSearch(t, ctx, s, &v, w.accessOf(viewer), q, 20)))
		if want := want(viewer); !slices.Equal(got, want) {
			t.Errorf("%s: %s found %d posts, want %d (%v missing)", what, viewer, len(got), len(want), missing(want, got))
		}
	}

	search("the first search", "ada")
	log.Take()
	search("the candidates kept", "bob")
	if names := log.Take(); !slices.Contains(names, "SearchTalkSince") || !slices.Contains(names, "SearchAmong") {
		t.Errorf("bob's search ran %v: want the candidates kept checked again (SearchTalkSince, SearchAmong)", names)
	}

	w.now = w.now.Add(time.Minute)
	if _, _, err := w.store.AddComment(ctx, w.accessOf("ada"), eveNote, "a quantum of it", w.now, tributary.DefaultBumpRule); err != nil {
		t.Fatal(err)
	}
	search("after a comment", "bob")

	w.now = w.now.Add(time.Minute)
	if _, _, err := w.store.AddComment(ctx, w.accessOf("ada"), w.postOf("cy", "https://example.com/quantum/3"), "nothing to see", w.now, tributary.DefaultBumpRule); err != nil {
		t.Fatal(err)
	}
	search("candidates read again", "ada")
	var edited int64
	if err := pool.QueryRow(ctx, `SELECT c.id FROM comments c WHERE c.body = 'nothing to see'`).Scan(&edited); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(time.Minute)
	if _, err := w.store.EditComment(ctx, w.accessOf("ada"), edited, "quantum after all", w.now); err != nil {
		t.Fatal(err)
	}
	search("after an edit", "bob")

	// Made an hour in the past (an import): every instance drops its candidates once it has
	// heard of it.
	w.now = w.now.Add(time.Minute)
	search("candidates read again", "ada")
	log.Take()
	w.share("eve", "https://example.com/quantum/late", time.Hour+time.Second, false)
	bus.Sync(ctx)
	search("after a post made in the past", "ada")
	if names := log.Take(); slices.Contains(names, "SearchTalkSince") {
		t.Errorf("the search after a post made in the past ran %v: want the kept candidates dropped (no SearchTalkSince)", names)
	}
	search("after a post made in the past", "bob")
}

func missing(want, got []int64) []int64 {
	var out []int64
	for _, id := range want {
		if _, ok := slices.BinarySearch(got, id); !ok {
			out = append(out, id)
		}
	}
	return out
}
