package db

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"tributary"
	"tributary/db/internal/dbq"
)

// A user's own account: their profile (display name, bio, avatar), their password and their
// sessions.

// Session is one of a user's open sessions, as their sessions page lists it.
type Session struct {
	ID        int64
	CreatedAt time.Time
	SeenAt    time.Time // its last use, to within sessionTouch
	UserAgent string
	Current   bool // the session of the request that asked
}

// UserSessions lists a user's open sessions, the most recently used first; current is the
// asking request's token.
func (s *Store) UserSessions(ctx context.Context, userID int64, current string) ([]Session, error) {
	rows, err := s.q.UserSessions(ctx, dbq.UserSessionsParams{UserID: pgtype.Int8{Int64: userID, Valid: true},
		TokenHash: tokenHash(current)})
	if err != nil {
		return nil, fmt.Errorf("db: sessions: %w", err)
	}
	out := make([]Session, len(rows))
	for i, r := range rows {
		out[i] = Session{ID: r.ID, CreatedAt: r.CreatedAt, SeenAt: r.SeenAt, UserAgent: r.UserAgent, Current: r.Current}
	}
	return out, nil
}

// EndSession ends one of a user's sessions by its id (ENotFound: none of theirs has it) and
// says whether it was the one of the token current. Every instance reads sessions from the
// table, so it ends everywhere at once.
func (s *Store) EndSession(ctx context.Context, userID, id int64, current string) (bool, error) {
	was, err := s.q.DeleteUserSession(ctx, dbq.DeleteUserSessionParams{ID: id, UserID: pgtype.Int8{Int64: userID, Valid: true},
		TokenHash: tokenHash(current)})
	if errors.Is(err, pgx.ErrNoRows) {
		return false, tributary.Errorf(tributary.ENotFound, "No such session.")
	} else if err != nil {
		return false, fmt.Errorf("db: end session: %w", err)
	}
	return was, nil
}

// EndSessions ends every session of a user but the one of the token keep ("": every one).
func (s *Store) EndSessions(ctx context.Context, userID int64, keep string) error {
	if _, err := s.q.DeleteUserSessions(ctx, dbq.DeleteUserSessionsParams{UserID: pgtype.Int8{Int64: userID, Valid: true},
		KeepHash: keepHash(keep)}); err != nil {
		return fmt.Errorf("db: end sessions: %w", err)
	}
	return nil
}

// keepHash is the hash of the token a deletion of sessions spares (none: one no row has).
func keepHash(token string) []byte {
	if token == "" {
		return []byte{}
	}
	return tokenHash(token)
}

// ChangePassword sets a user's password hash and, in the same transaction, ends every other
// session of theirs (all but the one of the token keep).
func (s *Store) ChangePassword(ctx context.Context, userID int64, hash, keep string) error {
	return s.inTx(ctx, func(q *dbq.Queries) error {
		if err := q.SetPassword(ctx, dbq.SetPasswordParams{ID: userID, PasswordHash: hash}); err != nil {
			return fmt.Errorf("db: change password: %w", err)
		}
		if _, err := q.DeleteUserSessions(ctx, dbq.DeleteUserSessionsParams{UserID: pgtype.Int8{Int64: userID, Valid: true},
			KeepHash: keepHash(keep)}); err != nil {
			return fmt.Errorf("db: change password: sessions: %w", err)
		}
		return nil
	})
}

// SetProfile sets a user's display name and bio (both normalized by the caller). The rows of
// the snapshot that name them are redone in the same transaction, and the change reaches
// every instance's kept names by the site's event path (a 'users' change, by trigger).
func (s *Store) SetProfile(ctx context.Context, userID int64, name, bio string) error {
	return s.changeUser(ctx, userID, func(q *dbq.Queries) error {
		return q.SetProfile(ctx, dbq.SetProfileParams{ID: userID, DisplayName: name, Bio: bio})
	})
}

// SetAvatar stores an avatar's two squares (made by images.Avatar) and makes them the user's;
// with zero images it removes the user's avatar. Redone and told as SetProfile is.
func (s *Store) SetAvatar(ctx context.Context, userID int64, small, large tributary.Image) error {
	var sm, lg pgtype.Text
	if small.Hash != "" {
		if err := s.PutImages(ctx, small, large); err != nil {
			return err
		}
		sm, lg = pgtype.Text{String: small.Hash, Valid: true}, pgtype.Text{String: large.Hash, Valid: true}
	}
	return s.changeUser(ctx, userID, func(q *dbq.Queries) error {
		return q.SetAvatar(ctx, dbq.SetAvatarParams{ID: userID, Avatar: sm, AvatarLarge: lg})
	})
}

// changeUser runs a change of what cards show of a user, then redoes the snapshot rows of
// the items they shared (their pre-rendered sharer stacks name them), in one transaction.
func (s *Store) changeUser(ctx context.Context, userID int64, change func(q *dbq.Queries) error) error {
	err := s.inPipedTx(ctx, func(tx *pipedTx, q *dbq.Queries) error {
		if err := change(q); err != nil {
			return err
		}
		anchors, err := q.SnapshotAnchorsOf(ctx, userID)
		if err != nil {
			return err
		}
		now := time.Now()
		for chunk := range slices.Chunk(anchors, refreshChunk) {
			if err := s.redoAnchors(ctx, tx, q, chunk, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("db: change user: %w", err)
	}
	return nil
}
