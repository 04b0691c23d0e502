package db

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"tributary"
	"tributary/db/internal/dbq"
)

// PageSize is how many posts a chronological page holds.
const PageSize = 20

// PostCursor is the keyset position after the last post of a page; the zero value means
// "from the newest".
type PostCursor struct {
	At time.Time
	ID int64
}

func (c PostCursor) bounds() (time.Time, int64) {
	if c.ID == 0 {
		return time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), math.MaxInt64
	}
	return c.At, c.ID
}

// next returns the cursor after a full page, or the zero cursor at the end.
func next(posts []tributary.Post, limit int) PostCursor {
	if len(posts) < limit || len(posts) == 0 {
		return PostCursor{}
	}
	last := posts[len(posts)-1]
	return PostCursor{At: last.CreatedAt, ID: last.ID}
}

// UserPosts lists a user's posts that the viewer may read, newest first.
func (s *Store) UserPosts(ctx context.Context, authorID int64, v tributary.Viewer, after PostCursor, limit int) ([]tributary.Post, PostCursor, error) {
	at, id := after.bounds()
	rows, err := s.reads(ctx).UserPosts(ctx, dbq.UserPostsParams{AuthorID: authorID, BeforeAt: at, BeforeID: id, Lim: int32(limit),
		ViewerID: v.ID, Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	return cards(rows, limit, err)
}

// FeedPosts lists the posts of a base feed (a group) that the viewer may read, newest first.
func (s *Store) FeedPosts(ctx context.Context, feedID int64, v tributary.Viewer, after PostCursor, limit int) ([]tributary.Post, PostCursor, error) {
	at, id := after.bounds()
	rows, err := s.reads(ctx).FeedPosts(ctx, dbq.FeedPostsParams{FeedID: feedID, BeforeAt: at, BeforeID: id, Lim: int32(limit),
		ViewerID: v.ID, Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	return cards(rows, limit, err)
}

// DirectPosts lists the directs the viewer sent or received, newest first.
func (s *Store) DirectPosts(ctx context.Context, viewerID int64, after PostCursor, limit int) ([]tributary.Post, PostCursor, error) {
	at, id := after.bounds()
	rows, err := s.reads(ctx).DirectPosts(ctx, dbq.DirectPostsParams{ViewerID: viewerID, BeforeAt: at, BeforeID: id, Lim: int32(limit)})
	return cards(rows, limit, err)
}

func cards(rows []dbq.PostCard, limit int, err error) ([]tributary.Post, PostCursor, error) {
	if err != nil {
		return nil, PostCursor{}, fmt.Errorf("db: list posts: %w", err)
	}
	posts := make([]tributary.Post, 0, len(rows))
	for _, r := range rows {
		p, err := postOf(r)
		if err != nil {
			return nil, PostCursor{}, err
		}
		posts = append(posts, p)
	}
	return posts, next(posts, limit), nil
}

func postOf(r dbq.PostCard) (tributary.Post, error) {
	var links []tributary.Link
	if err := json.Unmarshal(r.LinkedUrls, &links); err != nil {
		return tributary.Post{}, fmt.Errorf("db: post %d links: %w", r.ID, err)
	}
	return tributary.Post{
		ID: r.ID, AnchorID: r.AnchorID, URL: r.Url, Title: r.Title, Body: r.Body,
		CanonicalURL: r.CanonicalUrl, AnchorURL: r.AnchorUrl, Kind: tributary.Kind(r.Kind), Host: r.Host,
		Links: links, ImageCount: int(r.ImageCount), Tags: r.Tags, CreatedAt: r.CreatedAt,
		Author: tributary.UserRef{ID: r.AuthorID, Handle: r.AuthorHandle, Name: r.AuthorName, VIP: r.AuthorVip},
	}, nil
}
