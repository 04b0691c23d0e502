package db

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"tributary"
	"tributary/db/internal/dbq"
)

// Store reads and writes Tributary's primary tables and returns domain types; the
// sqlc-generated types stay inside this package.
type Store struct {
	Pool *pgxpool.Pool
	// Session holds what lives longer than a transaction (the site listener's LISTEN, the
	// snapshot refresh's lock): direct to PostgreSQL, never through a pooler in
	// transaction mode. NewStore makes it Pool; serve points it at --direct-database-url.
	Session *pgxpool.Pool
	// Weights score snapshot rows; the feed service reads the same ones.
	Weights tributary.Weights
	// ArrivalsByFollows is the size of followed set from which the arrival query reads the
	// set from follows (see Arrived).
	ArrivalsByFollows int
	// RecentScan is how many posts an arrival interval no longer than RecentSpan may hold
	// for the interval's posts to be read and filtered in one prepared plan
	// (RecentArrivals); 0: never.
	RecentScan int
	RecentSpan time.Duration
	// Rivers serve active readers' home feeds (see rivers.go).
	Rivers RiverConfig
	// Jobs is how this instance works durable jobs (see jobs.go).
	Jobs JobConfig
	// Fetcher fetches link cards (nil: fetching is off); CardSaved is called after a card
	// is saved, to wake the other instances' open pages.
	Fetcher     CardFetcher
	CardSaved   func()
	jobs        jobs
	riverCounts riverCounts
	q           *dbq.Queries
	cards       *cardCache
	unread      *unreadKept
	replica     *replica // nil: no read replica
}

// NewStore wraps a pool, scoring with the default weights.
func NewStore(pool *pgxpool.Pool) *Store {
	return &Store{Pool: pool, Session: pool, Weights: tributary.DefaultWeights, ArrivalsByFollows: DefaultArrivalsByFollows,
		RecentScan: DefaultRecentScan, RecentSpan: DefaultRecentSpan, Rivers: DefaultRiverConfig, Jobs: DefaultJobConfig, q: queries(pool),
		cards: newCardCache(20000), unread: newUnreadKept()}
}

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.Pool.Ping(ctx) }

// inTx runs fn in one transaction, committed only when fn succeeds.
func (s *Store) inTx(ctx context.Context, fn func(q *dbq.Queries) error) error {
	return s.runTx(ctx, pgx.TxOptions{}, func(_ pgx.Tx, q *dbq.Queries) error { return fn(q) })
}

// runTx runs fn in one transaction begun with opts, committed only when fn succeeds.
func (s *Store) runTx(ctx context.Context, opts pgx.TxOptions, fn func(tx pgx.Tx, q *dbq.Queries) error) error {
	tx, err := s.Pool.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("db: begin: %w", err)
	}
	defer tx.Rollback(ctx)
	if err := fn(tx, queries(tx)); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("db: commit: %w", err)
	}
	return nil
}

func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// NewUser is an account to create; PasswordHash is already hashed.
type NewUser struct {
	Handle       string
	DisplayName  string
	PasswordHash string
	VIP          bool
	Notability   int64
	CreatedAt    time.Time
}

// CreateUser creates an account with its posts feed. A taken handle is an EConflict.
func (s *Store) CreateUser(ctx context.Context, nu NewUser) (tributary.User, error) {
	var u dbq.User
	err := s.inTx(ctx, func(q *dbq.Queries) error {
		var err error
		u, err = q.CreateUser(ctx, dbq.CreateUserParams{
			Handle: nu.Handle, DisplayName: nu.DisplayName, PasswordHash: nu.PasswordHash,
			Vip: nu.VIP, Notability: nu.Notability, CreatedAt: nu.CreatedAt,
		})
		if isUniqueViolation(err) {
			return tributary.Errorf(tributary.EConflict, "Handle %q is taken.", nu.Handle)
		} else if err != nil {
			return fmt.Errorf("db: create user: %w", err)
		}
		if _, err := q.CreatePostsFeed(ctx, u.ID); err != nil {
			return fmt.Errorf("db: create posts feed: %w", err)
		}
		return nil
	})
	return userOf(u), err
}

// UserByHandle finds a user by handle (case-insensitive); a missing one is ENotFound.
func (s *Store) UserByHandle(ctx context.Context, handle string) (tributary.User, error) {
	u, err := s.q.UserByHandle(ctx, handle)
	return userOf(u), notFound(err, "No user @%s.", handle)
}

