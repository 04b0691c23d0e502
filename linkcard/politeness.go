package linkcard

import (
	"context"
	"strings"
	"sync"
	"time"
)

// Politeness spaces the fetcher's requests to one host. Wait returns when a
// request to host may start, or the context's error. The serve command backs
// it by PostgreSQL so that every instance shares one schedule per host.
type Politeness interface {
	Wait(ctx context.Context, host string) error
}

// DefaultInterval is the least time between two requests to one host.
const DefaultInterval = time.Second

// Intervals for hosts that ask for more: arXiv asks for one request per 3 s.
var Intervals = map[string]time.Duration{
	"arxiv.org":        3 * time.Second,
	"export.arxiv.org": 3 * time.Second,
}

// IntervalFor returns the least time between two requests to host.
func IntervalFor(host string) time.Duration {
	host = politeHost(host)
	if d, ok := Intervals[host]; ok {
		return d
	}
	return DefaultInterval
}

// politeHost folds the spellings of one site into one key.
func politeHost(host string) string {
	return strings.TrimPrefix(strings.ToLower(host), "www.")
}

// MemoryPoliteness is a Politeness for one process: each Wait reserves the
// host's next free slot, so concurrent waiters queue up rather than burst.
type MemoryPoliteness struct {
	now  func() time.Time
	mu   sync.Mutex
	next map[string]time.Time // host -> earliest start of the next request
}

// NewMemoryPoliteness returns a MemoryPoliteness on the clock now (time.Now if nil).
func NewMemoryPoliteness(now func() time.Time) *MemoryPoliteness {
	if now == nil {
		now = time.Now
	}
	return &MemoryPoliteness{now: now, next: map[string]time.Time{}}
}

// Reserve books the next slot for host and returns its start time.
func (p *MemoryPoliteness) Reserve(host string) time.Time {
	host = politeHost(host)
	p.mu.Lock()
	defer p.mu.Unlock()
	at := p.now()
	if n := p.next[host]; n.After(at) {
		at = n
	}
	p.next[host] = at.Add(IntervalFor(host))
	return at
}

// Wait implements Politeness. A waiter whose context ends keeps its slot
// booked: the host sees no more than one request per interval either way.
func (p *MemoryPoliteness) Wait(ctx context.Context, host string) error {
	d := p.Reserve(host).Sub(p.now())
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
