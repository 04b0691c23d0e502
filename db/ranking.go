package db

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"tributary"
	"tributary/db/internal/dbq"
)

// RankRow is a snapshot row as the feed service keeps it in memory: the ranking columns and
// what the logged-in path filters on. A million of them are held at once (two while a copy
// is folded), so a row is packed into 88 bytes: the date as Unix microseconds, the kind as
// its place in tributary.Kinds, and the tags and restricted access, which rows repeat, as one
// shared rankExtra.
type RankRow struct {
	AnchorID      int64
	PrimaryUserID int64
	Score         float64 // viewer-agnostic, as of the row's refresh
	at            int64   // the date, in Unix microseconds
	SharerIDs     []int64
	URL           string
	extra         *rankExtra // nil: no tags, no restricted access, a listed kind
	kind          uint8      // 1 + the kind's place in tributary.Kinds; 0: in extra
	AllPublic     bool
	public        bool // some feed holding it is public
}

// rankExtra is what few rows have or many rows share: their tags, who else may read them,
// and a kind outside tributary.Kinds.
type rankExtra struct {
	tags                          []string
	protectedOwners, privateFeeds []int64
	kind                          tributary.Kind
	groups                        []int64 // the groups it is in (SnapshotMatch.GroupIDs)
}

// NewRankRow packs a row.
func NewRankRow(m SnapshotMatch, kind tributary.Kind, tags []string, access tributary.PostAccess) RankRow {
	return rankRows{}.of(m, kind, tags, access)
}

// Date is the row's date (its newest share).
func (r *RankRow) Date() time.Time { return time.UnixMicro(r.at) }

// Kind is the kind of resource of the row's anchor.
func (r *RankRow) Kind() tributary.Kind {
	if r.kind > 0 {
		return tributary.Kinds[r.kind-1]
	}
	if r.extra != nil {
		return r.extra.kind
	}
	return ""
}

// Tags are the row's tags (shared with other rows: never changed).
func (r *RankRow) Tags() []string {
	if r.extra == nil {
		return nil
	}
	return r.extra.tags
}

// Access is who may read the row.
func (r *RankRow) Access() tributary.PostAccess {
	a := tributary.PostAccess{Public: r.public}
	if r.extra != nil {
		a.ProtectedOwners, a.PrivateFeeds = r.extra.protectedOwners, r.extra.privateFeeds
	}
	return a
}

// Groups are the groups the row's item is in.
func (r *RankRow) Groups() []int64 {
	if r.extra == nil {
		return nil
	}
	return r.extra.groups
}

// Match is the row as the snapshot path's answer, with its followed sharers counted.
func (r *RankRow) Match(followedSharers int) SnapshotMatch {
	return SnapshotMatch{AnchorID: r.AnchorID, Score: r.Score, SharerIDs: r.SharerIDs, Date: r.Date(), URL: r.URL,
		PrimaryUserID: r.PrimaryUserID, AllPublic: r.AllPublic, GroupIDs: r.Groups(), FollowedSharers: followedSharers}
}

// rankRows packs rows, keeping one rankExtra for the rows that have the same (nil: none
// shared).
type rankRows map[string]*rankExtra

func (rs rankRows) of(m SnapshotMatch, kind tributary.Kind, tags []string, access tributary.PostAccess) RankRow {
	r := RankRow{AnchorID: m.AnchorID, PrimaryUserID: m.PrimaryUserID, Score: m.Score, at: m.Date.UnixMicro(),
		SharerIDs: m.SharerIDs, URL: m.URL, AllPublic: m.AllPublic, public: access.Public}
	if i := slices.Index(tributary.Kinds, kind); i >= 0 {
		r.kind = uint8(i + 1)
		kind = ""
	}
	if len(tags) == 0 && len(access.ProtectedOwners) == 0 && len(access.PrivateFeeds) == 0 && kind == "" && len(m.GroupIDs) == 0 {
		return r
	}
	e := &rankExtra{tags: tags, protectedOwners: access.ProtectedOwners, privateFeeds: access.PrivateFeeds, kind: kind, groups: m.GroupIDs}
	if rs == nil {
		r.extra = e
		return r
	}
	key := e.key()
	if r.extra = rs[key]; r.extra == nil {
		r.extra = e
		rs[key] = e
	}
	return r
}

// key names the extra's contents.
func (e *rankExtra) key() string {
	var b []byte
	word := func(s string) { // after its length
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		b = append(b, s...)
	}
	word(string(e.kind))
	for _, t := range e.tags {
		word(t)
	}
	for _, ids := range [][]int64{e.protectedOwners, e.privateFeeds, e.groups} {
		b = append(b, ';')
		for _, id := range ids {
			b = strconv.AppendInt(b, id, 10)
			b = append(b, ',')
		}
	}
	return string(b)
}

func rankRowOf(rs rankRows, r dbq.SnapshotRankingRow) RankRow {
	return rs.of(SnapshotMatch{AnchorID: r.AnchorID, Score: r.Score, SharerIDs: r.SharerUserIds, Date: r.Date, URL: r.Url,
		PrimaryUserID: r.PrimaryUserID, AllPublic: r.AllPublic, GroupIDs: r.GroupIds},
		tributary.Kind(r.Kind), r.Tags, tributary.PostAccess{Public: r.AnyPublic, ProtectedOwners: r.ProtectedOwnerIds, PrivateFeeds: r.PrivateFeedIds})
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
		// Row by row, each packed at once: a million rows are held once, not twice (as the
		// query's rows, then as RankRows), and the tag sets they repeat once each.
		rows = make([]RankRow, 0, int(meta.Rows)+int(meta.Rows)/16+64) // rows counted at the last refresh, and room
		shared := rankRows{}
		return q.EachSnapshotRanking(ctx, []int64{}, func(r dbq.SnapshotRankingRow) {
			rows = append(rows, rankRowOf(shared, r))
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
		rows[i] = rankRowOf(nil, r)
	}
	return rows, nil
}
