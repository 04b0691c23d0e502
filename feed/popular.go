package feed

import (
	"context"

	"tributary"
)

// Popular is the front page of feed q (its first page, as anonymous visitors get it: from
// the cache most of the time) as a newcomer's home feed shows it below its own page shown,
// for the viewer with access (tributary.PopularFor).
func (s *Service) Popular(ctx context.Context, access tributary.Viewer, q tributary.FeedQuery, shown []tributary.Item) ([]tributary.Item, error) {
	q.Cursor, q.List = "", 0
	front, err := s.Timeline(ctx, nil, q)
	if err != nil {
		return nil, err
	}
	return tributary.PopularFor(access, front.Items, shown), nil
}
