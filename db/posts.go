package db

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"tributary"
	"tributary/db/internal/dbq"
)

// PageSize is how many posts a chronological page holds.
const PageSize = 20

func postOf(r dbq.PostCard) (tributary.Post, error) {
	var links []tributary.Link
	if err := json.Unmarshal(r.LinkedUrls, &links); err != nil {
		return tributary.Post{}, fmt.Errorf("db: post %d links: %w", r.ID, err)
	}
	return tributary.Post{
		ID: r.ID, AnchorID: r.AnchorID, URL: r.Url, Title: r.Title, Body: r.Body,
		CanonicalURL: r.CanonicalUrl, AnchorURL: r.AnchorUrl, Kind: tributary.Kind(r.Kind), Host: r.Host,
		Links: links, ImageCount: int(r.ImageCount), Tags: r.Tags, CreatedAt: r.CreatedAt,
		Author: tributary.UserRef{ID: r.AuthorID, Handle: r.AuthorHandle, Name: r.AuthorName, VIP: r.AuthorVip,
			Avatar: r.AuthorAvatar.String},
		EditedAt: r.EditedAt,
	}, nil
}

// PostToEdit is a post as its author edits it.
type PostToEdit struct {
	ID    int64
	URL   string
	Title string
	Body  string
	Tags  []string
}

// PostOfAuthor reads a live post for its author to edit. Returns ENOTFOUND when there is
// none, or it is someone else's.
func (s *Store) PostOfAuthor(ctx context.Context, author, postID int64) (PostToEdit, error) {
	r, err := s.q.PostOfAuthor(ctx, dbq.PostOfAuthorParams{ID: postID, AuthorID: author})
	if err != nil {
		return PostToEdit{}, notFound(err, "No such post.")
	}
	return PostToEdit{ID: r.ID, URL: r.Url, Title: r.Title, Body: r.Body, Tags: r.Tags}, nil
}

// EditPost changes an author's post's title, text and tags, in one transaction with what
// follows them: its filter feeds (tags, mentions), its item's snapshot row, and a change
// record that open pages and every instance's caches hear of. Returns ENOTFOUND when the
// post is gone or someone else's.
func (s *Store) EditPost(ctx context.Context, author, postID int64, e tributary.Edit, now time.Time) error {
	return s.inPipedTx(ctx, func(tx *pipedTx, q *dbq.Queries) error {
		anchor, err := q.EditPost(ctx, dbq.EditPostParams{ID: postID, AuthorID: author, Title: e.Title, Body: e.Body,
			Tags: e.Tags, Mentions: e.Mentions, At: &now})
		if err != nil {
			return notFound(err, "No such post.")
		}
		if err := q.RefilterPost(ctx, postID); err != nil {
			return fmt.Errorf("db: refilter post: %w", err)
		}
		if err := q.RecordPostEdit(ctx, dbq.RecordPostEditParams{ID: postID, AnchorID: anchor}); err != nil {
			return fmt.Errorf("db: record edit: %w", err)
		}
		return s.redoAnchors(ctx, tx, q, []int64{anchor}, now)
	})
}

// ItemSharesPage is how many shares of an item an item page lists at a time.
const ItemSharesPage = 200

// ItemShares is a page of the shares of an item that a viewer may read, and how many shares
// and sharers (people) they may read in all.
type ItemShares struct {
	Posts   []tributary.Post
	Shares  int
	Sharers int
}

// ItemPosts returns the page-th page (from 1) of the shares of an item (anchor) that the
// viewer may read, oldest first, with their talk; no posts when the item does not exist, the
// viewer may read none of it or the page is past its last.
func (s *Store) ItemPosts(ctx context.Context, v tributary.Viewer, anchorID int64, page int) (ItemShares, error) {
	rows, err := s.q.ReadablePostsOfAnchor(ctx, dbq.ReadablePostsOfAnchorParams{AnchorID: anchorID, ViewerID: v.ID,
		Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds),
		Skip: int32((max(page, 1) - 1) * ItemSharesPage), Lim: ItemSharesPage})
	if err != nil {
		return ItemShares{}, fmt.Errorf("db: list posts: %w", err)
	}
	out := ItemShares{Posts: make([]tributary.Post, 0, len(rows))}
	for _, r := range rows {
		p, err := talkingPost(r.PostCard, r.Likes, r.Comments, r.Liked, r.Likers, r.Audience, v)
		if err != nil {
			return ItemShares{}, err
		}
		out.Posts = append(out.Posts, p)
		out.Shares, out.Sharers = int(r.Shares), int(r.Sharers)
	}
	return out, nil
}

// PostsByID returns the posts the viewer may read among ids, in the order of ids, with
// what their cards show of their conversations, in one round trip.
func (s *Store) PostsByID(ctx context.Context, v tributary.Viewer, ids []int64) ([]tributary.Post, error) {
	return postsByID(ctx, s.q, v, "", ids)
}

// postsByID reads posts with their talk (ReadablePostsByID); given a filter feed, only those
// still in it.
func postsByID(ctx context.Context, q *dbq.Queries, v tributary.Viewer, feed string, ids []int64) ([]tributary.Post, error) {
	rows, err := q.ReadablePostsByID(ctx, dbq.ReadablePostsByIDParams{Ids: nonNilIDs(ids), Feed: feed, ViewerID: v.ID,
		Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	if err != nil {
		return nil, fmt.Errorf("db: list posts: %w", err)
	}
	got, err := talkingPosts(rows, v)
	return inOrder(got, ids), err
}

// talkingPosts are the posts of rows read with their talk.
func talkingPosts(rows []dbq.ReadablePostsByIDRow, v tributary.Viewer) ([]tributary.Post, error) {
	posts := make([]tributary.Post, 0, len(rows))
	for _, x := range rows {
		p, err := talkingPost(x.PostCard, x.Likes, x.Comments, x.Liked, x.Likers, x.Audience, v)
		if err != nil {
			return nil, err
		}
		posts = append(posts, p)
	}
	return posts, nil
}

// talkingPost is a post read with its card's talk (post_talk's columns) and audience
// (post_audience's), as its reader v's card says it.
func talkingPost(c dbq.PostCard, likes, comments int32, liked bool, likers, audience []byte, v tributary.Viewer) (tributary.Post, error) {
	p, err := postOf(c)
	if err != nil {
		return p, err
	}
	feeds, err := audienceFeeds(audience)
	if err != nil {
		return p, fmt.Errorf("db: post %d audience: %w", p.ID, err)
	}
	p.Audience = tributary.AudienceOf(feeds, c.IsPublic, v)
	p.Talk, err = talkOf(p.ID, likes, comments, liked, likers)
	return p, err
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
