package db_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
)

// riverWorld is a small site whose home arrivals are read twice: from the rivers (on) and
// from the posts alone (off, fanout on read).
type riverWorld struct {
	t       *testing.T
	ctx     context.Context
	on, off *db.Store
	rng     *rand.Rand
	users   []int64
	posts   []int64 // by index: author users[i%len]
	authors map[int64]int64
	now     time.Time
	n       int
}

func newRiverWorld(t *testing.T, seed uint64, users int) *riverWorld {
	on := dbtest.Store(t)
	on.ArrivalsByFollows = 0 // the followed set is read from follows (no set passed here)
	off := db.NewStore(on.Pool)
	off.Rivers.Off = true
	off.ArrivalsByFollows = 0 // the followed set read from follows, as the river's read does
	w := &riverWorld{t: t, ctx: context.Background(), on: on, off: off, rng: rand.New(rand.NewPCG(seed, 22)),
		authors: map[int64]int64{}, now: time.Now().UTC().Truncate(time.Microsecond)}
	for i := range users {
		u, err := on.CreateUser(w.ctx, db.NewUser{Handle: fmt.Sprintf("u%d", i), DisplayName: fmt.Sprintf("U %d", i), CreatedAt: w.now.Add(-48 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		w.users = append(w.users, u.ID)
	}
	return w
}

func (w *riverWorld) user() int64 { return w.users[w.rng.IntN(len(w.users))] }

// post shares a new link (or an earlier one again) at a time up to ago before now.
func (w *riverWorld) post(author int64, ago time.Duration, tags ...string) int64 {
	w.n++
	url := fmt.Sprintf("https://example.com/%d", w.n)
	if w.n > 3 && w.rng.IntN(4) == 0 {
		url = fmt.Sprintf("https://example.com/%d", 1+w.rng.IntN(w.n-1)) // an item shared again
	}
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: author, URL: url, Tags: tags,
		CreatedAt: w.now.Add(-time.Duration(w.rng.Int64N(int64(ago))))})
	if err != nil {
		w.t.Fatal(err)
	}
	id, err := w.on.CreatePost(w.ctx, p)
	if err != nil {
		w.t.Fatal(err)
	}
	if id != 0 {
		w.posts = append(w.posts, id)
		w.authors[id] = author
	}
	return id
}

// step makes one random change to the world.
func (w *riverWorld) step() string {
	ctx := w.ctx
	a, b := w.user(), w.user()
	var err error
	var what string
	switch k := w.rng.IntN(12); {
	case k < 4:
		what = "post"
		w.post(a, 90*time.Minute, []string{"", "go", "ml"}[w.rng.IntN(3)])
	case k < 6 && a != b:
		what = "follow"
		_, err = w.on.Follow(ctx, a, b)
	case k < 7 && a != b:
		what = "unfollow"
		err = w.on.Unfollow(ctx, a, b)
	case k < 8:
		what = "visibility"
		err = w.on.SetVisibility(ctx, a, []string{"public", "protected", "private"}[w.rng.IntN(3)], w.now)
	case k < 9 && a != b:
		what = "ban"
		err = w.on.Ban(ctx, a, b)
	case k < 10 && len(w.posts) > 0:
		what = "delete"
		id := w.posts[w.rng.IntN(len(w.posts))]
		err = w.on.DeletePost(ctx, w.authors[id], id, w.now)
	case k < 11:
		what = "fanout"
		_, _, err = w.on.FanOutRivers(ctx)
	default:
		what = "rebuild"
		_, err = w.on.RebuildRiver(ctx, a)
	}
	if err != nil && tributary.ErrorCode(err) == tributary.EInternal {
		w.t.Fatalf("%s: %v", what, err)
	}
	return what
}

// check compares, for every user, the arrivals of a few intervals from the rivers and from
// the posts.
func (w *riverWorld) check(label string) {
	for _, u := range w.users {
		v, err := w.on.ViewerAccess(w.ctx, u)
		if err != nil {
			w.t.Fatal(err)
		}
		for _, from := range []time.Duration{3 * time.Hour, 80 * time.Minute, 20 * time.Minute} {
			q := db.ArrivedQuery{Viewer: v, From: w.now.Add(-from), To: w.now, Limit: 1 + w.rng.IntN(30)}
			if w.rng.IntN(4) == 0 {
				q.Tag = "go"
			}
			got, err := w.on.Arrived(w.ctx, q)
			if err != nil {
				w.t.Fatal(err)
			}
			want, err := w.off.Arrived(w.ctx, q)
			if err != nil {
				w.t.Fatal(err)
			}
			if len(want) > 1 && w.rng.IntN(2) == 0 { // and on from a position, leaving one out
				q.PosAt, q.PosID, q.Skip = want[0].At, want[0].AnchorID, []int64{want[len(want)-1].AnchorID}
				g, err := w.on.Arrived(w.ctx, q)
				if err != nil {
					w.t.Fatal(err)
				}
				wt, err := w.off.Arrived(w.ctx, q)
				if err != nil {
					w.t.Fatal(err)
				}
				got, want = append(got, g...), append(want, wt...)
			}
			if !reflect.DeepEqual(ids(got), ids(want)) {
				w.t.Fatalf("%s: viewer %d, (now-%v, now]: river %v, posts %v", label, u, from, got, want)
			}
		}
	}
}

func ids(as []db.Arrival) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = fmt.Sprintf("%d@%s", a.AnchorID, a.At.Format("15:04:05.000000"))
	}
	return out
}

