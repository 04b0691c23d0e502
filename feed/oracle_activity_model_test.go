package feed_test

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The activity oracle's model: the followees' likes and comments feeds' places, and the
// items that should arrive by them in an interval (oracle_activity_test.go drives it).

// actKey is one entry of a likes ('l:<user>') or comments ('c:<user>') filter feed.
type actKey struct {
	commented bool
	user      int64
	post      int64
}

// activityModel is a model with what activity is read from.
type activityModel struct {
	*model
	// entries are the likes and comments feeds' entries at their places: a like at its time,
	// a comment at the latest of its author's on the post; a place never moves down.
	entries map[actKey]time.Time
	hidden  map[int64]map[int64]bool // viewer -> items they hid
	seen    map[int64]map[int64]bool // viewer -> items they have seen
	off     map[int64]bool           // viewers with home_activity off
}

// dueEntry is what post_filters computes for an entry now; ok false when it is not due.
func (am *activityModel) dueEntry(k actKey) (time.Time, bool) {
	if !k.commented {
		at, ok := am.likes[[2]int64{k.post, k.user}]
		return at, ok
	}
	var at time.Time
	ok := false
	for _, c := range am.comments {
		if c.post == k.post && c.author == k.user && (!ok || c.at.After(at)) {
			at, ok = c.at, true
		}
	}
	return at, ok
}

// raise moves an entry up to at, or adds it there.
func (am *activityModel) raise(k actKey, at time.Time) {
	if cur, ok := am.entries[k]; !ok || at.After(cur) {
		am.entries[k] = at
	}
}

// refilter brings a post's entries in line after a comment on it was edited or deleted
// (refilter_posts): those no longer due go, the rest keep their place or move up.
func (am *activityModel) refilter(post int64) {
	for k := range am.entries {
		if k.post != post {
			continue
		}
		if at, ok := am.dueEntry(k); !ok {
			delete(am.entries, k)
		} else {
			am.raise(k, at)
		}
	}
	for k := range am.likes {
		if k[0] == post {
			am.raise(actKey{false, k[1], post}, am.likes[k])
		}
	}
	for _, c := range am.comments {
		if c.post == post {
			k := actKey{true, c.author, post}
			at, _ := am.dueEntry(k)
			am.raise(k, at)
		}
	}
}

func (am *activityModel) followee(viewer, user int64) bool {
	return viewer != user && am.follows[[2]int64{viewer, user}] == "active"
}

// wantArrival is an item the model says arrived in an interval.
type wantArrival struct {
	anchor int64
	shared bool // by a share (a followee's, or in the viewer's group); by activity otherwise
	at     time.Time
	by     actKey // the activity (when !shared)
	// card: the activity the item's card shows (nil: none, someone followed shared it).
	card *actKey
}

func (w wantArrival) String() string {
	if w.shared {
		return fmt.Sprintf("%d shared", w.anchor)
	}
	how := "liked"
	if w.by.commented {
		how = "commented"
	}
	card := ""
	if w.card == nil {
		card = ", shared by someone followed"
	}
	return fmt.Sprintf("%d %s by %d (post %d)%s", w.anchor, how, w.by.user, w.by.post, card)
}

// arrivals is what arrived for viewer in (from, to], hidden and seen items included, with
// activity counting when withActivity (home_activity on, after the first fencepost) and the
// interval is no longer than a day.
func (am *activityModel) arrivals(viewer int64, from, to time.Time, withActivity bool) map[int64]wantArrival {
	in := func(at time.Time) bool { return at.After(from) && !at.After(to) }
	fl := am.followed(viewer)
	out := map[int64]wantArrival{}
	for _, p := range am.posts {
		if ((fl[p.author] && p.toFollowers()) || am.inMemberGroup(viewer, p)) && in(p.at) && am.readable(viewer, p) {
			out[p.anchor] = wantArrival{anchor: p.anchor, shared: true}
		}
	}
	if !withActivity || to.Sub(from) > 24*time.Hour {
		return out
	}
	for k, at := range am.entries {
		p := am.post(k.post)
		if !in(at) || !am.followee(viewer, k.user) || !am.readable(viewer, p) {
			continue
		}
		cur, ok := out[p.anchor]
		if ok && (cur.shared || cur.at.After(at) || cur.at.Equal(at) && cur.by.commented && !k.commented) {
			continue
		}
		out[p.anchor] = wantArrival{anchor: p.anchor, at: at, by: k}
	}
	for a, w := range out {
		if w.shared || slices.ContainsFunc(am.posts, func(p modelPost) bool {
			// Shared by a followee or in the viewer's group: the card says so, not the activity.
			return p.anchor == a && ((fl[p.author] && p.toFollowers()) || am.inMemberGroup(viewer, p)) && am.readable(viewer, p)
		}) {
			continue
		}
		by := w.by
		w.card = &by
		out[a] = w
	}
	return out
}

// describeInterval lists what happened in (from, to] for a failure message: shares and
// likes and comments feeds' entries, each with whether viewer may read the post and
// follows its maker.
func (am *activityModel) describeInterval(viewer int64, from, to time.Time) string {
	in := func(at time.Time) bool { return at.After(from) && !at.After(to) }
	var parts []string
	for _, p := range am.posts {
		if in(p.at) {
			parts = append(parts, fmt.Sprintf("item %d: post %d shared by %d at +%s (readable %v, followed %v, groups %v, a member %v)",
				p.anchor, p.id, p.author, p.at.Sub(from), am.readable(viewer, p), am.followed(viewer)[p.author], p.groups, am.inMemberGroup(viewer, p)))
		}
	}
	for k, at := range am.entries {
		if !in(at) {
			continue
		}
		p := am.post(k.post)
		how := "liked"
		if k.commented {
			how = "commented on"
		}
		parts = append(parts, fmt.Sprintf("item %d: post %d %s by %d at +%s (readable %v, deleted %v, followee %v)",
			p.anchor, p.id, how, k.user, at.Sub(from), am.readable(viewer, p), p.deleted, am.followee(viewer, k.user)))
	}
	slices.Sort(parts)
	return strings.Join(parts, "; ")
}
