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

// ViewerAccess loads what the access rules need about a viewer (0: anonymous).
func (s *Store) ViewerAccess(ctx context.Context, viewerID int64) (tributary.Viewer, error) {
	v := tributary.Viewer{ID: viewerID}
	if viewerID == 0 {
		return v, nil
	}
	r, err := s.q.ViewerAccessOf(ctx, viewerID)
	if errors.Is(err, pgx.ErrNoRows) {
		return v, nil // the account is gone: nothing but public posts
	} else if err != nil {
		return v, fmt.Errorf("db: viewer access: %w", err)
	}
	return viewerAccessOf(r), nil
}

// viewerAccessOf assembles a viewer from the arrays viewer_access reads.
func viewerAccessOf(r dbq.ViewerAccess) tributary.Viewer {
	v := tributary.Viewer{ID: r.ViewerID, Blocked: r.Blocked, PrivateFeeds: r.PrivateFeeds, Groups: r.Groups, GroupNames: r.GroupNames, Hidden: r.Hidden}
	for i, w := range r.Muted {
		v.Mutes = append(v.Mutes, tributary.Mute{Word: w, Collapse: i < len(r.MutedCollapse) && r.MutedCollapse[i]})
	}
	return v
}

// accessChanged refolds the access of the posts in some feeds (or some posts) and redoes
// their snapshot rows, so the change holds on the next request everywhere.
func (s *Store) accessChanged(ctx context.Context, q *dbq.Queries, feedIDs, postIDs []int64) ([]int64, error) {
	anchors, err := q.RecomputePostAccess(ctx, dbq.RecomputePostAccessParams{FeedIds: nonNilIDs(feedIDs), PostIds: nonNilIDs(postIDs)})
	if err != nil {
		return nil, fmt.Errorf("db: recompute access: %w", err)
	}
	slices.Sort(anchors)
	return slices.Compact(anchors), nil
}

// SetVisibility sets who may read a user's posts: public, protected (logged-in users but
// the banned) or private (approved followers; following becomes a request).
func (s *Store) SetVisibility(ctx context.Context, userID int64, access string, now time.Time) error {
	if !tributary.ValidAccess(access) {
		return tributary.FieldErrorf("visibility", "Visibility must be public, protected or private.")
	}
	var anchors []int64
	err := s.inTx(ctx, func(q *dbq.Queries) error {
		feed, err := q.PostsFeedOf(ctx, userID)
		if err != nil {
			return fmt.Errorf("db: posts feed: %w", err)
		}
		if err := q.SetFeedAccess(ctx, dbq.SetFeedAccessParams{ID: feed, Access: access}); err != nil {
			return fmt.Errorf("db: set access: %w", err)
		}
		if err := q.SetUserPrivate(ctx, dbq.SetUserPrivateParams{ID: userID, IsPrivate: access == tributary.AccessPrivate}); err != nil {
			return fmt.Errorf("db: set private: %w", err)
		}
		if access == tributary.AccessPrivate {
			// Those who follow you now keep reading you; new followers ask first.
			if err := q.AddFollowersAsReaders(ctx, dbq.AddFollowersAsReadersParams{FeedID: feed, OwnerID: userID}); err != nil {
				return fmt.Errorf("db: readers: %w", err)
			}
		}
		anchors, err = s.accessChanged(ctx, q, []int64{feed}, nil)
		return err
	})
	if err != nil {
		return err
	}
	return s.RefreshAnchors(ctx, anchors, now)
}

// Visibility returns the access of a user's posts feed.
func (s *Store) Visibility(ctx context.Context, userID int64) (string, error) {
	access, err := s.q.PostsFeedAccess(ctx, userID)
	if err != nil {
		return "", fmt.Errorf("db: posts feed: %w", err)
	}
	return access, nil
}

// Follow makes follower follow followed: at once for public and protected accounts, as a
// request for private ones. It reports whether the follow is pending approval.
func (s *Store) Follow(ctx context.Context, follower, followed int64) (pending bool, err error) {
	if follower == followed {
		return false, tributary.Errorf(tributary.EInvalid, "You cannot follow yourself.")
	}
	err = s.runTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx, q *dbq.Queries) error {
		target, err := q.UserByID(ctx, followed)
		if err != nil {
			return notFound(err, "No such user.")
		}
		if banned, err := q.HasBanned(ctx, dbq.HasBannedParams{UserID: followed, BannedID: follower}); err != nil {
			return fmt.Errorf("db: ban check: %w", err)
		} else if banned {
			return tributary.Errorf(tributary.EForbidden, "@%s does not let you follow them.", target.Handle)
		}
		state := "active"
		if target.IsPrivate {
			state, pending = "pending", true
		}
		if err := q.Follow(ctx, dbq.FollowParams{FollowerID: follower, FollowedID: followed, State: state}); err != nil {
			return fmt.Errorf("db: follow: %w", err)
		}
		if err := s.enqueueRebuild(ctx, tx, follower); err != nil {
			return err
		}
		return resetFences(ctx, q, follower)
	})
	return pending, err
}

// Unfollow stops following (or withdraws a request); a private account's posts are no
// longer readable afterwards.
func (s *Store) Unfollow(ctx context.Context, follower, followed int64) error {
	return s.runTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx, q *dbq.Queries) error { return s.unfollow(ctx, tx, q, follower, followed) })
}

