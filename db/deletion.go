package db

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/riverqueue/river"

	"tributary/db/internal/dbq"
)

// DeleteAccount deletes a user's account as of now, in one transaction: from its commit
// nothing they made is read anywhere. Their posts are deleted as a deleted post is (every
// read path, snapshot row and river leaves those out; the change record tells every
// instance's caches); their likes, comments, follows and sessions are gone; the groups they
// administered alone go to another member. A job (PurgeUserArgs) then removes the rest for
// good. The row stays, so nobody takes the handle.
func (s *Store) DeleteAccount(ctx context.Context, userID int64, now time.Time) error {
	var anchors []int64
	err := s.runTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx, q *dbq.Queries) error {
		if _, err := q.MarkUserDeleted(ctx, dbq.MarkUserDeletedParams{ID: userID, At: &now}); err != nil {
			return notFound(err, "No such user.")
		}
		posts, err := q.DeleteUserPosts(ctx, dbq.DeleteUserPostsParams{UserID: userID, At: &now})
		if err != nil {
			return fmt.Errorf("db: delete account: posts: %w", err)
		}
		likes, err := q.DeleteUserLikes(ctx, userID)
		if err != nil {
			return fmt.Errorf("db: delete account: likes: %w", err)
		}
		comments, err := q.DeleteUserComments(ctx, userID)
		if err != nil {
			return fmt.Errorf("db: delete account: comments: %w", err)
		}
		anchors = slices.Concat(posts, likes, comments)
		readers, err := q.DeleteUserFollows(ctx, userID)
		if err != nil {
			return fmt.Errorf("db: delete account: follows: %w", err)
		}
		slices.Sort(readers)
		for _, r := range slices.Compact(readers) {
			if r == userID {
				continue
			}
			if err := s.enqueueRebuild(ctx, tx, r); err != nil {
				return err
			}
		}
		if _, err := q.DeleteUserSessions(ctx, dbq.DeleteUserSessionsParams{UserID: pgtype.Int8{Int64: userID, Valid: true},
			KeepHash: keepHash("")}); err != nil {
			return fmt.Errorf("db: delete account: sessions: %w", err)
		}
		if err := q.HandOverGroups(ctx, userID); err != nil {
			return fmt.Errorf("db: delete account: groups: %w", err)
		}
		if err := q.DeleteUserMemberships(ctx, userID); err != nil {
			return fmt.Errorf("db: delete account: memberships: %w", err)
		}
		c, err := s.jobClient(nil)
		if err != nil {
			return fmt.Errorf("db: jobs: %w", err)
		}
		if _, err := c.InsertTx(ctx, tx, PurgeUserArgs{User: userID}, &river.InsertOpts{ScheduledAt: time.Now()}); err != nil {
			return fmt.Errorf("db: enqueue purge: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(anchors)
	return s.RefreshAnchors(ctx, slices.Compact(anchors), now)
}

// PurgeUser removes for good what a deleted user left behind (PurgeUserArgs' job).
func (s *Store) PurgeUser(ctx context.Context, userID int64) error {
	if err := s.q.PurgeUser(ctx, userID); err != nil {
		return fmt.Errorf("db: purge user: %w", err)
	}
	return nil
}

// PurgeUserArgs is the job that finishes an account's deletion.
type PurgeUserArgs struct {
	User int64 `json:"user"`
}

// Kind names the job.
func (PurgeUserArgs) Kind() string { return "purge_user" }

// InsertOpts puts the job on the rivers' queue, which every instance works.
func (PurgeUserArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: riversQueue, MaxAttempts: 20}
}

type purgeUserWorker struct {
	river.WorkerDefaults[PurgeUserArgs]
	s *Store
}

func (w *purgeUserWorker) Work(ctx context.Context, job *river.Job[PurgeUserArgs]) error {
	return w.s.PurgeUser(ctx, job.Args.User)
}
