package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"tributary"
	"tributary/db/internal/dbq"
)

// Link cards: an item's first share makes its card pending (a trigger, in the share's own
// statement); the dispatcher hands due cards to River, one job per item however many
// instances and sharers there are; a worker fetches the card (CardFetcher) and saves it,
// redoing the item's snapshot row so the card counts in the feed at once.

// cardsQueue holds the link-card fetches, apart from the rivers' reconstructions.
const cardsQueue = "cards"

// CardFetcher fetches what a link is. Its errors say why (CardError) or when to try again
// (HostBusy).
type CardFetcher interface {
	FetchCard(ctx context.Context, url string) (tributary.LinkCard, error)
}

// CardError is a fetch that failed for a reason worth recording; Permanent ones (a refused
// address, not a web page) are not tried again.
type CardError struct {
	Reason    string
	Permanent bool
}

func (e *CardError) Error() string { return "link card: " + e.Reason }

// HostBusy says the host's politeness interval has not passed: try again at Until.
type HostBusy struct{ Until time.Time }

func (e *HostBusy) Error() string {
	return "link card: host busy until " + e.Until.Format(time.RFC3339)
}

// FetchCardArgs asks for an item's card to be fetched.
type FetchCardArgs struct {
	AnchorID int64  `json:"anchor_id"`
	URL      string `json:"url"`
}

// Kind names the job in River's table.
func (FetchCardArgs) Kind() string { return "fetch_card" }

// InsertOpts: one job per item at a time. A finished job does not count (a refetch after 14
// days is a new job); one attempt, as failures are retried by the card's own back-off.
func (FetchCardArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: cardsQueue, MaxAttempts: 1, UniqueOpts: river.UniqueOpts{
		ByArgs: true,
		ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
			rivertype.JobStateRetryable, rivertype.JobStateRunning, rivertype.JobStateScheduled},
	}}
}

type fetchCardWorker struct {
	river.WorkerDefaults[FetchCardArgs]
	s *Store
}

func (w *fetchCardWorker) Work(ctx context.Context, job *river.Job[FetchCardArgs]) error {
	return w.s.FetchCard(ctx, job.Args.AnchorID, job.Args.URL)
}

// FetchCard fetches an item's card, if it is still due, and saves it or records why not.
func (s *Store) FetchCard(ctx context.Context, anchorID int64, url string) error {
	st, err := s.q.LinkCardState(ctx, anchorID)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && !st.Due) {
		return nil // fetched meanwhile (by a share form's preview), or the item is gone
	} else if err != nil {
		return fmt.Errorf("db: link card state: %w", err)
	}
	card, err := s.Fetcher.FetchCard(ctx, url)
	var busy *HostBusy
	if errors.As(err, &busy) {
		return river.JobSnooze(max(time.Until(busy.Until), time.Second))
	}
	if err != nil {
		return s.FailCard(ctx, anchorID, err)
	}
	return s.SaveCard(ctx, anchorID, card)
}

// FailCard records a failed fetch, tried again after a back-off (never, when permanent).
func (s *Store) FailCard(ctx context.Context, anchorID int64, cause error) error {
	reason, permanent := "error", false
	var ce *CardError
	if errors.As(cause, &ce) {
		reason, permanent = ce.Reason, ce.Permanent
	} else if errors.Is(cause, context.DeadlineExceeded) {
		reason = "timeout"
	}
	if err := s.q.FailLinkCard(ctx, dbq.FailLinkCardParams{AnchorID: anchorID, Reason: clipReason(reason), Permanent: permanent}); err != nil {
		return fmt.Errorf("db: record failed link card: %w", err)
	}
	return nil
}

func clipReason(s string) string {
	if len(s) > 200 {
		return s[:200]
	}
	return s
}