// For random worlds and event sequences, an interval served from a river is what fanout on
// read serves (items and order), whether the posts were fanned out yet or not, whether a
// reconstruction ran or not, and after every river was dropped. Rivers are opened by the
// reads themselves, as a returning reader's page does.
func TestRiverServesWhatFanoutOnReadServes(t *testing.T) {
	for seed := range uint64(5) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			w := newRiverWorld(t, seed, 7)
			for range 40 {
				w.post(w.user(), 3*time.Hour)
			}
			for range 12 {
				if a, b := w.user(), w.user(); a != b {
					if _, err := w.on.Follow(w.ctx, a, b); err != nil {
						t.Fatal(err)
					}
				}
			}
			w.check("opening") // opens a river for everyone (intervals reaching back a day)
			for i := range 30 {
				what := w.step()
				w.check(fmt.Sprintf("step %d (%s)", i, what))
				if i == 20 {
					if _, err := w.on.Pool.Exec(w.ctx, "TRUNCATE home_river_items, home_rivers"); err != nil {
						t.Fatal(err)
					}
					w.check("after every river was dropped")
				}
			}
			served, missed := w.on.RiverCounts()
			if served < missed {
				t.Errorf("rivers served %d intervals and missed %d: the test compared little", served, missed)
			}
		})
	}
}

