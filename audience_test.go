package tributary

import (
	"reflect"
	"testing"
)

// TestAudienceOf: a card names the groups its reader may know of and a direct's recipients
// when its reader is among them, with a lock when it is not public; a public share outside
// groups says nothing.
func TestAudienceOf(t *testing.T) {
	open := AudienceFeed{ID: 3, Kind: "group", Access: "public", Name: "open", Title: "Open"}
	closed := AudienceFeed{ID: 5, Kind: "group", Access: "private", Name: "tour", Title: "Tour Readers"}
	direct := AudienceFeed{ID: 9, Kind: "directs", Access: "private", To: []string{"reader", "bob"}}
	for _, c := range []struct {
		name   string
		feeds  []AudienceFeed
		public bool
		v      Viewer
		want   *Audience
	}{
		{"a public share", nil, true, Viewer{ID: 1}, nil},
		{"a public group", []AudienceFeed{open}, true, Viewer{ID: 1}, &Audience{Groups: []GroupRef{{"open", "Open"}}}},
		{"a protected share", nil, false, Viewer{ID: 1}, &Audience{Restricted: true}},
		{"a private group its reader reads", []AudienceFeed{closed}, false, Viewer{ID: 1, PrivateFeeds: []int64{5}},
			&Audience{Groups: []GroupRef{{"tour", "Tour Readers"}}, Restricted: true}},
		{"a private group its reader does not read", []AudienceFeed{closed, open}, true, Viewer{ID: 1},
			&Audience{Groups: []GroupRef{{"open", "Open"}}}},
		{"a direct to its reader", []AudienceFeed{direct}, false, Viewer{ID: 1, PrivateFeeds: []int64{2, 9}},
			&Audience{To: []string{"bob", "reader"}, Restricted: true}},
		{"a direct read otherwise", []AudienceFeed{direct}, false, Viewer{ID: 1}, &Audience{Restricted: true}},
	} {
		if got := AudienceOf(c.feeds, c.public, c.v); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
