package feed

import (
	"testing"
	"time"

	"tributary"
	"tributary/db"
)

// The kept cards go with a change naming their item, with a change naming none, and with a
// reset of the event path (which names no change: anything may have been missed).
func TestLinkCardsHeardDrops(t *testing.T) {
	now := time.Now()
	card := &tributary.LinkCard{Title: "kept"}
	cases := []struct {
		name    string
		changes []db.SiteChange
		reset   bool
		dropped []int64
		kept    []int64
	}{
		{"a card change", []db.SiteChange{{Kind: "cards", IDs: []int64{1}}}, false, []int64{1}, []int64{2}},
		{"another kind", []db.SiteChange{{Kind: "talk", IDs: []int64{1}}}, false, nil, []int64{1, 2}},
		{"a card change naming none", []db.SiteChange{{Kind: "cards"}}, false, []int64{1, 2}, nil},
		{"a reset", nil, true, []int64{1, 2}, nil},
		{"a reset with changes", []db.SiteChange{{Kind: "talk", IDs: []int64{1}}}, true, []int64{1, 2}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newLinkCards(func() time.Time { return now })
			c.kept.Put(1, card)
			c.kept.Put(2, nil) // an item known to have no card
			gen := c.gen
			c.heard(tc.changes, tc.reset)
			for _, id := range tc.dropped {
				if _, ok := c.kept.Get(id); ok {
					t.Errorf("item %d still kept", id)
				}
			}
			for _, id := range tc.kept {
				if _, ok := c.kept.Get(id); !ok {
					t.Errorf("item %d dropped", id)
				}
			}
			if len(tc.dropped) > 0 && c.gen == gen {
				t.Error("the generation did not move: a read begun before would keep what it read")
			}
		})
	}
}
