// Package jobs is Tributary's one in-process scheduler: a ticker per job, with jitter,
// context cancellation and one log line per run. Jobs are idempotent and safe to kill.
package jobs

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"
)

// Job is work repeated every Every, first after a random fraction of Every (so several
// instances started together do not run in lockstep).
type Job struct {
	Name  string
	Every time.Duration
	// Jitter is the fraction of Every added at random to each wait (0 to 1).
	Jitter float64
	// RunAtStart runs the job once right away.
	RunAtStart bool
	Run        func(ctx context.Context) (summary string, err error)
}

// Run runs every job until ctx is done, then waits for running jobs to return.
func Run(ctx context.Context, log *slog.Logger, jobs ...Job) {
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(func() { loop(ctx, log, j) })
	}
	wg.Wait()
}

func loop(ctx context.Context, log *slog.Logger, j Job) {
	if j.RunAtStart {
		once(ctx, log, j)
	}
	for {
		wait := j.Every + time.Duration(rand.Float64()*j.Jitter*float64(j.Every))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
			once(ctx, log, j)
		}
	}
}

func once(ctx context.Context, log *slog.Logger, j Job) {
	start := time.Now()
	summary, err := j.Run(ctx)
	if err != nil {
		if ctx.Err() == nil {
			log.Error("job failed", "job", j.Name, "dur", time.Since(start).Round(time.Millisecond), "err", err)
		}
		return
	}
	level := slog.LevelInfo
	if summary == "" { // a frequent job with nothing done
		level = slog.LevelDebug
	}
	log.Log(ctx, level, "job ran", "job", j.Name, "dur", time.Since(start).Round(time.Millisecond), "result", summary)
}
