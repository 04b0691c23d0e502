package db

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"tributary"

	"tributary/db/internal/dbq"
)

// FencepostRow is a stored fencepost; PrevAt is zero when there is no older one. Snap is the
// snapshot its reads were made in (XactSnapshot; empty: not known), for LateArrivals.
type FencepostRow struct {
	At     time.Time
	PrevAt time.Time
	Head   []int64
	Snap   string
}

func fencepostOf(r dbq.Fencepost) FencepostRow {
	fp := FencepostRow{At: r.At.UTC(), Head: r.Head, Snap: r.Snap.String}
	if r.PrevAt != nil {
		fp.PrevAt = r.PrevAt.UTC()
	}
	return fp
}

// timeOrNil is t for a nullable column: NULL when zero.
func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// LatestFencepost returns the newest committed fencepost of a fence.
func (s *Store) LatestFencepost(ctx context.Context, viewer int64, template string) (FencepostRow, bool, error) {
	r, err := s.q.LatestFencepost(ctx, dbq.LatestFencepostParams{ViewerID: viewer, Template: template})
	if errors.Is(err, pgx.ErrNoRows) {
		return FencepostRow{}, false, nil
	}
	if err != nil {
		return FencepostRow{}, false, fmt.Errorf("db: latest fencepost: %w", err)
	}
	return fencepostOf(r), true, nil
}

// FencepostsFrom returns the fencepost of a fence committed at at (first, when it is still
// kept) and the older ones, newest first, until their heads hold items for a page: a page
// that crosses a chain of short fenceposts reads them in one round trip (FencepostsFrom).
func (s *Store) FencepostsFrom(ctx context.Context, viewer int64, template string, at time.Time, items int) ([]FencepostRow, error) {
	rows, err := s.q.FencepostsFrom(ctx, dbq.FencepostsFromParams{ViewerID: viewer, Template: template, At: at, Items: int64(items)})
	if err != nil {
		return nil, fmt.Errorf("db: fenceposts: %w", err)
	}
	out := make([]FencepostRow, len(rows))
	for i, r := range rows {
		out[i] = fencepostOf(dbq.Fencepost{At: r.At, PrevAt: r.PrevAt, Head: r.Head, Snap: r.Snap})
	}
	return out, nil
}

// CommitFencepost stores a fencepost and moves the fence forward to it.
func (s *Store) CommitFencepost(ctx context.Context, viewer int64, template string, fp FencepostRow, now time.Time) error {
	if err := s.q.CommitFencepost(ctx, commitFencepostParams(viewer, template, fp, now)); err != nil {
		return fmt.Errorf("db: commit fencepost: %w", err)
	}
	return nil
}

func commitFencepostParams(viewer int64, template string, fp FencepostRow, now time.Time) dbq.CommitFencepostParams {
	return dbq.CommitFencepostParams{ViewerID: viewer, Template: template, At: fp.At,
		PrevAt: timeOrNil(fp.PrevAt), Head: nonNilIDs(fp.Head), CreatedAt: now, Snap: fp.Snap}
}

// CommitFencepostReading commits a fencepost of v's fence as CommitFencepost does and, in
// the same round trip, reads v's likes that likes asks for (LikedOf): a first page commits
// the fencepost of the items whose cards it then makes. The read goes first, so that its
// failure cannot undo the commit (the batch is one transaction): the fencepost is then
// committed alone, and likes stay unread (Liked nil).
func (s *Store) CommitFencepostReading(ctx context.Context, v tributary.Viewer, template string, fp FencepostRow, now time.Time, likes *LikesRead) error {
	if likes == nil || len(likes.Anchors) == 0 || v.ID == 0 {
		return s.CommitFencepost(ctx, v.ID, template, fp, now)
	}
	var liked []dbq.LikedOfRow
	errs := s.pipeline(ctx, func(q *dbq.Queries) (err error) {
		liked, err = q.LikedOf(ctx, likedOfParams(v, likes.Anchors))
		return err
	}, func(q *dbq.Queries) error {
		return q.CommitFencepost(ctx, commitFencepostParams(v.ID, template, fp, now))
	})
	if errs[0] != nil {
		return s.CommitFencepost(ctx, v.ID, template, fp, now)
	}
	if errs[1] != nil {
		return fmt.Errorf("db: commit fencepost: %w", errs[1])
	}
	likes.Liked = likedOf(likes.Anchors, liked)
	return nil
}

