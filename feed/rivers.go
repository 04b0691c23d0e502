package feed

import (
	"context"
	"log/slog"
	"time"
)

// RiverKeeping is how an instance keeps the rivers (db/rivers.go): how long a reader stays
// active without reading, and how deep a river may grow.
type RiverKeeping struct {
	Idle  time.Duration // a river not read for this long is swept (tier 2 ends there)
	Depth int           // items a river keeps, newest first (seed 003's depth cap L)
	Sweep time.Duration // how often rivers are swept and capped
}

// DefaultRiverKeeping: rivers of readers seen within a day, 1,000 items deep.
var DefaultRiverKeeping = RiverKeeping{Idle: 24 * time.Hour, Depth: 1000, Sweep: 10 * time.Minute}

// fanoutPoll fans out even when no wake-up came (one lost with the listening connection).
const fanoutPoll = time.Second

// RunRivers keeps the rivers until ctx is done: it fans new posts out to their readers' rivers
// as soon as this instance hears of them (fanout on write, after commit: a share's request
// does not wait for it), so the rivers of open and of recently closed pages (tier 2) stay
// current, and it sweeps and caps them. Several instances may run it: one fans out at a
// time, and the rivers' reads add what is not fanned out yet, so nothing waits for it.
func (s *Service) RunRivers(ctx context.Context, k RiverKeeping, log *slog.Logger) {
	poll := time.NewTicker(fanoutPoll)
	defer poll.Stop()
	sweep := time.NewTicker(k.Sweep)
	defer sweep.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-sweep.C:
			start := time.Now()
			swept, trimmed, err := s.store.SweepRivers(ctx, start.Add(-k.Idle), k.Depth)
			if err != nil {
				if ctx.Err() == nil {
					log.Error("river sweep failed", "err", err)
				}
				continue
			}
			log.Info("job ran", "job", "river-sweep", "dur", time.Since(start).Round(time.Millisecond),
				"result", slog.GroupValue(slog.Int64("swept", swept), slog.Int64("trimmed_items", trimmed)))
			continue
		case <-s.fanout:
		case <-poll.C:
		}
		start := time.Now()
		posts, rows, err := s.store.FanOutRivers(ctx)
		if err != nil {
			if ctx.Err() == nil {
				log.Error("fanout failed", "err", err)
			}
			continue
		}
		if posts > 0 {
			log.Debug("fanout", "posts", posts, "river_items", rows, "dur", time.Since(start).Round(time.Microsecond))
		}
	}
}
