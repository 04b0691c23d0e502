package db

import (
	"context"
	"fmt"

	"tributary"
)

// FilterPostsByID is PostsByID for the posts of a filter feed: those no longer in the feed
// are left out too (an unliked post, a comment's tag deleted), so a fencepost that listed
// them shows them no more.
func (s *Store) FilterPostsByID(ctx context.Context, v tributary.Viewer, feed string, ids []int64) ([]tributary.Post, error) {
	return postsByID(ctx, s.reads(ctx), v, feed, ids)
}

// inOrder lists posts in the order of ids.
func inOrder(posts []tributary.Post, ids []int64) []tributary.Post {
	byID := make(map[int64]tributary.Post, len(posts))
	for _, p := range posts {
		byID[p.ID] = p
	}
	out := make([]tributary.Post, 0, len(posts))
	for _, id := range ids {
		if p, ok := byID[id]; ok {
			out = append(out, p)
		}
	}
	return out
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
