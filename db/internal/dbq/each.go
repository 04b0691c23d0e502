package dbq

// Written by hand beside sqlc's output (sqlc makes a :many query into one slice): the
// queries whose answers are read row by row, for callers that keep their own form of each
// row and must not hold a million rows twice.

import (
	"context"
	"time"
)

// EachSnapshotRanking is SnapshotRanking row by row: fn gets each row in order.
func (q *Queries) EachSnapshotRanking(ctx context.Context, onlyIds []int64, fn func(SnapshotRankingRow)) error {
	rows, err := q.db.Query(ctx, snapshotRanking, onlyIds)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var i SnapshotRankingRow
		if err := rows.Scan(&i.AnchorID, &i.Score, &i.SharerUserIds, &i.Date, &i.Url, &i.PrimaryUserID, &i.AllPublic,
			&i.AnyPublic, &i.ProtectedOwnerIds, &i.PrivateFeedIds, &i.Kind, &i.Tags, &i.GroupIds); err != nil {
			return err
		}
		fn(i)
	}
	return rows.Err()
}

// EachPostFactsInWindow is PostFactsInWindow row by row: fn gets each row in order, and its
// error ends the reading.
func (q *Queries) EachPostFactsInWindow(ctx context.Context, since time.Time, fn func(PostFact) error) error {
	rows, err := q.db.Query(ctx, postFactsInWindow, since)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var i PostFact
		if err := rows.Scan(&i.ID, &i.AnchorID, &i.AnchorUrl, &i.AnchorKind, &i.Url, &i.CanonicalUrl, &i.Title, &i.Body,
			&i.Host, &i.LinkedUrls, &i.ImageCount, &i.UrlCount, &i.SciScore, &i.Tags, &i.CreatedAt, &i.AuthorID,
			&i.Handle, &i.DisplayName, &i.Vip, &i.Notability, &i.IsPublic, &i.ProtectedOwnerIds, &i.PrivateFeedIds, &i.DeletedAt, &i.ToFollowers,
			&i.Avatar, &i.GroupFeedIds); err != nil {
			return err
		}
		if err := fn(i); err != nil {
			return err
		}
	}
	return rows.Err()
}