// SaveCard stores an item's fetched card and brings its shares and snapshot row up to date
// in one transaction: shares without a title of their own take the card's, shares without a
// preview image take its image, and every instance drops the card it kept and the open
// pages showing the item's posts bring their cards up to date (as after a like).
func (s *Store) SaveCard(ctx context.Context, anchorID int64, c tributary.LinkCard) error {
	c = c.Clean()
	err := s.inPipedTx(ctx, func(tx *pipedTx, q *dbq.Queries) error {
		if err := q.SaveLinkCard(ctx, saveCardParams(anchorID, c)); err != nil {
			return fmt.Errorf("save: %w", err)
		}
		if c.Title != "" {
			if err := q.AdoptCardTitle(ctx, dbq.AdoptCardTitleParams{AnchorID: anchorID, Title: c.Title}); err != nil {
				return fmt.Errorf("titles: %w", err)
			}
		}
		if c.Image != "" {
			if err := q.AdoptCardImage(ctx, dbq.AdoptCardImageParams{AnchorID: anchorID, Image: c.Image}); err != nil {
				return fmt.Errorf("images: %w", err)
			}
		}
		ids, err := q.AnchorPostIDs(ctx, anchorID)
		if err != nil {
			return fmt.Errorf("posts: %w", err)
		}
		if err := q.RecordCardChange(ctx, dbq.RecordCardChangeParams{AnchorID: anchorID, PostIds: ids}); err != nil {
			return fmt.Errorf("change: %w", err)
		}
		return s.redoAnchors(ctx, tx, q, []int64{anchorID}, time.Now())
	})
	if err != nil {
		return fmt.Errorf("db: save link card: %w", err)
	}
	if s.CardSaved != nil {
		s.CardSaved()
	}
	return nil
}

// CardsOf returns the fetched cards of some items, by item id.
func (s *Store) CardsOf(ctx context.Context, anchorIDs []int64) (map[int64]tributary.LinkCard, error) {
	out := map[int64]tributary.LinkCard{}
	if len(anchorIDs) == 0 {
		return out, nil
	}
	rows, err := s.q.LinkCardsOf(ctx, anchorIDs)
	if err != nil {
		return nil, fmt.Errorf("db: link cards: %w", err)
	}
	for _, r := range rows {
		out[r.LinkCard.AnchorID] = linkCardOf(r.LinkCard)
	}
	return out, nil
}

// linkCardOf is the card a link_cards row keeps; saveCardParams is its inverse.
func linkCardOf(r dbq.LinkCard) tributary.LinkCard {
	return tributary.LinkCard{Kind: r.Kind, Title: r.Title, Description: r.Description, Site: r.Site,
		Canonical: r.Canonical, Image: r.Image, ImageAlt: r.ImageAlt, Authors: r.Authors, Abstract: r.Abstract,
		Published: r.Published.Time, Lang: r.Lang}
}

// saveCardParams stores a (cleaned) card as an item's.
func saveCardParams(anchorID int64, c tributary.LinkCard) dbq.SaveLinkCardParams {
	var published pgtype.Date
	if !c.Published.IsZero() {
		published = pgtype.Date{Time: c.Published, Valid: true}
	}
	return dbq.SaveLinkCardParams{AnchorID: anchorID, Kind: c.Kind, Title: c.Title, Description: c.Description,
		Site: c.Site, Canonical: c.Canonical, Image: c.Image, ImageAlt: c.ImageAlt, Authors: nonNilStrings(c.Authors),
		Abstract: c.Abstract, Published: published, Lang: c.Lang}
}

// DispatchCards hands up to n due cards to fetch jobs, leasing them for lease (a card whose
// job vanished is handed again after it). It returns how many it handed.
func (s *Store) DispatchCards(ctx context.Context, n int, lease time.Duration) (int, error) {
	c, err := s.jobClient(nil)
	if err != nil {
		return 0, fmt.Errorf("db: jobs: %w", err)
	}
	handed := 0
	err = s.runTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx, q *dbq.Queries) error {
		rows, err := q.DueLinkCards(ctx, dbq.DueLinkCardsParams{MaxRows: int32(n), LeaseSecs: lease.Seconds()})
		if err != nil || len(rows) == 0 {
			return err
		}
		params := make([]river.InsertManyParams, len(rows))
		for i, r := range rows {
			params[i] = river.InsertManyParams{Args: FetchCardArgs{AnchorID: r.AnchorID, URL: r.Url}}
		}
		if _, err := c.InsertManyTx(ctx, tx, params); err != nil {
			return err
		}
		handed = len(rows)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("db: dispatch link cards: %w", err)
	}
	return handed, nil
}

