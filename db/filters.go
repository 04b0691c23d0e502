package db

import (
	"context"
	"fmt"
	"strconv"

	"tributary"
)

// FilterPostsByID is PostsByID for the posts of a filter feed: those no longer in the feed
// are left out too (an unliked post, a comment's tag deleted), so a fencepost that listed
// them shows them no more.
func (s *Store) FilterPostsByID(ctx context.Context, v tributary.Viewer, feed string, ids []int64) ([]tributary.Post, error) {
	return postsByID(ctx, s.reads(ctx), v, feed, ids)
}

// ApplyFilterBumps moves the bumps queued since the last call into the discussions feeds
// holding their posts (a bump updates one row per discussant, so it is done after the
// bumping comment's answer, by the filter-bumps job; any instance may run it). It returns how
// many posts moved.
func (s *Store) ApplyFilterBumps(ctx context.Context) (int64, error) {
	n, err := s.q.ApplyFilterBumps(ctx)
	if err != nil {
		return 0, fmt.Errorf("db: apply filter bumps: %w", err)
	}
	return n, nil
}

// Filter feeds (filter_posts.feed): the posts a user liked, commented on, or is mentioned
// in, the posts with a tag, and a user's discussions.
func LikedByFeed(user int64) string     { return "l:" + strconv.FormatInt(user, 10) }
func CommentedByFeed(user int64) string { return "c:" + strconv.FormatInt(user, 10) }
func MentionsFeed(user int64) string    { return "m:" + strconv.FormatInt(user, 10) }
func DiscussionsFeed(user int64) string { return "d:" + strconv.FormatInt(user, 10) }
func TagFeed(tag string) string         { return "t:" + tag }
