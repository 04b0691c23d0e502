package feed

import (
	"context"

	"tributary"
)

// BestOf is what was most shared and discussed in the last week, for everyone, from the
// snapshot (db.Store.BestOf): each item as the viewer may read it (anonymous visitors:
// public shares only), with its talk, less what the viewer hid or muted.
func (s *Service) BestOf(ctx context.Context, access tributary.Viewer) ([]tributary.Item, error) {
	now := s.now()
	ids, err := s.store.BestOf(ctx)
	if err != nil {
		return nil, err
	}
	m, err := s.store.Items(ctx, ids, access, now, nil)
	if err != nil {
		return nil, err
	}
	items := make([]tributary.Item, 0, len(m))
	for _, id := range ids {
		c, ok := m[id]
		if !ok || access.HidesItem(id) {
			continue
		}
		it := s.explain(c, nil, viewerState{}, now)
		if w, muted := access.Muted(append([]string{it.Title, it.Excerpt}, it.Tags...)...); muted {
			if !w.Collapse {
				continue
			}
			it.Muted = w.Word
		}
		items = append(items, it)
	}
	return items, s.itemTalk(ctx, access, items, nil)
}