// Credentials returns the user and their password hash, for logging in.
func (s *Store) Credentials(ctx context.Context, handle string) (tributary.User, string, error) {
	u, err := s.q.UserByHandle(ctx, handle)
	return userOf(u), u.PasswordHash, notFound(err, "No user @%s.", handle)
}

// UserByID finds a user by id.
func (s *Store) UserByID(ctx context.Context, id int64) (tributary.User, error) {
	u, err := s.q.UserByID(ctx, id)
	return userOf(u), notFound(err, "No such user.")
}

// UserWithAccess returns a user and what the access rules need of them (see ViewerAccess).
func (s *Store) UserWithAccess(ctx context.Context, id int64) (tributary.User, tributary.Viewer, error) {
	r, err := s.q.UserWithAccess(ctx, id)
	if err != nil {
		return tributary.User{}, tributary.Viewer{}, notFound(err, "No such user.")
	}
	return userOf(r.User), viewerAccessOf(r.ViewerAccess), nil
}

// Replicated reports whether reads may go to a replica (so a writer's next reads must not).
func (s *Store) Replicated() bool { return s.replica != nil }

// UserStats counts what a profile shows.
type UserStats struct{ Following, Followers, Posts int64 }

func notFound(err error, format string, args ...any) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return tributary.Errorf(tributary.ENotFound, format, args...)
	}
	if err != nil {
		return fmt.Errorf("db: %w", err)
	}
	return nil
}

func userOf(u dbq.User) tributary.User {
	return tributary.User{ID: u.ID, Handle: u.Handle, DisplayName: u.DisplayName, VIP: u.Vip,
		Notability: u.Notability, Private: u.IsPrivate, CreatedAt: u.CreatedAt, HomeActivity: u.HomeActivity,
		Bio: u.Bio, Avatar: u.Avatar.String, AvatarLarge: u.AvatarLarge.String}
}

// resetFences drops a viewer's fence state: their feeds grew (a new follow, an approval, a
// group joined), so the next first page ranks the whole window again to bring in the
// older posts they can now read. Shrinking needs no reset: items are re-checked when served.
func resetFences(ctx context.Context, q *dbq.Queries, viewer int64) error {
	if err := q.ResetFences(ctx, viewer); err != nil {
		return fmt.Errorf("db: reset fences: %w", err)
	}
	return nil
}

// CreatePost stores a prepared share in its author's posts feed. It returns the new post's
// id, or 0 when the same share (author, canonical URL, time) exists already.
func (s *Store) CreatePost(ctx context.Context, p tributary.Prepared) (int64, error) {
	return s.Share(ctx, p, Destination{OwnFeed: true})
}

// Destination says where a share goes: the author's own feed, groups, directs to people.
type Destination struct {
	OwnFeed  bool
	Groups   []int64 // group feed ids; the author must be an active member
	DirectTo []int64 // user ids; each must follow the author (accept directs from them)
}

