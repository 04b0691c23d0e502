package web

import (
	"errors"
	"time"

	"tributary"
)

// LiveCaps bound the streams an instance holds open: per client address, per signed-in user
// and in all. A stream past a cap is answered 429 with Retry-After, and its page polls its
// notice meanwhile. They bound what one instance spends on streams (goroutines, memory, the
// wake-ups of a change), so they are counted where the streams are, per instance.
type LiveCaps struct {
	// PerAddress: a household or office behind one address has several people with a few
	// tabs each; one client still cannot take more than a small share of an instance.
	PerAddress int
	// PerUser: one stream per open page; a reader with more tabs than this is polled.
	PerUser int
	// PerInstance: a few hundred MB of open pages (README: an open page's resident memory);
	// a site past it adds instances.
	PerInstance int
}

// DefaultLiveCaps are the caps when none are configured.
var DefaultLiveCaps = LiveCaps{PerAddress: 64, PerUser: 16, PerInstance: 20_000}

// orDefault is c with each cap not set (0) taken from DefaultLiveCaps.
func (c LiveCaps) orDefault() LiveCaps {
	d := DefaultLiveCaps
	if c.PerAddress > 0 {
		d.PerAddress = c.PerAddress
	}
	if c.PerUser > 0 {
		d.PerUser = c.PerUser
	}
	if c.PerInstance > 0 {
		d.PerInstance = c.PerInstance
	}
	return d
}

// liveCapped is a stream refused at a cap, and how soon to try again.
type liveCapped struct {
	error
	retry time.Duration
}

var (
	errLiveClosing  = liveCapped{errors.New("the server is shutting down"), time.Second}
	errLiveAddress  = liveCapped{tributary.Errorf(tributary.ETooMany, "Too many live pages are open from your address. Close some; open pages check for new posts by themselves meanwhile."), 30 * time.Second}
	errLiveUser     = liveCapped{tributary.Errorf(tributary.ETooMany, "Too many of your pages are open live. Close some; open pages check for new posts by themselves meanwhile."), 30 * time.Second}
	errLiveInstance = liveCapped{tributary.Errorf(tributary.ETooMany, "The server has too many live pages open. Your page checks for new posts by itself meanwhile."), 30 * time.Second}
)

func (c liveCapped) Unwrap() error { return c.error }

// liveRetry is how soon a stream refused with err may try again.
func liveRetry(err error) time.Duration {
	if c, ok := err.(liveCapped); ok {
		return c.retry
	}
	return time.Second
}

// join adds a stream of a reader (0: anonymous) from client address addr, within the caps;
// the error says which cap it met (or that the server is shutting down).
func (h *liveHub) join(addr string, user int64) (*liveConn, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closed:
		return nil, errLiveClosing
	case len(h.streams) >= h.caps.PerInstance:
		return nil, errLiveInstance
	case h.byAddr[addr] >= h.caps.PerAddress:
		return nil, errLiveAddress
	case user != 0 && h.byUser[user] >= h.caps.PerUser:
		return nil, errLiveUser
	}
	c := &liveConn{addr: addr, user: user, wake: make(chan struct{}, 1)}
	h.streams[c] = struct{}{}
	h.byAddr[addr]++
	if user != 0 {
		h.byUser[user]++
	}
	h.running.Add(1)
	return c, nil
}

func (h *liveHub) leave(c *liveConn) {
	h.mu.Lock()
	delete(h.streams, c)
	if h.byAddr[c.addr]--; h.byAddr[c.addr] <= 0 {
		delete(h.byAddr, c.addr)
	}
	if c.user != 0 {
		if h.byUser[c.user]--; h.byUser[c.user] <= 0 {
			delete(h.byUser, c.user)
		}
	}
	h.mu.Unlock()
	h.running.Done()
}
