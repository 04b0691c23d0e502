package db

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"tributary"
	"tributary/db/internal/dbq"
)

// Notifications (issue 46): rows are written by triggers in the transaction of the like,
// comment, follow or membership that causes them (migrations/00039); the fan-out of a comment
// or post (replies, mentions) is handed to a River job after commit (DispatchFanouts). Every
// read applies the access rule for the recipient in its own SQL (see notification_unread).

// errNoNotification is what opening someone else's, or a pruned, notification answers.
var errNoNotification = tributary.Errorf(tributary.ENotFound, "No such notification.")

// Notifications returns a page of the viewer's notification lines, newest first, from a cursor.
func (s *Store) Notifications(ctx context.Context, v tributary.Viewer, from tributary.NotificationCursor, limit int) (tributary.NotificationPage, error) {
	before := from
	if before.IsZero() {
		before = tributary.NotificationCursor{At: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), ID: 1<<63 - 1}
	}
	rows, err := s.q.Notifications(ctx, dbq.NotificationsParams{ViewerID: v.ID, Blocked: nonNilIDs(v.Blocked),
		PrivateFeeds: nonNilIDs(v.PrivateFeeds), BeforeAt: before.At, BeforeID: before.ID, Lim: int32(limit + 1)})
	if err != nil {
		return tributary.NotificationPage{}, fmt.Errorf("db: notifications: %w", err)
	}
	var page tributary.NotificationPage
	for _, r := range rows {
		page.Lines = append(page.Lines, tributary.Notification{ID: r.ID, Type: r.Type, Actors: r.Actors, Count: int(r.Count),
			PostID: r.PostID.Int64, PostTitle: r.PostTitle, Comment: r.CommentExcerpt, Group: r.GroupName, CreatedAt: r.CreatedAt, Unread: r.Unread})
	}
	if len(page.Lines) > limit {
		page.Lines = page.Lines[:limit]
		last := page.Lines[limit-1]
		page.Next = tributary.NotificationCursor{At: last.CreatedAt, ID: last.ID}
	}
	return page, nil
}

// UnreadNotifications counts the viewer's unread lines, as Notifications shows them (at most
// 100). A signed-in request's session read brings it too (SessionUser.Unread).
func (s *Store) UnreadNotifications(ctx context.Context, v tributary.Viewer) (int, error) {
	n, err := s.q.UnreadNotifications(ctx, dbq.UnreadNotificationsParams{ViewerID: v.ID,
		Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	if err != nil {
		return 0, fmt.Errorf("db: unread notifications: %w", err)
	}
	return int(n), nil
}

// MarkNotificationsRead reads every notification of the user up to at, on every device.
func (s *Store) MarkNotificationsRead(ctx context.Context, user int64, at time.Time) error {
	if err := s.q.MarkNotificationsRead(ctx, dbq.MarkNotificationsReadParams{UserID: user, Upto: at}); err != nil {
		return fmt.Errorf("db: mark notifications read: %w", err)
	}
	s.unread.forget(user)
	return nil
}

// OpenNotification marks a line of the viewer's read and returns where it leads. Returns
// ENOTFOUND when the line is not the viewer's.
func (s *Store) OpenNotification(ctx context.Context, viewer, id int64) (tributary.Notification, error) {
	r, err := s.q.OpenNotification(ctx, dbq.OpenNotificationParams{ID: id, ViewerID: viewer})
	if errors.Is(err, pgx.ErrNoRows) {
		return tributary.Notification{}, errNoNotification
	} else if err != nil {
		return tributary.Notification{}, fmt.Errorf("db: open notification: %w", err)
	}
	s.unread.forget(viewer)
	return tributary.Notification{ID: id, Type: r.Type, PostID: r.PostID.Int64, Group: r.GroupName, Actors: []string{r.Actor}}, nil
}

// ReadPostNotifications marks the viewer's notifications about a post read (they opened it)
// and reports whether any was unread.
func (s *Store) ReadPostNotifications(ctx context.Context, viewer, postID int64) (bool, error) {
	n, err := s.q.ReadPostNotifications(ctx, dbq.ReadPostNotificationsParams{ViewerID: viewer, PostID: postID})
	if err != nil {
		return false, fmt.Errorf("db: read post notifications: %w", err)
	}
	if n > 0 {
		s.unread.forget(viewer)
	}
	return n > 0, nil
}

// NotificationSettings returns the user's notification choices.
func (s *Store) NotificationSettings(ctx context.Context, user int64) (tributary.NotificationSettings, error) {
	r, err := s.q.NotificationSettings(ctx, user)
	if err != nil {
		return tributary.NotificationSettings{}, fmt.Errorf("db: notification settings: %w", err)
	}
	return tributary.NotificationSettings{Grouping: r.NotifyGrouping, Policy: map[string]string{
		"like": r.Likes, "comment": r.Comments, "mention": r.Mentions, "follow": r.Follows}}, nil
}

// SetNotificationSettings stores the user's choices. Returns EINVALID for an unknown kind or
// policy.
func (s *Store) SetNotificationSettings(ctx context.Context, user int64, set tributary.NotificationSettings) error {
	for kind, policy := range set.Policy {
		if !slices.Contains(tributary.NotificationKinds, kind) || !slices.Contains(tributary.NotificationPolicies, policy) {
			return tributary.Errorf(tributary.EInvalid, "Unknown notification policy %q for %q.", policy, kind)
		}
	}
	return s.runTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx, q *dbq.Queries) error {
		if err := q.SetNotifyGrouping(ctx, dbq.SetNotifyGroupingParams{ID: user, Grouping: set.Grouping}); err != nil {
			return fmt.Errorf("db: notification grouping: %w", err)
		}
		for kind, policy := range set.Policy {
			var err error
			if policy == "everyone" {
				err = q.ClearNotificationPolicy(ctx, dbq.ClearNotificationPolicyParams{UserID: user, Kind: kind})
			} else {
				err = q.SetNotificationPolicy(ctx, dbq.SetNotificationPolicyParams{UserID: user, Kind: kind, Policy: policy})
			}
			if err != nil {
				return fmt.Errorf("db: notification policy: %w", err)
			}
		}
		return nil
	})
}

