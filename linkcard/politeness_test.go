package linkcard

import (
	"context"
	"testing"
	"time"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestMemoryPolitenessReserve(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	p := NewMemoryPoliteness(clock.now)
	t0 := clock.t
	steps := []struct {
		host    string
		advance time.Duration // clock moves before the reservation
		want    time.Duration // slot, from t0
	}{
		{"arxiv.org", 0, 0},
		{"arxiv.org", 0, 3 * time.Second},                    // arXiv: one request per 3 s
		{"www.arxiv.org", 0, 6 * time.Second},                // the same site
		{"export.arxiv.org", 0, 0},                           // the API host has its own 3 s
		{"blog.example", 0, 0},                               // other hosts are not held up
		{"blog.example", 0, DefaultInterval},                 // and have the default interval
		{"Blog.Example", 0, 2 * DefaultInterval},             // in any case
		{"blog.example", 10 * time.Second, 10 * time.Second}, // an idle host starts now
		{"arxiv.org", 0, 10 * time.Second},
	}
	for i, s := range steps {
		clock.t = clock.t.Add(s.advance)
		if got := p.Reserve(s.host).Sub(t0); got != s.want {
			t.Errorf("step %d: Reserve(%s) at +%v = +%v, want +%v", i, s.host, clock.t.Sub(t0), got, s.want)
		}
	}
}

func TestMemoryPolitenessWait(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	p := NewMemoryPoliteness(clock.now)
	if err := p.Wait(context.Background(), "arxiv.org"); err != nil {
		t.Fatalf("first Wait: %v", err)
	}
	// The clock stands still, so the next slot is 3 s away: only the context ends the wait.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Wait(ctx, "arxiv.org"); err != context.Canceled {
		t.Fatalf("Wait with a canceled context = %v, want context.Canceled", err)
	}
}

// Fetch waits for the host's turn before each request it makes.
func TestFetchWaitsForPoliteness(t *testing.T) {
	fx := sitesFixture(t)
	rec := &recordingPoliteness{}
	f := fx.fetcher(t, Config{Politeness: rec})
	if _, err := f.Fetch(context.Background(), "https://github.com/ada/tinyexperts"); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.hosts, []string{"github.com", "api.github.com"}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("waited for %q, want %q", got, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := f.Fetch(ctx, "https://arxiv.org/abs/2401.00001")
	if got := ReasonOf(err); got != ReasonCanceled {
		t.Errorf("Fetch with a canceled context: reason %q (%v), want %q", got, err, ReasonCanceled)
	}
}

type recordingPoliteness struct{ hosts []string }

func (r *recordingPoliteness) Wait(ctx context.Context, host string) error {
	r.hosts = append(r.hosts, host)
	return ctx.Err()
}

// A github.com page that is no repository asks the API nothing and is no repo card.
func TestGitHubNonRepoPage(t *testing.T) {
	fx := sitesFixture(t)
	fx.serve(t, "github.com", "/topics/retrieval", "blog_og.html", htmlType)
	rec := &recordingPoliteness{}
	c, err := fx.fetcher(t, Config{Politeness: rec}).Fetch(context.Background(), "https://github.com/topics/retrieval")
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind == KindRepo || len(rec.hosts) != 1 {
		t.Errorf("kind %q after asking %q, want no repo and only github.com", c.Kind, rec.hosts)
	}
}
