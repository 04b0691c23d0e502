package feed

import (
	"context"

	"tributary"
)

// Popular is the front page of feed q (its first page, as anonymous visitors get it: from
// the cache most of the time) as a newcomer's home feed shows it below its own page shown,
// for the viewer with access (tributary.PopularFor), each card's conversation as they may
// read it (their likes included: the cards take likes and comments like any other).
func (s *Service) Popular(ctx context.Context, access tributary.Viewer, q tributary.FeedQuery, shown []tributary.Item) ([]tributary.Item, error) {
	q.Cursor, q.List = "", 0
	front, err := s.Timeline(ctx, nil, q)
	if err != nil {
		return nil, err
	}
	items := tributary.PopularFor(access, front.Items, shown)
	return items, s.itemTalk(ctx, access, items, nil)
}