// MuteThread stops (mute) or restarts reply notifications from a post's thread for the user.
func (s *Store) MuteThread(ctx context.Context, user, post int64, mute bool) error {
	var err error
	if mute {
		err = s.q.MuteThread(ctx, dbq.MuteThreadParams{UserID: user, PostID: post})
	} else {
		err = s.q.UnmuteThread(ctx, dbq.UnmuteThreadParams{UserID: user, PostID: post})
	}
	if err != nil {
		return fmt.Errorf("db: mute thread: %w", err)
	}
	return nil
}

// ThreadMuted says whether the user muted a post's thread.
func (s *Store) ThreadMuted(ctx context.Context, user, post int64) (bool, error) {
	m, err := s.q.ThreadMuted(ctx, dbq.ThreadMutedParams{UserID: user, PostID: post})
	if err != nil {
		return false, fmt.Errorf("db: thread muted: %w", err)
	}
	return m, nil
}

// PruneNotifications deletes up to 10,000 notifications made before before; it returns how many.
func (s *Store) PruneNotifications(ctx context.Context, before time.Time) (int64, error) {
	n, err := s.q.PruneNotifications(ctx, before)
	if err != nil {
		return 0, fmt.Errorf("db: prune notifications: %w", err)
	}
	return n, nil
}

// notifyQueue holds the notifications' fan-outs.
const notifyQueue = "notify"

// FanOutArgs asks for the notifications of a comment (CommentID) or of a post's mentions.
type FanOutArgs struct {
	PostID    int64 `json:"post_id"`
	CommentID int64 `json:"comment_id,omitempty"`
}

// Kind names the job in River's table.
func (FanOutArgs) Kind() string { return "notify_fanout" }

// InsertOpts: on the notifications' queue. A job run twice stores each row once (unique
// indexes), so jobs need not be unique.
func (FanOutArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: notifyQueue, MaxAttempts: 10}
}

type fanOutWorker struct {
	river.WorkerDefaults[FanOutArgs]
	s *Store
}

func (w *fanOutWorker) Work(ctx context.Context, job *river.Job[FanOutArgs]) error {
	_, err := w.s.FanOut(ctx, job.Args)
	return err
}

// FanOut writes the notifications of a comment (its thread's other people, its mentions) or
// of a post's mentions; it returns how many it wrote.
func (s *Store) FanOut(ctx context.Context, a FanOutArgs) (int64, error) {
	var n int64
	var err error
	if a.CommentID != 0 {
		n, err = s.q.FanOutComment(ctx, a.CommentID)
	} else {
		n, err = s.q.FanOutPost(ctx, a.PostID)
	}
	if err != nil {
		return 0, fmt.Errorf("db: notification fan-out: %w", err)
	}
	return n, nil
}

// DispatchFanouts hands up to n due fan-outs to jobs, in one transaction (taken and handed
// together, or neither). It returns how many it handed.
func (s *Store) DispatchFanouts(ctx context.Context, n int) (int, error) {
	c, err := s.jobClient(nil)
	if err != nil {
		return 0, fmt.Errorf("db: jobs: %w", err)
	}
	handed := 0
	err = s.runTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx, q *dbq.Queries) error {
		rows, err := q.TakeNotificationFanouts(ctx, int32(n))
		if err != nil || len(rows) == 0 {
			return err
		}
		params := make([]river.InsertManyParams, len(rows))
		for i, r := range rows {
			params[i] = river.InsertManyParams{Args: FanOutArgs{PostID: r.PostID, CommentID: r.CommentID.Int64},
				InsertOpts: &river.InsertOpts{ScheduledAt: time.Now()}}
		}
		if _, err := c.InsertManyTx(ctx, tx, params); err != nil {
			return err
		}
		handed = len(rows)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("db: dispatch notification fan-outs: %w", err)
	}
	return handed, nil
}
