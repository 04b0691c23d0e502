package tributary

import "slices"

// Access levels of a base feed (seed 003).
const (
	AccessPublic    = "public"    // anyone, also anonymous visitors
	AccessProtected = "protected" // logged-in users, except those in a ban with the owner
	AccessPrivate   = "private"   // the feed's explicit readers
)

// ValidAccess reports whether s names an access level.
func ValidAccess(s string) bool {
	return s == AccessPublic || s == AccessProtected || s == AccessPrivate
}

// PostAccess summarizes the feeds holding a post, denormalized onto the post (and folded
// over an anchor's posts in the snapshot) so that readers filter with array operators instead
// of joins: a post is readable by V iff at least one of its feeds is (seed 003).
type PostAccess struct {
	Public          bool    // some feed holding it is public
	ProtectedOwners []int64 // owners of the protected feeds holding it (sorted)
	PrivateFeeds    []int64 // the private feeds holding it (sorted)
}

// Viewer is what the access rules need to know about who is reading: nothing for
// anonymous visitors (ID 0). It also carries the viewer's own choices of what leaves their
// feeds (hidden items, muted words), read in the same round trip.
type Viewer struct {
	ID           int64
	Blocked      []int64  // users in a ban with the viewer, either way (sorted)
	PrivateFeeds []int64  // private feeds the viewer reads (sorted)
	Groups       []int64  // groups the viewer is an active member of (sorted): their home feed's
	GroupNames   []string // the names of Groups, in their order
	Hidden       []int64  // items the viewer hid (sorted anchor ids)
	Mutes        []Mute   // words the viewer muted
}

// InGroup reports whether the viewer is a member of one of the groups (sorted ids): a post
// in a group reaches its members' home feeds (seed 003).
func (v Viewer) InGroup(groups []int64) bool {
	for _, g := range groups {
		if _, ok := slices.BinarySearch(v.Groups, g); ok {
			return true
		}
	}
	return false
}

// GroupOf names the first of the groups (sorted ids) the viewer is a member of: why an item
// in it is in their home feed. "" when none.
func (v Viewer) GroupOf(groups []int64) string {
	for _, g := range groups {
		if i, ok := slices.BinarySearch(v.Groups, g); ok && i < len(v.GroupNames) {
			return v.GroupNames[i]
		}
	}
	return ""
}

// Anonymous is the viewer with no account.
var Anonymous = Viewer{}

// CanRead applies seed 003's rule to one post: public, or protected by an owner not in a
// ban with a logged-in viewer, or private with the viewer among the readers.
func (v Viewer) CanRead(a PostAccess) bool {
	if a.Public {
		return true
	}
	if v.ID == 0 {
		return false
	}
	for _, owner := range a.ProtectedOwners {
		if _, banned := slices.BinarySearch(v.Blocked, owner); !banned {
			return true
		}
	}
	for _, f := range a.PrivateFeeds {
		if _, ok := slices.BinarySearch(v.PrivateFeeds, f); ok {
			return true
		}
	}
	return false
}
