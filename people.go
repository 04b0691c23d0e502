package tributary

import (
	"slices"
	"strconv"
	"strings"
)

// Newcomer bounds a "newcomer": someone following fewer people than this gets suggestions of
// whom to follow above their home feed, and the front page's items fill it.
const Newcomer = 5

// Person is someone offered on the people page: a suggestion or a search result.
type Person struct {
	ID          int64
	Handle      string
	DisplayName string
	VIP         bool
	FollowState string // how the viewer follows them: "", "active" or "pending"
	FollowedBy  int    // people the viewer follows who follow them
	TagPosts    int    // their recent public posts on the tags the viewer picked
}

// Reason says why a person is suggested, strongest reason first.
func (p Person) Reason() string {
	switch {
	case p.FollowedBy == 1:
		return "Followed by 1 person you follow"
	case p.FollowedBy > 1:
		return "Followed by " + strconv.Itoa(p.FollowedBy) + " people you follow"
	case p.TagPosts == 1:
		return "Shared 1 post on your tags lately"
	case p.TagPosts > 1:
		return "Shared " + strconv.Itoa(p.TagPosts) + " posts on your tags lately"
	case p.VIP:
		return "A trusted member"
	}
	return ""
}

// PeopleSearchMin is the shortest text searched for inside handles and names (the trigram
// indexes serve three characters and more); shorter text finds an exact handle only.
const PeopleSearchMin = 3

// PeopleSearchMax bounds the text of a people search.
const PeopleSearchMax = 64

// PeoplePattern turns a people search's text into the lower-cased handle it may be exactly
// (without a leading '@') and a LIKE pattern for handles and names containing it ("" when
// the text is too short to search inside them). It fails on text past PeopleSearchMax.
func PeoplePattern(text string) (exact, pattern string, err error) {
	exact = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(text), "@"))
	if len(exact) > PeopleSearchMax {
		return "", "", FieldErrorf("q", "Search for at most %d characters.", PeopleSearchMax)
	}
	if len([]rune(exact)) < PeopleSearchMin {
		return exact, "", nil
	}
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(exact)
	return exact, "%" + esc + "%", nil
}

// PopularFor is the front page's items as a newcomer's home feed shows them below its own
// (shown): leaving out what the page shows already, what the viewer hid or muted, and items
// any sharer of which is in a ban with the viewer; marked Popular, and without their talk,
// which was counted for anonymous readers rather than for this one; none of their sharers
// is said to be followed.
func PopularFor(v Viewer, front, shown []Item) []Item {
	out := []Item{}
	for _, it := range front {
		if slices.ContainsFunc(shown, func(s Item) bool { return s.ID == it.ID }) || v.HidesItem(it.ID) || v.inBan(it) {
			continue
		}
		if _, muted := v.Muted(append([]string{it.Title, it.Excerpt}, it.Tags...)...); muted {
			continue
		}
		it.Popular, it.Talk, it.Activity = true, Talk{}, nil
		// Followed was said of the front page's followed set, the trusted members.
		it.Sharers = slices.Clone(it.Sharers)
		for i := range it.Sharers {
			it.Sharers[i].Followed = false
		}
		out = append(out, it)
	}
	return out
}

// inBan reports whether a sharer of the item is in a ban with the viewer, either way.
func (v Viewer) inBan(it Item) bool {
	blocked := func(id int64) bool { _, ok := slices.BinarySearch(v.Blocked, id); return ok }
	return slices.ContainsFunc(it.SharerIDs, blocked) || slices.ContainsFunc(it.Sharers, func(s Sharer) bool { return blocked(s.ID) })
}
