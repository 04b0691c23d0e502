package db

import (
	"slices"
	"testing"
	"time"
	"unsafe"

	"tributary"
)

// A packed row gives back what it was made of, and rows with the same tags and access share
// one extra.
func TestRankRowPacks(t *testing.T) {
	if n := unsafe.Sizeof(RankRow{}); n > 88 {
		t.Errorf("a RankRow takes %d bytes, want at most 88: a million are held", n)
	}
	at := time.Date(2026, 11, 25, 6, 30, 1, 123456000, time.UTC)
	m := SnapshotMatch{AnchorID: 7, Score: 1.5, SharerIDs: []int64{3, 4}, Date: at, URL: "https://arxiv.org/abs/1", PrimaryUserID: 3}
	shared := rankRows{}
	cases := []struct {
		kind   tributary.Kind
		tags   []string
		access tributary.PostAccess
		extra  bool
	}{
		{tributary.KindArxiv, nil, tributary.PostAccess{Public: true}, false},
		{tributary.KindWeb, []string{"go", "pg"}, tributary.PostAccess{Public: true}, true},
		{"gopher", nil, tributary.PostAccess{Public: true}, true},
		{tributary.KindTweet, nil, tributary.PostAccess{ProtectedOwners: []int64{3}, PrivateFeeds: []int64{9, 12}}, true},
		{"", nil, tributary.PostAccess{}, false},
	}
	for _, c := range cases {
		r := shared.of(m, c.kind, c.tags, c.access)
		if (r.extra != nil) != c.extra {
			t.Errorf("%v %v %+v: extra %v, want %v", c.kind, c.tags, c.access, r.extra != nil, c.extra)
		}
		a := r.Access()
		if r.Kind() != c.kind || !slices.Equal(r.Tags(), c.tags) || a.Public != c.access.Public ||
			!slices.Equal(a.ProtectedOwners, c.access.ProtectedOwners) || !slices.Equal(a.PrivateFeeds, c.access.PrivateFeeds) {
			t.Errorf("%v %v %+v: unpacked as %v %v %+v", c.kind, c.tags, c.access, r.Kind(), r.Tags(), a)
		}
		if got := r.Match(2); got.FollowedSharers != 2 || !got.Date.Equal(at) || got.AnchorID != 7 || got.Score != 1.5 || got.URL != m.URL || !slices.Equal(got.SharerIDs, m.SharerIDs) {
			t.Errorf("match %+v, want %+v", got, m)
		}
		again := shared.of(m, c.kind, slices.Clone(c.tags), c.access)
		if again.extra != r.extra {
			t.Errorf("%v %v %+v: the same extra is held twice", c.kind, c.tags, c.access)
		}
	}
	if a, b := shared.of(m, "", []string{"a\x00b"}, tributary.PostAccess{}), shared.of(m, "", []string{"a", "b"}, tributary.PostAccess{}); a.extra == b.extra {
		t.Error("different tags share an extra")
	}
}