// HostSlot waits for host's turn: requests to one host start at least every apart, across
// every instance. When its turn is more than most away, it takes none and says when to come
// back (HostBusy).
func (s *Store) HostSlot(ctx context.Context, host string, every, most time.Duration) error {
	wait, err := s.takeHostSlot(ctx, host, every, most, false)
	if err != nil || wait <= 0 {
		return err
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// HostTurnNow is a person's request to host (a share form's preview): it goes at once, and
// the host's next turn moves to every after it, or after the turn already taken, so the
// background fetches keep their spacing around it.
func (s *Store) HostTurnNow(ctx context.Context, host string, every time.Duration) error {
	_, err := s.takeHostSlot(ctx, host, every, 0, true)
	return err
}

// takeHostSlot takes host's next turn, at most most away (now: at once, whenever it is), and
// returns how long until it.
func (s *Store) takeHostSlot(ctx context.Context, host string, every, most time.Duration, now bool) (time.Duration, error) {
	var wait time.Duration
	err := s.runTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx, q *dbq.Queries) error {
		r, err := q.ReserveHostSlot(ctx, host)
		if err != nil {
			return err
		}
		wait = r.Slot.Sub(r.Now)
		if now {
			wait = 0
		} else if wait > most {
			return &HostBusy{Until: time.Now().Add(wait)}
		}
		return q.TakeHostSlot(ctx, dbq.TakeHostSlotParams{Host: host, Slot: r.Slot, IntervalSecs: every.Seconds()})
	})
	if err != nil {
		var busy *HostBusy
		if errors.As(err, &busy) {
			return 0, busy
		}
		return 0, fmt.Errorf("db: host slot: %w", err)
	}
	return wait, nil
}

// previewKey marks a fetch a person waits for (WithPreview).
type previewKey struct{}

// WithPreview marks ctx's fetches as a share form's preview: a person waits for them, so they
// take their host's turn at once where the host asks for no more than the default spacing
// (HostTurnNow), ahead of the background jobs.
func WithPreview(ctx context.Context) context.Context {
	return context.WithValue(ctx, previewKey{}, true)
}

// Previewing reports whether ctx's fetches are a preview's (WithPreview).
func Previewing(ctx context.Context) bool { return ctx.Value(previewKey{}) != nil }

// CardOf returns the card of the item at an (anchor) URL, when one was fetched in the last 14
// days and the viewer may read one of the item's shares (or it has none yet).
func (s *Store) CardOf(ctx context.Context, v tributary.Viewer, url string) (tributary.LinkCard, bool, error) {
	r, err := s.q.LinkCardByURL(ctx, dbq.LinkCardByURLParams{Url: url, ViewerID: v.ID,
		Blocked: nonNilIDs(v.Blocked), PrivateFeeds: nonNilIDs(v.PrivateFeeds)})
	if errors.Is(err, pgx.ErrNoRows) {
		return tributary.LinkCard{}, false, nil
	} else if err != nil {
		return tributary.LinkCard{}, false, fmt.Errorf("db: link card: %w", err)
	}
	return linkCardOf(r.LinkCard), true, nil
}

// SavePreviewCard keeps a card fetched for a share form's preview as its item's, making the
// item if it is new, so that the share's job finds it fetched.
func (s *Store) SavePreviewCard(ctx context.Context, url string, kind tributary.Kind, c tributary.LinkCard) error {
	err := s.runTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx, q *dbq.Queries) error {
		anchorID, err := q.AnchorOfURL(ctx, dbq.AnchorOfURLParams{Url: url, AnchorKind: string(kind)})
		if err != nil {
			return err
		}
		return q.SaveLinkCard(ctx, saveCardParams(anchorID, c.Clean()))
	})
	if err != nil {
		return fmt.Errorf("db: save previewed link card: %w", err)
	}
	return nil
}
