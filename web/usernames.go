package web

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"tributary"
	"tributary/db"
	"tributary/internal/lru"
	"tributary/site"
)

// userNames keeps who a handle names (id, handle and display name) for the pages asked for
// by handle: a user's posts, likes and comments pages, and their live notices. Reading it
// was one of a next page's three round trips. Any change of a user on the site (the event
// path's "users" changes: a new handle or display name, a deleted user, and their access)
// or a reset of the path empties it, and it is used only while this instance hears of
// every change.
type userNames struct {
	store *db.Store
	bus   *site.Bus // nil: nothing tells this process of changes, so nothing is kept

	mu    sync.Mutex
	gen   uint64 // moves on every emptying: a read begun before one keeps nothing
	names *lru.Cache[string, tributary.User]
}

// userNamesKept bounds the names kept; userNamesTTL is how long one is kept at most.
const (
	userNamesKept = 20_000
	userNamesTTL  = 10 * time.Minute
)

func newUserNames(store *db.Store, bus *site.Bus, now func() time.Time) *userNames {
	n := &userNames{store: store, bus: bus, names: lru.New[string, tributary.User](userNamesTTL, userNamesKept, now)}
	if bus != nil {
		bus.Subscribe(n.siteChanged)
	}
	return n
}

// byHandle returns the user a handle names (case-insensitively), with their id, handle and
// display name only.
func (n *userNames) byHandle(ctx context.Context, handle string) (tributary.User, error) {
	key := strings.ToLower(handle)
	kept := n.bus.Up()
	if kept {
		if u, ok := n.names.Get(key); ok {
			return u, nil
		}
	}
	n.mu.Lock()
	gen := n.gen
	n.mu.Unlock()
	u, err := n.store.UserByHandle(ctx, handle)
	if err != nil {
		return tributary.User{}, err
	}
	u = tributary.User{ID: u.ID, Handle: u.Handle, DisplayName: u.DisplayName}
	if kept {
		n.mu.Lock()
		if n.gen == gen {
			n.names.Put(key, u)
		}
		n.mu.Unlock()
	}
	return u, nil
}

func (n *userNames) siteChanged(changes []db.SiteChange, reset bool) {
	if !reset && !slices.ContainsFunc(changes, func(c db.SiteChange) bool { return c.Kind == "users" }) {
		return
	}
	n.mu.Lock()
	n.gen++
	n.names.Clear()
	n.mu.Unlock()
}
