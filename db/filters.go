package db

import (
	"context"

	"tributary"
	"tributary/db/internal/dbq"
)

// FilterPostsByID is PostsByID for the posts of a filter feed: those no longer in the feed
// are left out too (an unliked post, a comment's tag deleted), so a fencepost that listed
// them shows them no more.
func (s *Store) FilterPostsByID(ctx context.Context, v tributary.Viewer, feed string, ids []int64) ([]tributary.Post, error) {
	rows, err := s.reads(ctx).ReadablePostsInFilter(ctx, dbq.ReadablePostsInFilterParams{Ids: nonNilIDs(ids), Feed: feed,
		ViewerID: v.ID, Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	got, err := cards(rows, err)
	if err != nil {
		return nil, err
	}
	return inOrder(got, ids), nil
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
