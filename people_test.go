package tributary

import (
	"slices"
	"testing"
)

func TestPersonReason(t *testing.T) {
	for _, c := range []struct {
		p    Person
		want string
	}{
		{Person{FollowedBy: 1, TagPosts: 3, VIP: true}, "Followed by 1 person you follow"},
		{Person{FollowedBy: 4}, "Followed by 4 people you follow"},
		{Person{TagPosts: 1, VIP: true}, "Shared 1 post on your tags lately"},
		{Person{TagPosts: 2}, "Shared 2 posts on your tags lately"},
		{Person{VIP: true}, "A trusted member"},
		{Person{}, ""},
	} {
		if got := c.p.Reason(); got != c.want {
			t.Errorf("%+v: reason %q, want %q", c.p, got, c.want)
		}
	}
}

func TestPeoplePattern(t *testing.T) {
	for _, c := range []struct{ text, exact, pattern string }{
		{"  @Al ", "al", ""},
		{"@Ada", "ada", "%ada%"},
		{"lovelace", "lovelace", "%lovelace%"},
		{"a_b%c", "a_b%c", `%a\_b\%c%`},
		{`x\yz`, `x\yz`, `%x\\yz%`},
		{"", "", ""},
	} {
		exact, pattern, err := PeoplePattern(c.text)
		if err != nil || exact != c.exact || pattern != c.pattern {
			t.Errorf("PeoplePattern(%q) = %q, %q, %v; want %q, %q", c.text, exact, pattern, err, c.exact, c.pattern)
		}
	}
	if _, _, err := PeoplePattern(string(make([]byte, PeopleSearchMax+1))); ErrorCode(err) != EInvalid {
		t.Errorf("a long search: %v, want invalid", err)
	}
}

// The front page's items in a newcomer's feed: not those shown already, hidden, muted or
// shared by someone in a ban with the viewer either way; marked, without talk, nobody said
// to be followed; the front page's own items left as they were.
func TestPopularFor(t *testing.T) {
	sharer := func(id int64) Sharer { return Sharer{UserRef: UserRef{ID: id}, Followed: true} }
	front := []Item{
		{ID: 1, Title: "shown", Sharers: []Sharer{sharer(10)}, SharerIDs: []int64{10}},
		{ID: 2, Title: "hidden", Sharers: []Sharer{sharer(10)}, SharerIDs: []int64{10}},
		{ID: 3, Title: "about crypto", Sharers: []Sharer{sharer(10)}, SharerIDs: []int64{10}},
		{ID: 4, Title: "banned sharer", Sharers: []Sharer{sharer(10), sharer(66)}, SharerIDs: []int64{10, 66}},
		{ID: 5, Title: "kept", Sharers: []Sharer{sharer(10)}, SharerIDs: []int64{10}, Talk: Talk{Likes: 3}},
	}
	v := Viewer{ID: 7, Blocked: []int64{66}, Hidden: []int64{2}, Mutes: []Mute{{Word: "crypto"}}}
	got := PopularFor(v, front, []Item{{ID: 1}})
	if len(got) != 1 || got[0].ID != 5 {
		t.Fatalf("popular = %+v, want item 5 alone", got)
	}
	if !got[0].Popular || got[0].Talk.Likes != 0 || got[0].Sharers[0].Followed {
		t.Errorf("item 5 as shown: %+v", got[0])
	}
	if !front[4].Sharers[0].Followed || front[4].Talk.Likes != 3 || !slices.Equal(front[4].SharerIDs, []int64{10}) {
		t.Errorf("the front page's item changed: %+v", front[4])
	}
}