// Share stores a prepared share in its destinations and brings its item's snapshot row up to
// date, in one transaction: the share shows in ranked feeds at once, not at the next snapshot
// refresh, and never in the posts without its snapshot row. To one's own feed alone, the
// transaction is three round trips (pipedTx).
func (s *Store) Share(ctx context.Context, p tributary.Prepared, d Destination) (int64, error) {
	if p.NewPost.URL == "" && (d.OwnFeed || len(d.Groups) > 0 || len(d.DirectTo) == 0) {
		return 0, tributary.FieldErrorf("url", "URL is required: only a direct may be a message without a link.")
	}
	var id int64
	err := s.inPipedTx(ctx, func(tx *pipedTx, q *dbq.Queries) error {
		feeds, err := destinationFeeds(ctx, q, p.AuthorID, d)
		if err != nil {
			return err
		}
		var anchorID int64
		if id, anchorID, err = insertPostTo(ctx, q, p, d.OwnFeed, feeds); err != nil || id == 0 {
			return err
		}
		return s.redoAnchors(ctx, tx, q, []int64{anchorID}, p.CreatedAt)
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

// destinationFeeds checks a share's groups and directs and returns their feeds (the author's
// own feed is found by InsertPost).
func destinationFeeds(ctx context.Context, q *dbq.Queries, author int64, d Destination) ([]int64, error) {
	feeds := []int64{}
	for _, g := range d.Groups {
		if slices.Contains(feeds, g) {
			continue
		}
		m, err := q.Membership(ctx, dbq.MembershipParams{FeedID: g, UserID: author})
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && m.State != "active") {
			return nil, tributary.FieldErrorf("groups", "You can post only to groups you are a member of.")
		} else if err != nil {
			return nil, fmt.Errorf("db: membership: %w", err)
		}
		feeds = append(feeds, g)
	}
	if len(d.DirectTo) > 0 {
		for _, to := range d.DirectTo {
			st, err := q.FollowState(ctx, dbq.FollowStateParams{FollowerID: to, FollowedID: author})
			if errors.Is(err, pgx.ErrNoRows) || (err == nil && st != "active") || to == author {
				u, _ := q.UserByID(ctx, to)
				return nil, tributary.FieldErrorf("to", "@%s does not accept directs from you: they do not follow you.", u.Handle)
			} else if err != nil {
				return nil, fmt.Errorf("db: follow state: %w", err)
			}
		}
		// Each direct is its own private feed read by the sender and the recipients.
		feed, err := q.CreateDirectsFeed(ctx, author)
		if err != nil {
			return nil, fmt.Errorf("db: directs feed: %w", err)
		}
		for _, u := range append([]int64{author}, d.DirectTo...) {
			if err := q.AddReader(ctx, dbq.AddReaderParams{FeedID: feed, UserID: u}); err != nil {
				return nil, fmt.Errorf("db: directs reader: %w", err)
			}
		}
		feeds = append(feeds, feed)
	}
	if len(feeds) == 0 && !d.OwnFeed {
		return nil, tributary.FieldErrorf("to", "Choose where to share: your feed, a group or people.")
	}
	return feeds, nil
}

// insertPostTo stores a share in some feeds, and in its author's own feed when own, with
// their access folded onto it; it returns its id and anchor id, id 0 when the share existed.
func insertPostTo(ctx context.Context, q *dbq.Queries, p tributary.Prepared, own bool, feeds []int64) (id, anchorID int64, err error) {
	links, err := json.Marshal(nonNil(p.Links))
	if err != nil {
		return 0, 0, fmt.Errorf("db: links: %w", err)
	}
	var ownFeedOf int64
	want := len(feeds) // feeds found
	if own {
		ownFeedOf = p.AuthorID
		want++
	}
	r, err := q.InsertPost(ctx, dbq.InsertPostParams{
		AuthorID: p.AuthorID, Url: p.NewPost.URL, Title: p.Title, Body: p.Body,
		CanonicalUrl: p.CanonicalURL, AnchorUrl: p.AnchorURL, Kind: string(p.Kind), AnchorKind: string(p.AnchorKind), Host: p.Host,
		LinkHosts: p.LinkHosts, LinkedUrls: links, ImageCount: int32(p.ImageCount),
		UrlCount: int32(p.URLCount), SciScore: int16(p.SciScore), Tags: nonNilStrings(p.Tags), Mentions: nonNilStrings(p.Mentions), CreatedAt: p.CreatedAt,
		FeedIds: feeds, OwnFeedOf: ownFeedOf,
	})
	if err != nil {
		return 0, 0, fmt.Errorf("db: insert post: %w", err)
	}
	if int(r.Feeds) != want {
		return 0, 0, fmt.Errorf("db: insert post: %d of its %d feeds found", r.Feeds, want)
	}
	return r.ID, r.AnchorID, nil // id 0: the same share exists, nothing was written but the item
}

func nonNil(l []tributary.Link) []tributary.Link {
	if l == nil {
		return []tributary.Link{}
	}
	return l
}

// DeleteExpiredSessions removes sessions past their expiry.
func (s *Store) DeleteExpiredSessions(ctx context.Context) (int64, error) {
	n, err := s.q.DeleteExpiredSessions(ctx)
	if err != nil {
		return 0, fmt.Errorf("db: delete expired sessions: %w", err)
	}
	return n, nil
}

// CountUsers counts accounts (an empty database has none).
func (s *Store) CountUsers(ctx context.Context) (int64, error) {
	n, err := s.q.CountUsers(ctx)
	if err != nil {
		return 0, fmt.Errorf("db: count users: %w", err)
	}
	return n, nil
}