// EvictFences drops fenceposts committed and fences last used before a time.
func (s *Store) EvictFences(ctx context.Context, before time.Time) (int64, error) {
	n, err := s.q.EvictFenceposts(ctx, before)
	if err != nil {
		return 0, fmt.Errorf("db: evict fenceposts: %w", err)
	}
	m, err := s.q.EvictFences(ctx, before)
	if err != nil {
		return 0, fmt.Errorf("db: evict fences: %w", err)
	}
	return n + m, nil
}

// ActivityReasons finds, for some items, the latest like or comment of someone the viewer
// follows (or, when set is not nil, of someone in set) on a readable share of each, up to
// to: why an item that arrived by activity is in their feed. Items without one are left out.
func (s *Store) ActivityReasons(ctx context.Context, v tributary.Viewer, set *tributary.IDSet, anchors []int64, to time.Time) (map[int64]tributary.Activity, error) {
	if v.ID == 0 || len(anchors) == 0 {
		return nil, nil
	}
	actors := []int64{}
	if set != nil {
		actors = set.IDs()
	}
	rows, err := s.q.ActivityReasons(ctx, dbq.ActivityReasonsParams{ViewerID: v.ID, AnchorIds: anchors, ToAt: to,
		ByFollows: set == nil, Followed: actors,
		Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	if err != nil {
		return nil, fmt.Errorf("db: activity reasons: %w", err)
	}
	out := make(map[int64]tributary.Activity, len(rows))
	for _, r := range rows {
		out[r.AnchorID] = tributary.Activity{User: tributary.UserRef{ID: r.UserID, Handle: r.Handle, Name: r.DisplayName, VIP: r.Vip},
			Commented: r.Commented, At: r.At}
	}
	return out, nil
}

// SetHomeActivity picks whether a user's home feed brings in what the people they follow
// liked or commented on.
// Their fences start again, so the feed they open next is made the new way.
func (s *Store) SetHomeActivity(ctx context.Context, userID int64, on bool) error {
	return s.inTx(ctx, func(q *dbq.Queries) error {
		if err := q.SetHomeActivity(ctx, dbq.SetHomeActivityParams{ID: userID, HomeActivity: on}); err != nil {
			return fmt.Errorf("db: set home activity: %w", err)
		}
		return resetFences(ctx, q, userID)
	})
}

// copy, as current as the request's view of the snapshot), or false.
type Sharers func(anchorID int64) ([]int64, bool)

// Items returns the current data of some items as the viewer may see them: from the
// snapshot, or rolled up from the posts for items the snapshot lacks. Items that no longer
// exist, or that the viewer may not read, are left out. The sharers of an item that
// sharers knows (nil: none) are taken from it rather than read again.
func (s *Store) Items(ctx context.Context, ids []int64, v tributary.Viewer, now time.Time, sharers Sharers) (map[int64]Candidate, error) {
	out := make(map[int64]Candidate, len(ids))
	known := []int64{} // not NULL: no anchor is <> ALL(NULL)
	if sharers != nil {
		for _, id := range ids {
			if _, ok := sharers(id); ok {
				known = append(known, id)
			}
		}
	}
	got, err := s.q.SnapshotRowsByAnchors(ctx, dbq.SnapshotRowsByAnchorsParams{AnchorIds: ids, KnownSharers: known})
	if err != nil {
		return nil, fmt.Errorf("db: items: %w", err)
	}
	rows := make([]dbq.FeedSnapshot, len(got))
	for i, r := range got {
		rows[i] = dbq.FeedSnapshot(r)
		if r.AllPublic && slices.Contains(known, r.AnchorID) {
			rows[i].SharerUserIds, _ = sharers(r.AnchorID)
		}
	}
	cands, err := s.readable(ctx, rows, v)
	if err != nil {
		return nil, err
	}
	for _, c := range cands {
		out[c.Rollup.AnchorID] = c
	}
	var missing []int64
	for _, id := range ids {
		if _, ok := out[id]; !ok && !slices.ContainsFunc(rows, func(r dbq.FeedSnapshot) bool { return r.AnchorID == id }) {
			missing = append(missing, id)
		}
	}
	rollups, err := s.readableRollups(ctx, v, missing)
	if err != nil {
		return nil, err
	}
	for id, r := range rollups {
		out[id] = Candidate{Rollup: r, ScoredAt: now}
	}
	return out, nil
}

// ResetFences drops all fence state of a viewer (0: anonymous): their next first page
// starts a new feed.
func (s *Store) ResetFences(ctx context.Context, viewer int64) error {
	return resetFences(ctx, s.q, viewer)
}
