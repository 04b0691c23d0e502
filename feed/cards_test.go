package feed

import (
	"slices"
	"testing"
	"time"

	"tributary"
	"tributary/db"
)

// TestReaderLikersAsAnchorTalk: a reader's likers are named among the newest likes not their
// own, each once, the newest first; kept likes too few to tell are not used.
func TestReaderLikersAsAnchorTalk(t *testing.T) {
	refs := func(ids ...int64) []tributary.UserRef {
		out := []tributary.UserRef{}
		for _, id := range ids {
			out = append(out, tributary.UserRef{ID: id})
		}
		return out
	}
	ids := func(us []tributary.UserRef) []int64 {
		var out []int64
		for _, u := range us {
			out = append(out, u.ID)
		}
		return out
	}
	full := refs(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16) // likersKept of them
	for _, c := range []struct {
		name   string
		newest []tributary.UserRef
		viewer int64
		want   []int64
		ok     bool
	}{
		{"none", refs(), 7, nil, true},
		{"the reader's own are left out", refs(7, 3, 7, 4), 7, []int64{3, 4}, true},
		{"each liker once, by their newest like", refs(5, 5, 6, 5, 8, 9), 0, []int64{5, 6, 8}, true},
		{"only among the 12 newest not the reader's", append(refs(5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5), refs(6, 7, 8, 9)...), 1, []int64{5}, true},
		{"the reader's own among a full list leave too few", refs(3, 3, 3, 3, 3, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12), 3, nil, false},
		{"the reader's own past the 12th change nothing", full, 14, []int64{1, 2, 3}, true},
	} {
		got, ok := readerLikers(c.newest, c.viewer)
		if ok != c.ok || (ok && !slices.Equal(ids(got), c.want)) || (ok && got == nil) {
			t.Errorf("%s: %v, %v; want %v, %v", c.name, ids(got), ok, c.want, c.ok)
		}
	}
}

// TestCardsKeepNoTalkDroppedDuringItsRead: talk read before a change that drops it is not
// kept; talk of other items is, unless the drops since the read are no longer remembered or
// one dropped everything.
func TestCardsKeepNoTalkDroppedDuringItsRead(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	c := newCards(func() time.Time { return now })
	talk := map[int64]db.PublicTalk{1: {Likes: 1}, 2: {Likes: 2}}
	kept := func() []int64 {
		var out []int64
		for _, id := range []int64{1, 2} {
			if _, ok := c.talk.Get(id); ok {
				out = append(out, id)
			}
		}
		return out
	}

	gen := c.reading()
	c.heard([]db.SiteChange{{Kind: "talk", IDs: []int64{10}, Anchors: []int64{1}}}, false)
	c.heard([]db.SiteChange{{Kind: "bans", IDs: []int64{3}}}, false) // drops no talk
	c.keep(gen, talk)
	if got := kept(); !slices.Equal(got, []int64{2}) {
		t.Fatalf("kept %v after item 1 was dropped during the read, want [2]", got)
	}
	c.heard([]db.SiteChange{{Kind: "new_posts", IDs: []int64{11}, Anchors: []int64{2}}}, false)
	if got := kept(); len(got) != 0 {
		t.Fatalf("kept %v after item 2's new share, want none", got)
	}

	gen = c.reading()
	for i := range dropsKept + 1 {
		c.heard([]db.SiteChange{{Kind: "talk", IDs: []int64{int64(100 + i)}, Anchors: []int64{int64(100 + i)}}}, false)
	}
	c.keep(gen, talk)
	if got := kept(); len(got) != 0 {
		t.Fatalf("kept %v with the drops since the read forgotten, want none", got)
	}

	for _, all := range []db.SiteChange{{Kind: "users", IDs: []int64{5}}, {Kind: "talk"}, {Kind: "posts", IDs: []int64{9}}} {
		c.keep(c.reading(), talk)
		gen = c.reading()
		c.heard([]db.SiteChange{all}, false)
		if got := kept(); len(got) != 0 {
			t.Fatalf("%+v: kept %v, want it all dropped", all, got)
		}
		c.keep(gen, talk)
		if got := kept(); len(got) != 0 {
			t.Fatalf("%+v: kept %v read before it, want none", all, got)
		}
	}
	c.keep(c.reading(), talk)
	c.heard(nil, true)
	if got := kept(); len(got) != 0 {
		t.Fatalf("kept %v after a reset, want none", got)
	}
}
