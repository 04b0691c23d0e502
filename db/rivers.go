package db

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"tributary/db/internal/dbq"
)

// Rivers (seed 002, migration 00022): an active reader's home feed arrivals, materialized as
// an inbox of post ids pushed on write. Arrived serves a logged-in home feed's interval from
// its reader's river when the river covers it, and opens one for a reader who has none; the
// feed service fans new posts out after they commit (FanOutRivers), a ticker sweeps and caps
// them (SweepRivers), and a durable job brings a river up to date after its reader's follows
// change (RebuildRiver). Nothing depends on a river being there: without one, or with one
// that cannot answer, the interval is read from the posts.

// RiverConfig says whether and how home feeds are served from rivers.
type RiverConfig struct {
	Off bool // fanout on read only: no river is read or opened
	// Span is how far back a new river reaches (an interval starting earlier is read from
	// the posts).
	Span time.Duration
	// Block is how many posts a reconstruction adds per transaction, newest first.
	Block int
}

// DefaultRiverConfig: rivers on, reaching back a day, rebuilt 500 posts at a time.
var DefaultRiverConfig = RiverConfig{Span: 24 * time.Hour, Block: 500}

// riverCounts counts the intervals served from a river and those read from the posts.
type riverCounts struct {
	served, missed atomic.Int64
	afterBlock     func() // tests: runs after each committed block of a reconstruction
}

// RiverCounts reports how many logged-in home intervals were served from rivers and how
// many from the posts, so far.
func (s *Store) RiverCounts() (served, missed int64) {
	return s.riverCounts.served.Load(), s.riverCounts.missed.Load()
}

// riverArrivals serves q from the viewer's river; ok false when the river cannot answer
// (then the caller reads the posts), opening one when the viewer has none.
func (s *Store) riverArrivals(ctx context.Context, q ArrivedQuery, posAt time.Time, posID int64) ([]Arrival, bool, error) {
	rows, err := s.q.RiverArrivals(ctx, dbq.RiverArrivalsParams{ViewerID: q.Viewer.ID, Groups: nonNilIDs(q.Viewer.Groups),
		Blocked: nonNilIDs(q.Viewer.Blocked), PrivateFeeds: nonNilIDs(q.Viewer.PrivateFeeds), FromAt: q.From, ToAt: q.To,
		Kind: string(q.Source), Tag: q.Tag, Skip: nonNilIDs(q.Skip), PosAt: posAt, PosID: posID, Lim: int32(q.Limit)})
	if err != nil {
		return nil, false, fmt.Errorf("db: river arrivals: %w", err)
	}
	n := len(rows)
	if n == 0 || rows[n-1].AnchorID > 0 {
		s.riverCounts.served.Add(1)
		out := make([]Arrival, n)
		for i, r := range rows {
			out[i] = Arrival{AnchorID: r.AnchorID, At: r.Arrival}
		}
		return out, true, nil
	}
	s.riverCounts.missed.Add(1)
	if rows[n-1].AnchorID < 0 { // no river: this reader is active now
		since := q.From
		if oldest := q.To.Add(-s.Rivers.Span); since.Before(oldest) {
			since = oldest
		}
		if _, err := s.OpenRiver(ctx, q.Viewer.ID, since); err != nil {
			return nil, false, err
		}
	}
	return nil, false, nil
}

