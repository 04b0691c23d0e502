package db

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"tributary"
	"tributary/db/internal/dbq"
)

// tagSharersSince is how far back a sharer of the viewer's tags counts as active.
const tagSharersSince = 30 * 24 * time.Hour

// Suggestions lists up to limit people the viewer might follow, best first: those most
// followed by the people they follow, then active sharers of the tags they picked, then
// trusted members. It never lists the viewer, anyone they follow or asked to follow, anyone
// in a ban with them either way, or a private account.
func (s *Store) Suggestions(ctx context.Context, viewerID int64, limit int, now time.Time) ([]tributary.Person, error) {
	rows, err := s.reads(ctx).SuggestPeople(ctx, dbq.SuggestPeopleParams{ViewerID: viewerID,
		Since: now.Add(-tagSharersSince), Lim: int32(limit)})
	if err != nil {
		return nil, fmt.Errorf("db: suggest people: %w", err)
	}
	out := make([]tributary.Person, len(rows))
	for i, r := range rows {
		out[i] = tributary.Person{ID: r.ID, Handle: r.Handle, DisplayName: r.DisplayName, VIP: r.Vip,
			FollowedBy: int(r.ByFollows), TagPosts: int(r.ByTags)}
	}
	return out, nil
}

// SearchPeople finds up to limit people by handle or display name (tributary.PeoplePattern),
// with how the viewer follows each; never anyone in a ban with the viewer either way.
// Returns EInvalid for text too long.
func (s *Store) SearchPeople(ctx context.Context, viewerID int64, text string, limit int) ([]tributary.Person, error) {
	exact, pattern, err := tributary.PeoplePattern(text)
	if err != nil || exact == "" {
		return nil, err
	}
	rows, err := s.reads(ctx).SearchPeople(ctx, dbq.SearchPeopleParams{ViewerID: viewerID,
		Exact: exact, Pattern: pattern, Lim: int32(limit)})
	if err != nil {
		return nil, fmt.Errorf("db: search people: %w", err)
	}
	out := make([]tributary.Person, len(rows))
	for i, r := range rows {
		out[i] = tributary.Person{ID: r.ID, Handle: r.Handle, DisplayName: r.DisplayName, VIP: r.Vip,
			FollowState: r.FollowState}
	}
	return out, nil
}

// popularTagsSince is the window the first-run page's popular tags are counted in.
const popularTagsSince = 30 * 24 * time.Hour

// TagChoice is a tag offered on the first-run page: how often it was used lately, and
// whether the user picked it.
type TagChoice struct {
	Tag    string
	Uses   int
	Picked bool
}

// TagChoices lists up to limit of the tags most used in public posts lately, with the
// user's picks among them, and the user's other picks after them.
func (s *Store) TagChoices(ctx context.Context, userID int64, limit int, now time.Time) ([]TagChoice, error) {
	var out []TagChoice
	err := s.runTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(_ pgx.Tx, q *dbq.Queries) error {
		popular, err := q.PopularTags(ctx, dbq.PopularTagsParams{Since: now.Add(-popularTagsSince), Lim: int32(limit)})
		if err != nil {
			return fmt.Errorf("db: popular tags: %w", err)
		}
		picked, err := q.UserTags(ctx, userID)
		if err != nil {
			return fmt.Errorf("db: user tags: %w", err)
		}
		mine := make(map[string]bool, len(picked))
		for _, t := range picked {
			mine[t] = true
		}
		for _, p := range popular {
			out = append(out, TagChoice{Tag: p.Tag, Uses: int(p.N), Picked: mine[p.Tag]})
			delete(mine, p.Tag)
		}
		for _, t := range picked {
			if mine[t] {
				out = append(out, TagChoice{Tag: t, Picked: true})
			}
		}
		return nil
	})
	return out, err
}

// SetTags replaces the tags a user picked (normalized; EInvalid for a bad one or more than
// tributary.MaxTags).
func (s *Store) SetTags(ctx context.Context, userID int64, picked []string) error {
	tags := []string{}
	for _, t := range picked {
		n, err := tributary.NormalizeTags([]string{t})
		if err != nil {
			return err
		}
		if len(n) == 1 && !slices.Contains(tags, n[0]) {
			tags = append(tags, n[0])
		}
	}
	if len(tags) > tributary.MaxTags {
		return tributary.FieldErrorf("tags", "Pick at most %d tags.", tributary.MaxTags)
	}
	return s.runTx(ctx, pgx.TxOptions{}, func(_ pgx.Tx, q *dbq.Queries) error {
		if err := q.ClearUserTags(ctx, userID); err != nil {
			return fmt.Errorf("db: clear user tags: %w", err)
		}
		if err := q.AddUserTags(ctx, dbq.AddUserTagsParams{UserID: userID, Tags: tags}); err != nil {
			return fmt.Errorf("db: add user tags: %w", err)
		}
		return nil
	})
}

// People is what the people page shows a viewer: suggestions, and a search's results.
type People struct {
	Suggestions []tributary.Person
	Results     []tributary.Person
}

// People reads the people page: up to limit suggestions (Suggestions) and, when text is not
// blank, up to limit people matching it (SearchPeople). Returns EInvalid for text too long.
func (s *Store) People(ctx context.Context, viewerID int64, text string, limit int, now time.Time) (People, error) {
	var p People
	var err error
	if p.Results, err = s.SearchPeople(ctx, viewerID, text, limit); err != nil {
		return p, err
	}
	p.Suggestions, err = s.Suggestions(ctx, viewerID, limit, now)
	return p, err
}
