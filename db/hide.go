package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"tributary"
	"tributary/db/internal/dbq"
)

// Hide and mute (tributary.Viewer carries them to every read path, read with the viewer).

// HideItem hides from the viewer's feeds the item of a post they may read (every share of
// its link). A post that is missing or not theirs to read is "No such post."
func (s *Store) HideItem(ctx context.Context, v tributary.Viewer, postID int64, at time.Time) error {
	_, err := s.q.HideItem(ctx, dbq.HideItemParams{UserID: v.ID, PostID: postID, At: at,
		Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	if errors.Is(err, pgx.ErrNoRows) {
		return errNoPost
	}
	if err != nil {
		return fmt.Errorf("db: hide: %w", err)
	}
	return nil
}

// UnhideItem brings the item of a post back into the viewer's feeds.
func (s *Store) UnhideItem(ctx context.Context, v tributary.Viewer, postID int64) error {
	if err := s.q.UnhideItem(ctx, dbq.UnhideItemParams{UserID: v.ID, PostID: postID}); err != nil {
		return fmt.Errorf("db: unhide: %w", err)
	}
	return nil
}

// HiddenPosts lists the posts the viewer hid items by, newest first, as they may read them.
func (s *Store) HiddenPosts(ctx context.Context, v tributary.Viewer, limit int) ([]tributary.Post, error) {
	rows, err := s.q.HiddenPosts(ctx, dbq.HiddenPostsParams{UserID: v.ID, Lim: int32(limit),
		Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	if err != nil {
		return nil, fmt.Errorf("db: hidden posts: %w", err)
	}
	out := make([]tributary.Post, 0, len(rows))
	for _, r := range rows {
		p, err := postOf(r.PostCard)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Mute mutes a word or phrase for the user (clean: tributary.CleanMute), at most
// tributary.MaxMutes of them.
func (s *Store) Mute(ctx context.Context, userID int64, m tributary.Mute, at time.Time) error {
	n, err := s.q.CountMutes(ctx, userID)
	if err != nil {
		return fmt.Errorf("db: mute: %w", err)
	}
	if n >= tributary.MaxMutes {
		return tributary.FieldErrorf("word", "You can mute at most %d words; unmute one first.", tributary.MaxMutes)
	}
	if err := s.q.Mute(ctx, dbq.MuteParams{UserID: userID, Word: m.Word, Collapse: m.Collapse, At: at}); err != nil {
		return fmt.Errorf("db: mute: %w", err)
	}
	return nil
}

// Unmute unmutes a word.
func (s *Store) Unmute(ctx context.Context, userID int64, word string) error {
	if err := s.q.Unmute(ctx, dbq.UnmuteParams{UserID: userID, Word: word}); err != nil {
		return fmt.Errorf("db: unmute: %w", err)
	}
	return nil
}
