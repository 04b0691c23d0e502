package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"tributary"
	"tributary/db"
	"tributary/db/dbtest"
	"tributary/feed"
)

// A heartbeat's ask reads the reader's session and access again but keeps the notice's
// state (their followed set) while the access is as it was; a change of access (an item
// hidden) or every liveStateBeats-th beat reads the state again.
func TestHeartbeatKeepsTheNoticeStateWhileAccessHolds(t *testing.T) {
	ctx := context.Background()
	store := dbtest.Store(t)
	s := NewServer(Config{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), HashCost: bcrypt.MinCost})
	now := time.Now()
	users := map[string]tributary.User{}
	for _, h := range []string{"ann", "bob", "cy"} {
		u, err := store.CreateUser(ctx, db.NewUser{Handle: h, DisplayName: h, CreatedAt: now.Add(-time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		users[h] = u
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := store.Follow(ctx, users["ann"].ID, users["bob"].ID)
	must(err)
	share := func(h, link string) int64 {
		t.Helper()
		p, err := tributary.Prepare(tributary.NewPost{AuthorID: users[h].ID, URL: link, Title: link, CreatedAt: time.Now().Add(-30 * time.Second)})
		must(err)
		id, err := store.Share(ctx, p, db.Destination{OwnFeed: true})
		must(err)
		return id
	}
	token := "ann-live-token"
	data, err := db.SessionData(users["ann"].ID, now.Add(time.Hour))
	must(err)
	must(store.Sessions().CommitCtx(ctx, token, data, now.Add(time.Hour)))
	ann := users["ann"]
	r := httptest.NewRequest("GET", "/live", nil).WithContext(context.WithValue(ctx, userKey, &ann)) // as the session middleware leaves it
	r.AddCookie(&http.Cookie{Name: s.sessions.Cookie.Name, Value: token})
	src, err := rankedNotice(url.Values{"fencepost": {feed.FormatFencepost(now.Add(-time.Minute))}})
	must(err)
	reader := &liveReader{}
	ask := func(what string, keep bool, want string) {
		t.Helper()
		reader.read, reader.keepState = false, keep
		b, ok, gone := s.askLive(ctx, r, src, reader, false)
		if !ok || gone {
			t.Fatalf("%s: ask ok %v, gone %v", what, ok, gone)
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s: notice %q, want %q", what, b, want)
		}
	}
	bobs := share("bob", "https://example.com/bob")
	ask("bob's share", false, "1 new")

	// ann follows cy behind the stream's back (no change heard): a heartbeat keeps the state
	// that does not follow cy, the state's own beat reads it again.
	_, err = store.Follow(ctx, users["ann"].ID, users["cy"].ID)
	must(err)
	share("cy", "https://example.com/cy")
	ask("a heartbeat", true, "1 new")
	ask("the state's beat", false, "2 new")

	// An item hidden elsewhere changes the access the heartbeat reads: the state goes too.
	v, err := store.ViewerAccess(ctx, users["ann"].ID)
	must(err)
	must(store.HideItem(ctx, v, bobs, time.Now()))
	ask("a heartbeat after a hide", true, "1 new")
}
