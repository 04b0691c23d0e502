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

// RankRow is a snapshot row as the feed service keeps it in memory: the ranking columns and
// what the logged-in path filters on.
type RankRow struct {
	SnapshotMatch
	Kind   tributary.Kind
	Tags   []string
	Access tributary.PostAccess
}

func rankRowOf(r dbq.SnapshotRankingRow) RankRow {
	return RankRow{SnapshotMatch: SnapshotMatch{AnchorID: r.AnchorID, Score: r.Score, SharerIDs: r.SharerUserIds,
		Date: r.Date, URL: r.Url, PrimaryUserID: r.PrimaryUserID, AllPublic: r.AllPublic},
		Kind: tributary.Kind(r.Kind), Tags: r.Tags,
		Access: tributary.PostAccess{Public: r.AnyPublic, ProtectedOwners: r.ProtectedOwnerIds, PrivateFeeds: r.PrivateFeedIds}}
}

// SnapshotRanking reads every snapshot row's RankRow in score order, as of one moment, with
// the snapshot's refresh time and the oldest transaction still running at that moment (the
// changes of it and later ones may be missing: the ChangesFrom of the next viewer state).
func (s *Store) SnapshotRanking(ctx context.Context) (rows []RankRow, refreshedAt time.Time, xmin int64, err error) {
	err = pgx.BeginTxFunc(ctx, s.Pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		q := queries(tx)
		if err := tx.QueryRow(ctx, "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint").Scan(&xmin); err != nil {
			return err
		}
		meta, err := q.SnapshotMeta(ctx)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) { // no rows: never refreshed
			return err
		}
		refreshedAt = meta.RefreshedAt
		// Row by row, each kept in its own form at once: a million rows are held once, not
		// twice (as the query's rows, then as RankRows), and the few kinds and tags they
		// repeat once each.
		rows = make([]RankRow, 0, int(meta.Rows)+int(meta.Rows)/16+64) // rows counted at the last refresh, and room
		words := interner{}
		return q.EachSnapshotRanking(ctx, []int64{}, func(r dbq.SnapshotRankingRow) {
			row := rankRowOf(r)
			row.Kind = tributary.Kind(words.of(string(row.Kind)))
			for i, t := range row.Tags {
				row.Tags[i] = words.of(t)
			}
			rows = append(rows, row)
		})
	})
	if err != nil {
		return nil, time.Time{}, 0, fmt.Errorf("db: snapshot ranking: %w", err)
	}
	return rows, refreshedAt, xmin, nil
}

// SnapshotRankingOf reads the RankRows of some anchors; anchors without a row are left out.
func (s *Store) SnapshotRankingOf(ctx context.Context, ids []int64) ([]RankRow, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rs, err := s.q.SnapshotRanking(ctx, ids) // the rows the primary just listed as changed: never a replica's older ones
	if err != nil {
		return nil, fmt.Errorf("db: snapshot ranking: %w", err)
	}
	rows := make([]RankRow, len(rs))
	for i, r := range rs {
		rows[i] = rankRowOf(r)
	}
	return rows, nil
}

// interner keeps one copy of each of a few strings that many rows repeat.
type interner map[string]string

func (m interner) of(s string) string {
	if t, ok := m[s]; ok {
		return t
	}
	m[s] = s
	return s
}