// OpenRiver makes (or makes again) reader's river over (since, now], filled from the posts,
// and returns how many posts it holds.
func (s *Store) OpenRiver(ctx context.Context, reader int64, since time.Time) (int, error) {
	var n int32
	err := s.inTx(ctx, func(q *dbq.Queries) error {
		if err := q.EnsureRiverFanout(ctx); err != nil {
			return err
		}
		// After the fanout in progress, if any: the fill below sees what it fanned out, and
		// the next fanout sees this river.
		if err := q.LockRiversShared(ctx); err != nil {
			return err
		}
		if err := q.LockReaderFollows(ctx, reader); err != nil {
			return err
		}
		if err := q.ClearRiver(ctx, reader); err != nil {
			return err
		}
		var err error
		n, err = q.OpenRiver(ctx, dbq.OpenRiverParams{ReaderID: reader, Since: since})
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("db: open river: %w", err)
	}
	return int(n), nil
}

// FanOutRivers puts the posts committed since the last fanout into the rivers of their
// readers (fanout on write, after commit). One instance fans out at a time; the others
// return at once (busy), and the one fanning out hears of the same changes and runs again.
func (s *Store) FanOutRivers(ctx context.Context) (posts int, rows int64, err error) {
	err = s.runTx(ctx, pgx.TxOptions{}, func(_ pgx.Tx, q *dbq.Queries) error {
		if ok, err := q.TryLockRiversFanout(ctx); err != nil || !ok {
			return err
		}
		if err := q.EnsureRiverFanout(ctx); err != nil {
			return err
		}
		// Transactions older than xmin are over: their changes are all read below, and the
		// next fanout starts from xmin.
		xmin, err := q.SiteXmin(ctx)
		if err != nil {
			return err
		}
		mark, err := q.RiverFanoutMark(ctx)
		if err != nil {
			return err
		}
		changes, err := q.UnfannedPosts(ctx, mark)
		if err != nil {
			return err
		}
		var ids []int64
		bulk := false
		for _, c := range changes {
			bulk = bulk || len(c) == 0
			ids = append(ids, c...)
		}
		switch {
		case bulk: // too many new posts to list: no river can know what it lacks
			rows, err = q.DropAllRivers(ctx)
		case len(ids) > 0:
			posts = len(ids)
			rows, err = q.FanOutPosts(ctx, ids)
		}
		if err != nil {
			return err
		}
		if xmin > mark {
			return q.SetRiverFanoutMark(ctx, xmin)
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("db: fan out: %w", err)
	}
	return posts, rows, nil
}

// SweepRivers drops the rivers not read since before (their readers are no longer active)
// and caps the others at depth items (the oldest leave; the river then starts later).
func (s *Store) SweepRivers(ctx context.Context, before time.Time, depth int) (swept, trimmed int64, err error) {
	if swept, err = s.q.SweepRivers(ctx, before); err != nil {
		return 0, 0, fmt.Errorf("db: sweep rivers: %w", err)
	}
	if trimmed, err = s.q.TrimRivers(ctx, int32(depth)); err != nil {
		return 0, 0, fmt.Errorf("db: trim rivers: %w", err)
	}
	return swept, trimmed, nil
}

// RiverStats counts rivers and their items, and their tables' bytes.
type RiverStats struct {
	Rivers, Items, Bytes int64
}

// RiverStats reports the rivers' size now.
func (s *Store) RiverStats(ctx context.Context) (RiverStats, error) {
	r, err := s.q.RiverStats(ctx)
	if err != nil {
		return RiverStats{}, fmt.Errorf("db: river stats: %w", err)
	}
	return RiverStats{Rivers: r.Rivers, Items: r.Items, Bytes: r.Bytes}, nil
}

// RebuildRiver re-aggregates reader's river after their follows changed (seed 003's
// reconstruction): the posts of their followed set now are added in blocks, newest first,
// each block its own transaction and its progress kept in the river (a killed worker's next
// run goes on from there), then the posts of those no longer followed leave and the river is
// stamped with the followed set it now holds, and serves again. It adds and removes posts,
// never moves one (no bumping), and is idempotent. While it runs the river does not serve
// (its version is not its reader's): reads go to the posts. A reader without a river has
// nothing to rebuild. It returns the posts added.
func (s *Store) RebuildRiver(ctx context.Context, reader int64) (added int, err error) {
	block := max(s.Rivers.Block, 1)
	for range 10 { // the followed set may move on while it runs; then once more
		st, err := s.q.RiverState(ctx, reader)
		if err == pgx.ErrNoRows {
			return added, nil
		}
		if err != nil {
			return added, fmt.Errorf("db: river state: %w", err)
		}
		if st.FollowedVersion == st.FollowsVersion && st.RebuildTo == nil {
			return added, nil // up to date
		}
		to := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC) // from the newest post, whatever the clocks
		if st.RebuildTo != nil && st.RebuildVersion.Valid && st.RebuildVersion.Int64 == st.FollowsVersion {
			to = *st.RebuildTo // a run for this followed set stopped there
		}
		for {
			var r dbq.FillRiverRow
			next := to
			err := s.inTx(ctx, func(q *dbq.Queries) error {
				var err error
				if r, err = q.FillRiver(ctx, dbq.FillRiverParams{ReaderID: reader, ToAt: to, Lim: int32(block)}); err != nil {
					return err
				}
				if next = r.Oldest; !next.Before(to) {
					next = to.Add(-time.Microsecond) // a whole block of posts made at one time
				}
				return q.SetRiverRebuild(ctx, dbq.SetRiverRebuildParams{ReaderID: reader, RebuildTo: &next, Version: pgtype.Int8{Int64: st.FollowsVersion, Valid: true}})
			})
			if err != nil {
				return added, fmt.Errorf("db: rebuild river: %w", err)
			}
			added += int(r.Added)
			if s.riverCounts.afterBlock != nil {
				s.riverCounts.afterBlock()
			}
			if r.N < int32(block) {
				break
			}
			to = next
		}
		done, err := s.q.FinishRiverRebuild(ctx, dbq.FinishRiverRebuildParams{ReaderID: reader, Version: st.FollowsVersion})
		if err != nil {
			return added, fmt.Errorf("db: finish river rebuild: %w", err)
		}
		if done == 1 {
			return added, nil
		}
		// The followed set moved on: start again from the newest.
		if err := s.q.SetRiverRebuild(ctx, dbq.SetRiverRebuildParams{ReaderID: reader}); err != nil {
			return added, fmt.Errorf("db: restart river rebuild: %w", err)
		}
	}
	return added, fmt.Errorf("db: rebuild river %d: its followed set keeps changing", reader)
}
