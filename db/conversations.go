package db

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"tributary"
	"tributary/db/internal/dbq"
)

// errNoPost is the one answer for a post that does not exist, is deleted, or is not the
// viewer's to read: it reveals nothing.
var errNoPost = tributary.Errorf(tributary.ENotFound, "No such post.")

// errNoComment is errNoPost's twin for comments.
var errNoComment = tributary.Errorf(tributary.ENotFound, "No such comment.")

// Post returns a post as the viewer may read it, with its card's talk: PostPage without its
// likers, so that whatever checks Post checks the post page's access rule.
func (s *Store) Post(ctx context.Context, v tributary.Viewer, id int64) (tributary.Post, error) {
	p, _, err := s.PostPage(ctx, v, id, 0)
	return p, err
}

// PostPage returns a post as the viewer may read it (as Post does) with its card's talk (as
// post_talk reads it) and up to likers of the people who liked it, as the viewer sees them,
// newest first (as Likers reads them), in one round trip.
func (s *Store) PostPage(ctx context.Context, v tributary.Viewer, id int64, likers int) (tributary.Post, []tributary.UserRef, error) {
	r, err := s.q.PostPage(ctx, dbq.PostPageParams{ID: id, ViewerID: v.ID, Likers: int32(likers),
		Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	if errors.Is(err, pgx.ErrNoRows) {
		return tributary.Post{}, nil, errNoPost
	} else if err != nil {
		return tributary.Post{}, nil, fmt.Errorf("db: post: %w", err)
	}
	p, err := postOf(r.PostCard)
	if err != nil {
		return tributary.Post{}, nil, err
	}
	if p.Talk, err = talkOf(p.ID, r.Likes, r.Comments, r.Liked, r.Likers); err != nil {
		return tributary.Post{}, nil, err
	}
	var raw [][4]json.RawMessage
	if err := json.Unmarshal(r.PageLikers, &raw); err != nil {
		return tributary.Post{}, nil, fmt.Errorf("db: likers: %w", err)
	}
	page := make([]tributary.UserRef, 0, len(raw))
	for _, x := range raw {
		var u tributary.UserRef
		if err := errors.Join(json.Unmarshal(x[0], &u.ID), json.Unmarshal(x[1], &u.Handle), json.Unmarshal(x[2], &u.Name),
			json.Unmarshal(x[3], &u.VIP)); err != nil {
			return tributary.Post{}, nil, fmt.Errorf("db: likers: %w", err)
		}
		page = append(page, u)
	}
	return p, page, nil
}

// PostThread returns a page of the comments of a post that the viewer sees, oldest first
// from from (as Threads orders them), at most limit; none when the post is not theirs to
// read, which it checks itself, so that it can run beside PostPage.
func (s *Store) PostThread(ctx context.Context, v tributary.Viewer, postID int64, from tributary.ThreadCursor, limit int) (tributary.Thread, error) {
	rows, err := s.q.PostThread(ctx, dbq.PostThreadParams{PostID: postID, ViewerID: v.ID, FromAt: from.At, FromID: from.ID,
		Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds), Lim: int32(limit + 1)})
	if err != nil {
		return tributary.Thread{}, fmt.Errorf("db: thread: %w", err)
	}
	out := make([]tributary.Comment, 0, len(rows))
	for _, r := range rows {
		out = append(out, tributary.Comment{ID: r.ID, PostID: postID, Body: r.Body, CreatedAt: r.CreatedAt, EditedAt: r.EditedAt,
			Author: tributary.UserRef{ID: r.AuthorID, Handle: r.AuthorHandle, Name: r.AuthorName, VIP: r.AuthorVip}})
	}
	return threadOf(out, limit), nil
}

// threadOf is a page of at most limit of comments, read with one more to tell where the
// next page starts.
func threadOf(comments []tributary.Comment, limit int) tributary.Thread {
	if len(comments) <= limit {
		return tributary.Thread{Comments: comments}
	}
	return tributary.Thread{Comments: comments[:limit], Next: tributary.CursorOf(comments[limit])}
}

// Like records that the viewer likes a post they may read; liking twice is a no-op.
func (s *Store) Like(ctx context.Context, v tributary.Viewer, postID int64, at time.Time) error {
	_, err := s.LikeTalk(ctx, v, postID, at)
	return err
}

// LikeTalk is Like that also returns what the post's card shows of its conversation after
// it, as PostTalk reads it, in the same round trip.
func (s *Store) LikeTalk(ctx context.Context, v tributary.Viewer, postID int64, at time.Time) (tributary.Talk, error) {
	r, err := s.q.Like(ctx, dbq.LikeParams{PostID: postID, UserID: v.ID, At: at,
		Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	if err != nil {
		return tributary.Talk{}, fmt.Errorf("db: like: %w", err)
	}
	if r.Readable == 0 {
		return tributary.Talk{}, errNoPost
	}
	return talkOf(postID, r.Likes, r.Comments, r.Liked, r.Likers)
}

// Unlike takes the viewer's like of a post back; unliking what was not liked is a no-op.
func (s *Store) Unlike(ctx context.Context, v tributary.Viewer, postID int64) error {
	_, err := s.UnlikeTalk(ctx, v, postID)
	return err
}

// UnlikeTalk is Unlike that also returns the post card's talk after it (see LikeTalk).
func (s *Store) UnlikeTalk(ctx context.Context, v tributary.Viewer, postID int64) (tributary.Talk, error) {
	r, err := s.q.Unlike(ctx, dbq.UnlikeParams{PostID: postID, UserID: v.ID,
		Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	if err != nil {
		return tributary.Talk{}, fmt.Errorf("db: unlike: %w", err)
	}
	if r.Readable == 0 {
		return tributary.Talk{}, errNoPost
	}
	return talkOf(postID, r.Likes, r.Comments, r.Liked, r.Likers)
}

// AddComment stores the viewer's comment on a post they may read and bumps the post when
// the rule says so, in one statement. The body must be clean (tributary.CleanComment).
func (s *Store) AddComment(ctx context.Context, v tributary.Viewer, postID int64, body string, now time.Time, rule tributary.BumpRule) (tributary.Comment, bool, error) {
	c, bumped, _, err := s.AddCommentTalk(ctx, v, postID, body, now, rule)
	return c, bumped, err
}

// AddCommentTalk is AddComment that also returns the post card's talk after it (see
// LikeTalk).
func (s *Store) AddCommentTalk(ctx context.Context, v tributary.Viewer, postID int64, body string, now time.Time, rule tributary.BumpRule) (tributary.Comment, bool, tributary.Talk, error) {
	r, err := s.q.AddComment(ctx, dbq.AddCommentParams{PostID: postID, AuthorID: v.ID, Body: body, At: now,
		Mentions: tributary.Mentions(body), Tags: tributary.Tags(body),
		YoungSince: now.Add(-rule.MaxAge), Since: now.Add(-rule.Window), Busy: int32(rule.Comments),
		Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	if errors.Is(err, pgx.ErrNoRows) {
		return tributary.Comment{}, false, tributary.Talk{}, errNoPost
	} else if err != nil {
		return tributary.Comment{}, false, tributary.Talk{}, fmt.Errorf("db: comment: %w", err)
	}
	t, err := talkOf(postID, r.Likes, r.Comments, r.Liked, r.Likers)
	return tributary.Comment{ID: r.ID, PostID: postID, Body: body, CreatedAt: r.CreatedAt}, r.Bumped, t, err
}

// talkOf is a post card's talk as post_talk reads it (PostTalk, the posts' reads, the actions).
func talkOf(postID int64, likes, comments int32, liked bool, likersJSON []byte) (tributary.Talk, error) {
	likers, err := likersOf(likersJSON)
	if err != nil {
		return tributary.Talk{}, err
	}
	t := tributary.Talk{Likes: int(likes), Comments: int(comments), Liked: liked, Likers: likers}
	if liked {
		t.LikedPost = postID
	}
	return t, nil
}

// commentAction finds a comment the viewer acts on: 404 when it does not exist or its post
// is not theirs to read, 403 when allowed says they may not.
func (s *Store) commentAction(ctx context.Context, v tributary.Viewer, id int64, allowed func(dbq.CommentForActionRow) bool, what string) (dbq.CommentForActionRow, error) {
	c, err := s.q.CommentForAction(ctx, dbq.CommentForActionParams{ID: id, ViewerID: v.ID,
		Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && !c.Readable) {
		return c, errNoComment
	} else if err != nil {
		return c, fmt.Errorf("db: comment: %w", err)
	}
	if !allowed(c) {
		return c, tributary.Errorf(tributary.EForbidden, "Only %s can %s this comment.", map[string]string{
			"edit": "its author", "delete": "its author or the post's author"}[what], what)
	}
	return c, nil
}

// OwnComment returns the viewer's own comment, to edit.
func (s *Store) OwnComment(ctx context.Context, v tributary.Viewer, id int64) (tributary.Comment, error) {
	c, err := s.commentAction(ctx, v, id, func(c dbq.CommentForActionRow) bool { return c.AuthorID == v.ID }, "edit")
	return tributary.Comment{ID: c.ID, PostID: c.PostID, Body: c.Body}, err
}

// EditComment changes the text of the viewer's own comment; it returns the comment's post.
func (s *Store) EditComment(ctx context.Context, v tributary.Viewer, id int64, body string, now time.Time) (int64, error) {
	c, err := s.commentAction(ctx, v, id, func(c dbq.CommentForActionRow) bool { return c.AuthorID == v.ID }, "edit")
	if err != nil {
		return 0, err
	}
	if err := s.q.EditComment(ctx, dbq.EditCommentParams{ID: id, Body: body, At: &now,
		Mentions: tributary.Mentions(body), Tags: tributary.Tags(body)}); err != nil {
		return 0, fmt.Errorf("db: edit comment: %w", err)
	}
	return c.PostID, nil
}

// DeleteComment deletes a comment by its author or by the author of its post; it returns
// the comment's post.
func (s *Store) DeleteComment(ctx context.Context, v tributary.Viewer, id int64) (int64, error) {
	c, err := s.commentAction(ctx, v, id, func(c dbq.CommentForActionRow) bool {
		return c.AuthorID == v.ID || c.PostAuthorID == v.ID
	}, "delete")
	if err != nil {
		return 0, err
	}
	if err := s.q.DeleteComment(ctx, id); err != nil {
		return 0, fmt.Errorf("db: delete comment: %w", err)
	}
	return c.PostID, nil
}

// Threads returns the first page of each of some posts' threads as the viewer sees them,
// at most perPost comments, oldest first; none of a post deleted or not theirs to read.
func (s *Store) Threads(ctx context.Context, v tributary.Viewer, postIDs []int64, perPost int) (map[int64]tributary.Thread, error) {
	rows, err := s.q.Thread(ctx, dbq.ThreadParams{PostIds: nonNilIDs(postIDs), ViewerID: v.ID, PerPost: int32(perPost + 1),
		Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	if err != nil {
		return nil, fmt.Errorf("db: thread: %w", err)
	}
	all := make(map[int64][]tributary.Comment, len(postIDs))
	for _, r := range rows {
		all[r.PostID] = append(all[r.PostID], tributary.Comment{ID: r.ID, PostID: r.PostID, Body: r.Body,
			CreatedAt: r.CreatedAt, EditedAt: r.EditedAt,
			Author: tributary.UserRef{ID: r.AuthorID, Handle: r.AuthorHandle, Name: r.AuthorName, VIP: r.AuthorVip}})
	}
	out := make(map[int64]tributary.Thread, len(all))
	for id, cs := range all {
		out[id] = threadOf(cs, perPost)
	}
	return out, nil
}

// Likers returns up to limit people who liked a post, as the viewer sees them, newest first;
// none when the post is deleted or not theirs to read.
func (s *Store) Likers(ctx context.Context, v tributary.Viewer, postID int64, limit int) ([]tributary.UserRef, error) {
	rows, err := s.q.Likers(ctx, dbq.LikersParams{PostID: postID, ViewerID: v.ID, Blocked: nonNilIDs(v.Blocked),
		PrivateFeeds: nonNilIDs(v.PrivateFeeds), Lim: int32(limit)})
	if err != nil {
		return nil, fmt.Errorf("db: likers: %w", err)
	}
	out := make([]tributary.UserRef, 0, len(rows))
	for _, r := range rows {
		out = append(out, tributary.UserRef{ID: r.ID, Handle: r.Handle, Name: r.DisplayName, VIP: r.Vip})
	}
	return out, nil
}

// PostTalk returns what the cards of some posts show of their conversations, as the viewer
// sees them; posts deleted or not theirs to read are left out.
func (s *Store) PostTalk(ctx context.Context, v tributary.Viewer, ids []int64) (map[int64]tributary.Talk, error) {
	out := make(map[int64]tributary.Talk, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.reads(ctx).PostTalk(ctx, dbq.PostTalkParams{Ids: ids, ViewerID: v.ID, Blocked: nonNilIDs(v.Blocked),
		PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	if err != nil {
		return nil, fmt.Errorf("db: post talk: %w", err)
	}
	for _, r := range rows {
		t, err := talkOf(r.ID, r.Likes, r.Comments, r.Liked, r.Likers)
		if err != nil {
			return nil, err
		}
		out[r.ID] = t
	}
	return out, nil
}

// AnchorTalk returns what item cards show of the conversations on the shares of some items
// that the viewer may read: the counts summed over them.
func (s *Store) AnchorTalk(ctx context.Context, v tributary.Viewer, anchorIDs []int64) (map[int64]tributary.Talk, error) {
	out := make(map[int64]tributary.Talk, len(anchorIDs))
	if len(anchorIDs) == 0 {
		return out, nil
	}
	rows, err := s.reads(ctx).AnchorTalk(ctx, dbq.AnchorTalkParams{AnchorIds: anchorIDs, ViewerID: v.ID,
		Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	if err != nil {
		return nil, fmt.Errorf("db: item talk: %w", err)
	}
	for _, r := range rows {
		likers, err := likersOf(r.Likers)
		if err != nil {
			return nil, err
		}
		out[r.AnchorID] = tributary.Talk{Likes: int(r.Likes), Comments: int(r.Comments), Liked: r.LikedPost != 0,
			LikedPost: r.LikedPost, Likers: likers}
	}
	return out, nil
}

// PublicTalk is what an item's card shows of its conversation that is the same for every
// reader (the query's doc says how a reader's is made of it).
type PublicTalk struct {
	Likes, Comments int
	Restricted      bool                // some shares are not public: a reader's counts are read per reader
	Newest          []tributary.UserRef // the likers of the newest public likes, newest first, as many as asked for
}

// PublicTalk reads the public talk of items, with up to newest of their newest public likes.
// Always on the primary: what it reads is kept, and dropped when a change is heard of, which
// a replica may not have replayed yet.
func (s *Store) PublicTalk(ctx context.Context, anchorIDs []int64, newest int) (map[int64]PublicTalk, error) {
	out := make(map[int64]PublicTalk, len(anchorIDs))
	if len(anchorIDs) == 0 {
		return out, nil
	}
	rows, err := s.q.PublicTalk(ctx, dbq.PublicTalkParams{AnchorIds: anchorIDs, Kept: int32(newest)})
	if err != nil {
		return nil, fmt.Errorf("db: public talk: %w", err)
	}
	for _, r := range rows {
		likers, err := likersOf(r.NewestLikes)
		if err != nil {
			return nil, err
		}
		out[r.AnchorID] = PublicTalk{Likes: int(r.Likes), Comments: int(r.Comments), Restricted: r.Restricted, Newest: likers}
	}
	return out, nil
}

// LikedOf gives, for each item of anchorIDs, the share of it a viewer in no ban liked (what
// AnchorTalk gives as LikedPost), 0 when none.
func (s *Store) LikedOf(ctx context.Context, v tributary.Viewer, anchorIDs []int64) (map[int64]int64, error) {
	rows, err := s.q.LikedOf(ctx, likedOfParams(v, anchorIDs))
	if err != nil {
		return nil, fmt.Errorf("db: liked: %w", err)
	}
	return likedOf(anchorIDs, rows), nil
}

func likedOfParams(v tributary.Viewer, anchorIDs []int64) dbq.LikedOfParams {
	return dbq.LikedOfParams{ViewerID: v.ID, AnchorIds: anchorIDs, PrivateFeeds: nonNilIDs(v.PrivateFeeds)}
}

// likedOf is each item's liked share (0: none) as LikedOf read them.
func likedOf(anchorIDs []int64, rows []dbq.LikedOfRow) map[int64]int64 {
	out := make(map[int64]int64, len(anchorIDs))
	for _, id := range anchorIDs {
		out[id] = 0
	}
	for _, r := range rows {
		out[r.AnchorID] = r.PostID
	}
	return out
}

// RecountItemTalk counts the likes and comments of every item's public shares again from the
// posts, in tx: after posts were written in bulk with their counts, or deleted with triggers
// off (the seeder, the bench's restore).
func RecountItemTalk(ctx context.Context, tx pgx.Tx) error {
	q := dbq.New(tx)
	if err := q.ClearAnchorTalk(ctx); err != nil {
		return fmt.Errorf("db: recount item talk: %w", err)
	}
	if err := q.CountAnchorTalk(ctx); err != nil {
		return fmt.Errorf("db: recount item talk: %w", err)
	}
	return nil
}

// LivePost is a post as live streams check it: its item, author and who may read it.
type LivePost struct {
	ID, AnchorID, AuthorID int64
	Access                 tributary.PostAccess
	InGroup                bool // posted to a group
}

// LivePosts returns the posts among ids that are not deleted, with their items and access.
func (s *Store) LivePosts(ctx context.Context, ids []int64) ([]LivePost, error) {
	rows, err := s.q.LivePosts(ctx, nonNilIDs(ids))
	if err != nil {
		return nil, fmt.Errorf("db: live posts: %w", err)
	}
	out := make([]LivePost, len(rows))
	for i, r := range rows {
		out[i] = LivePost{ID: r.ID, AnchorID: r.AnchorID, AuthorID: r.AuthorID, InGroup: r.InGroup,
			Access: tributary.PostAccess{Public: r.IsPublic, ProtectedOwners: r.ProtectedOwnerIds, PrivateFeeds: r.PrivateFeedIds}}
	}
	return out, nil
}