// A reconstruction stopped after a block (a killed worker) goes on where it stopped when run
// again, and the river then serves what fanout on read serves, with the new followee's posts.
func TestRiverRebuildResumes(t *testing.T) {
	w := newRiverWorld(t, 9, 3)
	reader, old, followee := w.users[0], w.users[1], w.users[2]
	if _, err := w.on.Follow(w.ctx, reader, old); err != nil {
		t.Fatal(err)
	}
	for range 30 {
		w.post(old, 3*time.Hour)
	}
	for range 260 {
		w.post(followee, 3*time.Hour)
	}
	v, err := w.on.ViewerAccess(w.ctx, reader)
	if err != nil {
		t.Fatal(err)
	}
	q := db.ArrivedQuery{Viewer: v, From: w.now.Add(-4 * time.Hour), To: w.now, Limit: 500}
	if _, err := w.on.OpenRiver(w.ctx, reader, q.From); err != nil {
		t.Fatal(err)
	}
	if _, err := w.on.Follow(w.ctx, reader, followee); err != nil {
		t.Fatal(err)
	}
	before, _ := w.on.RiverCounts()
	got, err := w.on.Arrived(w.ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := w.on.RiverCounts(); after != before {
		t.Fatal("a river made for the old followed set served the new one")
	}
	want, err := w.off.Arrived(w.ctx, q)
	if err != nil || !reflect.DeepEqual(ids(got), ids(want)) {
		t.Fatalf("while stale: %v, %d arrivals, want %d", err, len(got), len(want))
	}

	w.on.Rivers.Block = 100
	ctx, cancel := context.WithCancel(w.ctx)
	blocks := 0
	db.AfterRiverBlock(w.on, func() {
		if blocks++; blocks == 2 {
			cancel() // the worker dies after its second block
		}
	})
	if _, err := w.on.RebuildRiver(ctx, reader); err == nil {
		t.Fatal("the killed reconstruction finished")
	}
	var rebuildTo *time.Time
	if err := w.on.Pool.QueryRow(w.ctx, "SELECT rebuild_to FROM home_rivers WHERE reader_id = $1", reader).Scan(&rebuildTo); err != nil || rebuildTo == nil {
		t.Fatalf("no progress kept: %v %v", rebuildTo, err)
	}
	db.AfterRiverBlock(w.on, nil)
	added, err := w.on.RebuildRiver(w.ctx, reader)
	if err != nil {
		t.Fatal(err)
	}
	// The first run added two blocks of the followee's posts (minus the reader's old ones
	// among them); the second only what was left below where it stopped.
	if added <= 0 || added >= 260 {
		t.Errorf("the resumed run added %d posts, want fewer than the followee's 260 (it went on)", added)
	}
	var n int
	if err := w.on.Pool.QueryRow(w.ctx, `SELECT count(*) FROM home_river_items i JOIN posts p ON p.id = i.post_id
		WHERE i.reader_id = $1 AND p.author_id = $2`, reader, followee).Scan(&n); err != nil || n != 260 {
		t.Fatalf("the river holds %d of the followee's 260 posts (%v)", n, err)
	}
	before, _ = w.on.RiverCounts()
	if got, err = w.on.Arrived(w.ctx, q); err != nil {
		t.Fatal(err)
	}
	if after, _ := w.on.RiverCounts(); after != before+1 {
		t.Error("the rebuilt river does not serve")
	}
	if want, err = w.off.Arrived(w.ctx, q); err != nil || !reflect.DeepEqual(ids(got), ids(want)) {
		t.Fatalf("rebuilt: %v\n river %v\n posts %v", err, ids(got), ids(want))
	}
}

// Through River, as the site runs them: a follow enqueues its reader's reconstruction in the
// follow's transaction; a worker that dies in the middle (a panic after its first block) is
// recorded by River and the work is done all the same (TestRiverRebuildResumes shows a run
// going on from where a killed one stopped); unfollowing and following again quickly, and a
// followee going private and back, end with the river serving what fanout on read serves.
func TestRiverJobsRebuildThroughRiver(t *testing.T) {
	w := newRiverWorld(t, 11, 3)
	reader, a, b := w.users[0], w.users[1], w.users[2]
	if _, err := w.on.Follow(w.ctx, reader, a); err != nil {
		t.Fatal(err)
	}
	for range 40 {
		w.post(a, 3*time.Hour)
		w.post(b, 3*time.Hour)
	}
	v, err := w.on.ViewerAccess(w.ctx, reader)
	if err != nil {
		t.Fatal(err)
	}
	q := db.ArrivedQuery{Viewer: v, From: w.now.Add(-4 * time.Hour), To: w.now, Limit: 500}
	if _, err := w.on.OpenRiver(w.ctx, reader, q.From); err != nil {
		t.Fatal(err)
	}
	w.on.Rivers.Block = 10
	w.on.Jobs = db.JobConfig{Workers: 1, Poll: 50 * time.Millisecond, Timeout: 30 * time.Second, Rescue: time.Minute}
	died := false
	db.AfterRiverBlock(w.on, func() {
		if !died {
			died = true
			panic("the worker dies after its first block")
		}
	})
	events, unsubscribe := db.JobEvents(w.on)
	defer unsubscribe()
	ctx, stop := context.WithCancel(w.ctx)
	done := make(chan error, 1)
	go func() { done <- w.on.RunJobs(ctx, nil) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	if _, err := w.on.Follow(w.ctx, reader, b); err != nil {
		t.Fatal(err)
	}
	if err := w.on.Unfollow(w.ctx, reader, a); err != nil {
		t.Fatal(err)
	}
	if _, err := w.on.Follow(w.ctx, reader, a); err != nil {
		t.Fatal(err)
	}
	for _, vis := range []string{"private", "public"} {
		if err := w.on.SetVisibility(w.ctx, b, vis, w.now); err != nil {
			t.Fatal(err)
		}
	}
	var jobs int
	if err := w.on.Pool.QueryRow(w.ctx, "SELECT count(*) FROM river_job WHERE kind = 'rebuild_river'").Scan(&jobs); err != nil || jobs != 3 {
		t.Fatalf("%d reconstruction jobs enqueued (%v), want one per change of the follows", jobs, err)
	}
	// Each job's end is a moment the river may serve again: look then (and once before).
	failures := 0
	timeout := time.After(40 * time.Second)
	for {
		before, _ := w.on.RiverCounts()
		got, err := w.on.Arrived(w.ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want, err := w.off.Arrived(w.ctx, q)
		if err != nil || !reflect.DeepEqual(ids(got), ids(want)) {
			t.Fatalf("%v: river and posts disagree:\n%v\n%v", err, ids(got), ids(want))
		}
		if after, _ := w.on.RiverCounts(); after > before {
			break // rebuilt: the river serves again
		}
		select {
		case ev := <-events:
			if ev.Kind == river.EventKindJobFailed {
				failures++
			}
		case <-timeout:
			var states []string
			w.on.Pool.QueryRow(w.ctx, "SELECT array_agg(state || ':' || attempt || ':' || coalesce(errors::text, '')) FROM river_job").Scan(&states)
			t.Fatalf("the river was not rebuilt in 40 s; jobs: %v", states)
		}
	}
	if !died {
		t.Error("the worker never died: the test did not kill it")
	}
	for failures == 0 { // River reports the dead worker's job once it has recorded it
		select {
		case ev := <-events:
			if ev.Kind == river.EventKindJobFailed {
				failures++
			}
		case <-timeout:
			t.Fatal("River never reported the job whose worker died")
		}
	}
	var failed int
	if err := w.on.Pool.QueryRow(w.ctx, "SELECT count(*) FROM river_job WHERE kind = 'rebuild_river' AND errors IS NOT NULL").Scan(&failed); err != nil {
		t.Fatal(err)
	}
	if failed != 1 {
		t.Errorf("%d jobs recorded the worker's death, want 1", failed)
	}
}