func (s *Store) unfollow(ctx context.Context, tx pgx.Tx, q *dbq.Queries, follower, followed int64) error {
	if err := q.Unfollow(ctx, dbq.UnfollowParams{FollowerID: follower, FollowedID: followed}); err != nil {
		return fmt.Errorf("db: unfollow: %w", err)
	}
	if err := s.enqueueRebuild(ctx, tx, follower); err != nil {
		return err
	}
	feed, err := q.PostsFeedOf(ctx, followed)
	if err != nil {
		return fmt.Errorf("db: posts feed: %w", err)
	}
	// The follower's committed fenceposts stay: what they may no longer see is dropped when
	// served (access beats immutability), the rest stays where it was.
	if err := q.RemoveReader(ctx, dbq.RemoveReaderParams{FeedID: feed, UserID: follower}); err != nil {
		return fmt.Errorf("db: remove reader: %w", err)
	}
	return nil
}

// FollowState says how follower follows followed: "", "active" or "pending".
func (s *Store) FollowState(ctx context.Context, follower, followed int64) (string, error) {
	st, err := s.q.FollowState(ctx, dbq.FollowStateParams{FollowerID: follower, FollowedID: followed})
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("db: follow state: %w", err)
	}
	return st, nil
}

// Follows reports whether follower actively follows followed.
func (s *Store) Follows(ctx context.Context, follower, followed int64) (bool, error) {
	st, err := s.FollowState(ctx, follower, followed)
	return st == "active", err
}

// FollowRequests lists the people waiting for the owner's approval.
func (s *Store) FollowRequests(ctx context.Context, owner int64) ([]tributary.User, error) {
	rows, err := s.q.FollowRequests(ctx, owner)
	if err != nil {
		return nil, fmt.Errorf("db: follow requests: %w", err)
	}
	out := make([]tributary.User, len(rows))
	for i, r := range rows {
		out[i] = userOf(r)
	}
	return out, nil
}

// Followers lists the owner's active followers.
func (s *Store) Followers(ctx context.Context, owner int64) ([]tributary.User, error) {
	rows, err := s.q.Followers(ctx, owner)
	if err != nil {
		return nil, fmt.Errorf("db: followers: %w", err)
	}
	out := make([]tributary.User, len(rows))
	for i, r := range rows {
		out[i] = userOf(r)
	}
	return out, nil
}

// Approve accepts a follow request: the follower now reads the owner's private posts.
func (s *Store) Approve(ctx context.Context, owner, follower int64) error {
	return s.runTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx, q *dbq.Queries) error {
		n, err := q.SetFollowState(ctx, dbq.SetFollowStateParams{FollowerID: follower, FollowedID: owner, State: "active"})
		if err != nil {
			return fmt.Errorf("db: approve: %w", err)
		}
		if n == 0 {
			return tributary.Errorf(tributary.ENotFound, "There is no such follow request.")
		}
		if err := s.enqueueRebuild(ctx, tx, follower); err != nil {
			return err
		}
		feed, err := q.PostsFeedOf(ctx, owner)
		if err != nil {
			return fmt.Errorf("db: posts feed: %w", err)
		}
		if err := q.AddReader(ctx, dbq.AddReaderParams{FeedID: feed, UserID: follower}); err != nil {
			return fmt.Errorf("db: add reader: %w", err)
		}
		return resetFences(ctx, q, follower)
	})
}

// Decline refuses a follow request; RemoveSubscriber removes a follower. Either way the
// person no longer reads the owner's private posts.
func (s *Store) Decline(ctx context.Context, owner, follower int64) error {
	return s.Unfollow(ctx, follower, owner)
}

// RemoveSubscriber removes a follower from the owner's followers and readers.
func (s *Store) RemoveSubscriber(ctx context.Context, owner, follower int64) error {
	return s.Unfollow(ctx, follower, owner)
}

// Ban makes user and banned invisible to each other's protected posts and ends any following
// between them.
func (s *Store) Ban(ctx context.Context, user, banned int64) error {
	if user == banned {
		return tributary.Errorf(tributary.EInvalid, "You cannot ban yourself.")
	}
	return s.runTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx, q *dbq.Queries) error {
		if err := q.Ban(ctx, dbq.BanParams{UserID: user, BannedID: banned}); err != nil {
			return fmt.Errorf("db: ban: %w", err)
		}
		if err := s.unfollow(ctx, tx, q, banned, user); err != nil {
			return err
		}
		return s.unfollow(ctx, tx, q, user, banned)
	})
}

// Unban lifts a ban.
func (s *Store) Unban(ctx context.Context, user, banned int64) error {
	if err := s.q.Unban(ctx, dbq.UnbanParams{UserID: user, BannedID: banned}); err != nil {
		return fmt.Errorf("db: unban: %w", err)
	}
	return nil
}

// HasBanned reports whether user banned other.
func (s *Store) HasBanned(ctx context.Context, user, other int64) (bool, error) {
	b, err := s.q.HasBanned(ctx, dbq.HasBannedParams{UserID: user, BannedID: other})
	if err != nil {
		return false, fmt.Errorf("db: has banned: %w", err)
	}
	return b, nil
}

// DeletePost deletes a post of its author's.
func (s *Store) DeletePost(ctx context.Context, author, postID int64, now time.Time) error {
	owner, err := s.q.PostOwner(ctx, postID)
	if err != nil {
		return notFound(err, "No such post.")
	}
	if owner.AuthorID != author {
		return tributary.Errorf(tributary.EForbidden, "You can delete only your own posts.")
	}
	if err := s.q.DeletePost(ctx, dbq.DeletePostParams{ID: postID, At: &now}); err != nil {
		return fmt.Errorf("db: delete post: %w", err)
	}
	return s.RefreshAnchors(ctx, []int64{owner.AnchorID}, now)
}
