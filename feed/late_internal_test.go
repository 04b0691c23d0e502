package feed

import (
	"slices"
	"testing"

	"tributary"
)

// The late arrivals among ranked items take the places of the lowest ranked others in the
// head (the tail lists those, not the late ones), each in their ranked order.
func TestLateInHead(t *testing.T) {
	for _, tc := range []struct {
		name  string
		items []int64
		late  []int64
		limit int
		want  []int64
	}{
		{"none late", []int64{1, 2, 3, 4}, nil, 2, []int64{1, 2, 3, 4}},
		{"all fit", []int64{1, 2, 3}, []int64{3}, 3, []int64{1, 2, 3}},
		{"late in the head", []int64{1, 2, 3, 4}, []int64{1}, 2, []int64{1, 2, 3, 4}},
		{"one below", []int64{1, 2, 3, 4}, []int64{4}, 2, []int64{1, 4, 2, 3}},
		{"two below", []int64{1, 2, 3, 4, 5}, []int64{4, 5}, 3, []int64{1, 4, 5, 2, 3}},
		{"one in, one below", []int64{1, 2, 3, 4}, []int64{2, 4}, 2, []int64{2, 4, 1, 3}},
		{"more late than the head", []int64{1, 2, 3, 4}, []int64{3, 4}, 1, []int64{3, 1, 2, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items := make([]tributary.Item, len(tc.items))
			for i, id := range tc.items {
				items[i].ID = id
			}
			late := map[int64]bool{}
			for _, id := range tc.late {
				late[id] = true
			}
			var got []int64
			for _, it := range lateInHead(items, late, tc.limit) {
				got = append(got, it.ID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("lateInHead = %v, want %v", got, tc.want)
			}
		})
	}
}
