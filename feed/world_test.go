package feed_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
	"tributary/feed"
	"tributary/site"
)

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// world is a small real database with a movable clock.
type world struct {
	t     *testing.T
	ctx   context.Context
	store *db.Store
	now   time.Time
	users map[string]tributary.User
}

func newWorld(t *testing.T) *world {
	t.Helper()
	return &world{t: t, ctx: context.Background(), store: dbtest.Store(t), now: t0, users: map[string]tributary.User{}}
}

func (w *world) clock() time.Time { return w.now }

func (w *world) service(mod func(*feed.Config)) *feed.Service {
	cfg := feed.DefaultConfig()
	if mod != nil {
		mod(&cfg)
	}
	s := feed.New(w.store, cfg, w.clock)
	if err := s.Warm(w.ctx); err != nil { // as the server does after each refresh
		w.t.Fatal(err)
	}
	return s
}

func (w *world) user(handle string, vip bool, notability int64) tributary.User {
	w.t.Helper()
	u, err := w.store.CreateUser(w.ctx, db.NewUser{Handle: handle, DisplayName: handle, VIP: vip, Notability: notability, CreatedAt: w.now})
	if err != nil {
		w.t.Fatal(err)
	}
	w.users[handle] = u
	return u
}

func (w *world) follow(follower string, followed ...string) {
	w.t.Helper()
	for _, f := range followed {
		if _, err := w.store.Follow(w.ctx, w.users[follower].ID, w.users[f].ID); err != nil {
			w.t.Fatal(err)
		}
	}
}

// share posts url by handle, ago before now, linking links (an image on each link with img).
func (w *world) share(handle, url string, ago time.Duration, img bool, links ...string) {
	w.t.Helper()
	var ls []tributary.Link
	for _, l := range links {
		link := tributary.Link{URL: l}
		if img {
			link.Image = "/preview/" + handle + ".svg"
		}
		ls = append(ls, link)
	}
	p, err := tributary.Prepare(tributary.NewPost{AuthorID: w.users[handle].ID, URL: url, Title: url, Links: ls,
		CreatedAt: w.now.Add(-ago)})
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.store.CreatePost(w.ctx, p); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) refresh() {
	w.t.Helper()
	if _, err := w.store.RefreshSnapshot(w.ctx, w.now); err != nil {
		w.t.Fatal(err)
	}
}

// timeline loads a fresh first page (dropping fence state, so each call ranks anew).
func (w *world) timeline(s *feed.Service, viewer string, q tributary.FeedQuery) tributary.Timeline {
	w.t.Helper()
	if err := w.store.ResetFences(w.ctx, w.users[viewer].ID); err != nil {
		w.t.Fatal(err)
	}
	if q.Limit == 0 {
		q.Limit = 20
	}
	var v *tributary.User
	if viewer != "" {
		u := w.users[viewer]
		v = &u
	}
	t, err := s.Timeline(w.ctx, v, q)
	if err != nil {
		w.t.Fatal(err)
	}
	return t
}

func urls(t tributary.Timeline) []string {
	out := make([]string, len(t.Items))
	for i, it := range t.Items {
		out[i] = it.AnchorURL
	}
	return out
}

// runBus runs one instance's end of the site's event path on store until the test ends,
// and waits until it listens.
func runBus(t *testing.T, ctx context.Context, store *db.Store) *site.Bus {
	t.Helper()
	bus := site.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); bus.Run(runCtx) }()
	t.Cleanup(func() { stop(); <-done })
	upCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := bus.WaitUp(upCtx); err != nil {
		t.Fatalf("the site listener is not up: %v", err)
	}
	return bus
}
