package main

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"tributary/db"
	"tributary/db/dbtest"
)

// A job takes its host's turn only when it is about due (a later one is left to a later
// try, its worker free meanwhile) but waits for its own follow-up requests; a preview goes at
// once, ahead of the jobs, and the jobs' next turn moves after it.
func TestHostScheduleLetsPreviewsGoFirst(t *testing.T) {
	ctx := context.Background()
	h := hostSchedule{dbtest.Store(t)}
	job := func() context.Context { return context.WithValue(ctx, turnsKey{}, new(atomic.Bool)) }
	const host = "blog.example.org"

	first := job()
	if err := h.Wait(first, host); err != nil {
		t.Fatalf("a job's first request on an idle host: %v", err)
	}
	var busy *db.HostBusy
	if err := h.Wait(job(), host); !errors.As(err, &busy) {
		t.Fatalf("another job's request right after: %v, want HostBusy (its turn is a second away)", err)
	}
	start := time.Now()
	if err := h.Wait(first, host); err != nil || time.Since(start) < 500*time.Millisecond {
		t.Fatalf("the first job's follow-up (its image): %v after %s, want its turn about a second later", err, time.Since(start))
	}

	start = time.Now()
	if err := h.Wait(db.WithPreview(job()), host); err != nil || time.Since(start) > 500*time.Millisecond {
		t.Fatalf("a preview while jobs hold the host: %v after %s, want it at once", err, time.Since(start))
	}
	if err := h.Wait(job(), host); !errors.As(err, &busy) || time.Until(busy.Until) < 1500*time.Millisecond {
		t.Fatalf("a job after the preview: %v, want HostBusy behind the preview's turn", err)
	}
	// arXiv asks for one request per 3 s: a preview of it waits its turn too.
	if err := h.Wait(job(), "arxiv.org"); err != nil {
		t.Fatal(err)
	}
	pctx, cancel := context.WithTimeout(db.WithPreview(ctx), 500*time.Millisecond)
	defer cancel()
	if err := h.Wait(pctx, "arxiv.org"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("an arXiv preview right after a fetch: %v, want it to wait past its deadline", err)
	}
}
