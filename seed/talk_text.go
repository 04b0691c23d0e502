package seed

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// commentBody writes what author says on post i, given who commented before (thread): a
// reaction, question or take on the item; sometimes an answer to an earlier commenter or to
// the post's author by @handle, a second sentence, a #tag of the item's field or a cc.
func (w *seedWorld) commentBody(r *rand.Rand, i int, author int32, thread []int32) string {
	s := w.shares[i]
	topic := seedTopics[w.resources[s.res].topic]
	var b strings.Builder
	x := r.Float64()
	switch to := seedOtherThan(r, thread, author); {
	case author == s.author && to >= 0 && x < 0.7:
		fmt.Fprintf(&b, "@%s %s", w.users[to].handle, seedPick(r, seedTalkAuthorReplies))
	case author == s.author && x < 0.8:
		b.WriteString(seedPick(r, seedTalkAuthorNotes))
	case author != s.author && to >= 0 && x < 0.25:
		fmt.Fprintf(&b, "@%s %s", w.users[to].handle, seedPick(r, seedTalkReplies))
	case author != s.author && x < 0.31:
		fmt.Fprintf(&b, "@%s %s", w.users[s.author].handle, seedPick(r, seedTalkToAuthor))
	}
	for b.Len() == 0 || r.Float64() < 0.1 { // a few say more
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		switch x := r.Float64(); {
		case x < 0.6:
			b.WriteString(seedPick(r, seedTalkLines))
		case x < 0.8:
			fmt.Fprintf(&b, seedPick(r, seedTalkTaskLines), seedPick(r, topic.tasks))
		default:
			fmt.Fprintf(&b, seedPick(r, seedTalkNounLines), strings.ToLower(seedPick(r, seedNouns)))
		}
	}
	if r.Float64() < 0.1 {
		tag := topic.tag
		if x := r.Float64(); x < 0.25 {
			tag = seedPick(r, topic.related)
		} else if x < 0.4 {
			tag = seedPick(r, seedTags)
		}
		if r.IntN(3) == 0 {
			fmt.Fprintf(&b, " Filing under #%s.", tag)
		} else {
			fmt.Fprintf(&b, " #%s", tag)
		}
	}
	if r.Float64() < 0.04 {
		cc := int32(r.IntN(len(w.users)))
		if fs, _ := w.followees(int(author)); len(fs) > 0 {
			cc = fs[r.IntN(len(fs))]
		}
		if cc != author {
			fmt.Fprintf(&b, " cc @%s", w.users[cc].handle)
		}
	}
	return b.String()
}

// seedOtherThan picks someone in thread other than u, or returns -1 when there is nobody.
func seedOtherThan(r *rand.Rand, thread []int32, u int32) int32 {
	if len(thread) == 0 {
		return -1
	}
	for range 4 {
		if v := thread[r.IntN(len(thread))]; v != u {
			return v
		}
	}
	for _, v := range thread {
		if v != u {
			return v
		}
	}
	return -1
}
