package bench

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// The readers of the live notice measurement's streams: the author's followers the bench adds
// when the dataset has too few, and readers who follow someone else.

// addLiveReaders makes the author's followers number at least n, adding readers who follow
// the author alone (their home pages are the author's shares).
func addLiveReaders(ctx context.Context, pool *pgxpool.Pool, author int64, n int) (int, error) {
	var have int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM follows WHERE followed_id = $1 AND state = 'active'`, author).Scan(&have); err != nil {
		return 0, err
	}
	if have >= n {
		return 0, nil
	}
	_, err := pool.Exec(ctx, `WITH made AS (
		INSERT INTO users (handle, display_name)
		SELECT $2 || g, 'Live reader ' || g FROM generate_series(1, $3::int) g RETURNING id)
		INSERT INTO follows (follower_id, followed_id) SELECT id, $1 FROM made`, author, liveReaderHandle, n-have)
	if err != nil {
		return 0, fmt.Errorf("add readers: %w", err)
	}
	return n - have, nil
}

// addBystanders adds n readers who follow someone other than author (the most followed
// after them): their home pages' streams are open, and no share of author is theirs.
func addBystanders(ctx context.Context, pool *pgxpool.Pool, author int64, n int) ([]int64, error) {
	var ids []int64
	err := pool.QueryRow(ctx, `WITH other AS (
		SELECT followed_id AS id FROM follows WHERE state = 'active' AND followed_id <> $1
		 GROUP BY followed_id ORDER BY count(*) DESC LIMIT 1),
	made AS (
		INSERT INTO users (handle, display_name)
		SELECT $2 || 'o' || g, 'Other reader ' || g FROM generate_series(1, $3::int) g RETURNING id),
	f AS (INSERT INTO follows (follower_id, followed_id) SELECT made.id, other.id FROM made, other)
	SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM made`, author, liveReaderHandle, n).Scan(&ids)
	if err != nil {
		return nil, fmt.Errorf("add bystanders: %w", err)
	}
	return ids, nil
}

// dropLiveReaders removes the readers addLiveReaders added, and all that is theirs.
func dropLiveReaders(ctx context.Context, pool *pgxpool.Pool) error {
	if _, err := pool.Exec(ctx, `DELETE FROM users WHERE handle LIKE $1 || '%'`, liveReaderHandle); err != nil {
		return fmt.Errorf("drop readers: %w", err)
	}
	return nil
}

// pickLiveReaders picks the most followed author and the readers whose streams open: nf of the
// author's followers (added when too few), then bystanders up to streams. It reports how many
// readers it added; dropLiveReaders takes them away.
func pickLiveReaders(ctx context.Context, pool *pgxpool.Pool, streams, nf int) (author int64, followers, bystanders []int64, added int, err error) {
	err = dropLiveReaders(ctx, pool) // a run stopped before it dropped them
	if err == nil {
		err = pool.QueryRow(ctx, `SELECT followed_id FROM follows WHERE state = 'active'
			GROUP BY followed_id ORDER BY count(*) DESC LIMIT 1`).Scan(&author)
	}
	if err == nil {
		added, err = addLiveReaders(ctx, pool, author, nf)
	}
	if err == nil {
		err = pool.QueryRow(ctx, `SELECT coalesce(array_agg(follower_id), '{}') FROM (SELECT follower_id FROM follows
			WHERE followed_id = $1 AND state = 'active' ORDER BY follower_id LIMIT $2) f`, author, nf).Scan(&followers)
	}
	if err == nil && streams > nf {
		bystanders, err = addBystanders(ctx, pool, author, streams-nf)
		added += len(bystanders)
	}
	if err != nil {
		return 0, nil, nil, 0, fmt.Errorf("bench: live notices: %w", err)
	}
	return author, followers, bystanders, added, nil
}
