package db

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"tributary"
	"tributary/db/internal/dbq"
)

// ImportResult counts what an import did.
type ImportResult struct {
	Imported       int // new posts
	AlreadyPresent int // shares stored before (same author, canonical URL and time)
	UsersCreated   int
}

// Import stores parsed shares in one transaction: all of them or, on any error, none.
// Authors are found by handle, case-insensitively; missing ones are created with their
// posts feed, display name = handle and no password, so they cannot log in until one is
// set. A share stored before counts as already present, so re-importing a file is a no-op.
func (s *Store) Import(ctx context.Context, recs []tributary.ImportRecord) (ImportResult, error) {
	var res ImportResult
	var anchors []int64
	err := s.inTx(ctx, func(q *dbq.Queries) error {
		ids, created, err := importAuthors(ctx, q, recs)
		if err != nil {
			return err
		}
		res = ImportResult{UsersCreated: created}
		for _, r := range recs {
			p := r.Post
			p.AuthorID = ids[strings.ToLower(r.Handle)]
			id, anchor, err := insertPost(ctx, q, p)
			if err != nil {
				return fmt.Errorf("db: import line %d: %w", r.Line, err)
			}
			if id == 0 {
				res.AlreadyPresent++
			} else {
				res.Imported++
				anchors = append(anchors, anchor)
			}
		}
		return nil
	})
	if err != nil {
		return ImportResult{}, err
	}
	// Imported shares show in ranked feeds at once, not at the next snapshot refresh.
	slices.Sort(anchors)
	return res, s.RefreshAnchors(ctx, slices.Compact(anchors), time.Now())
}

// importAuthors returns the user id of every handle in recs by its lower-case form,
// creating the missing users. A new user's created_at is their earliest share in recs,
// so no imported post predates its author's account.
func importAuthors(ctx context.Context, q *dbq.Queries, recs []tributary.ImportRecord) (map[string]int64, int, error) {
	var order []string              // lower-case handles in file order
	spelling := map[string]string{} // the first spelling of each handle
	since := map[string]time.Time{} // each author's earliest share
	for _, r := range recs {
		key := strings.ToLower(r.Handle)
		if _, seen := spelling[key]; !seen {
			order = append(order, key)
			spelling[key], since[key] = r.Handle, r.Post.CreatedAt
		} else if r.Post.CreatedAt.Before(since[key]) {
			since[key] = r.Post.CreatedAt
		}
	}
	rows, err := q.UsersByHandles(ctx, order)
	if err != nil {
		return nil, 0, fmt.Errorf("db: users by handles: %w", err)
	}
	ids := make(map[string]int64, len(order))
	for _, u := range rows {
		ids[strings.ToLower(u.Handle)] = u.ID
	}
	created := 0
	for _, key := range order {
		if _, ok := ids[key]; ok {
			continue
		}
		h := spelling[key]
		u, err := q.CreateUser(ctx, dbq.CreateUserParams{Handle: h, DisplayName: h, PasswordHash: "", CreatedAt: since[key]})
		if isUniqueViolation(err) { // taken since UsersByHandles, by a concurrent signup
			return nil, 0, tributary.Errorf(tributary.EConflict, "Handle %q was taken during the import; run it again.", h)
		} else if err != nil {
			return nil, 0, fmt.Errorf("db: create user %q: %w", h, err)
		}
		if _, err := q.CreatePostsFeed(ctx, u.ID); err != nil {
			return nil, 0, fmt.Errorf("db: create posts feed: %w", err)
		}
		ids[key] = u.ID
		created++
	}
	return ids, created, nil
}
