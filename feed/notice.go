package feed

import (
	"context"
	"slices"
	"sync"
	"time"

	"tributary"
	"tributary/db"
)

// A live stream asks its page's "N new" notice again after every share its reader may see:
// a thousand open pages ask a thousand times per share. Its reader's state (the followed
// set, the seen and hidden items, whether the page's fence has a fencepost) is read by the
// first ask and kept by the stream for the asks after it, until the stream forgets it:
// when who may read what changed, and at the heartbeats that read the reader again
// (web/live.go), as the stream does with its reader's session and access. An ask then costs the arrivals' count alone, where
// reading the state again cost ten times that (1.2 ms of PostgreSQL per ask, measured).
// Between those an item seen or hidden elsewhere changes the count up to a few heartbeats
// late; the items the pill brings are read afresh.
//
// A home notice also keeps the items its last count found: a share that reaches the page
// then changes the count without a query at all (Arrive), where a thousand open pages asking
// for it took the instances' CPU for a quarter of a second.

// NoticeState is what a live stream keeps of its reader between its asks.
type NoticeState struct {
	mu     sync.Mutex
	kept   bool
	viewer int64
	q      tributary.FeedQuery
	v      viewerState
	fenced bool
	// The last count (NewCount with the state kept), for the fencepost after: the items it
	// found (at most max), the hidden and seen ones among them, which it did not count.
	counted bool
	after   time.Time
	max     int
	found   []int64
}

// Forget makes the next ask read the reader's state again.
func (n *NoticeState) Forget() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.kept, n.v, n.counted, n.found = false, viewerState{}, false, nil
}

type noticeKey struct{}

// WithNoticeState makes NewCount asked with ctx keep its reader's state in n.
func WithNoticeState(ctx context.Context, n *NoticeState) context.Context {
	return context.WithValue(ctx, noticeKey{}, n)
}

// noticeSource is the source and fence state a notice counts with: the stream's kept state
// when it has it for this viewer and query, else read (and kept when ctx has a stream's).
func (s *Service) noticeSource(ctx context.Context, viewer *tributary.User, q tributary.FeedQuery, now time.Time) (*source, bool, error) {
	n, _ := ctx.Value(noticeKey{}).(*NoticeState)
	if n != nil && viewer != nil {
		n.mu.Lock()
		defer n.mu.Unlock()
		n.counted = false // until this count is made (noteCount)
		if n.kept && n.viewer == viewer.ID && n.q.Signature() == q.Signature() {
			return s.newSource(viewer, n.v, q, now), n.fenced, nil
		}
	}
	r, err := s.request(ctx, viewer, q, now, time.Time{})
	if err != nil {
		return nil, false, err
	}
	if n != nil && viewer != nil {
		n.kept, n.viewer, n.q, n.v, n.fenced = true, viewer.ID, q, r.src.v.forNotice(), r.fenced
	}
	return r.src, r.fenced, nil
}

// noteCount keeps a count NewCount made with ctx's stream state: the items found (all of
// them, hidden ones too, as each takes a place under max).
func noteCount(ctx context.Context, viewer *tributary.User, q tributary.FeedQuery, after time.Time, max int, arrived []db.Arrival) {
	n, _ := ctx.Value(noticeKey{}).(*NoticeState)
	if n == nil || viewer == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.kept || n.viewer != viewer.ID || n.q.Signature() != q.Signature() {
		return
	}
	n.counted, n.after, n.max = true, after, max
	n.found = n.found[:0]
	for _, a := range arrived {
		n.found = append(n.found, a.AnchorID)
	}
}

// Missed makes the stream's next notice asked: it was told of posts its last count does not
// hold (the ask they woke failed).
func (n *NoticeState) Missed() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.counted = false
}

// Arrive is the home notice counted with n after a new post of item anchor by author (a
// post its reader may read: the caller checks), told without asking the database: the last
// count, plus the item if it is new among those found and not hidden or seen. ok is false
// when n cannot tell: no count kept for after, a feed filtered or of a list, a post in a
// group or by the reader, an author outside the followed set (MayCount says so first), or
// max items found already (the new one would push one out).
func (n *NoticeState) Arrive(after time.Time, anchor, author int64, inGroup bool) (count int, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	q := n.q
	if !n.kept || !n.counted || !n.after.Equal(after) || q.Source != "" || q.Tag != "" || q.List != 0 ||
		!q.Since.IsZero() || !q.Until.IsZero() || inGroup || author == n.viewer || !n.v.followed.Has(author) {
		return 0, false
	}
	if !slices.Contains(n.found, anchor) {
		if len(n.found) >= n.max {
			return 0, false
		}
		n.found = append(n.found, anchor)
	}
	for _, id := range n.found {
		if !n.v.hides(id, q.IncludeSeen) {
			count++
		}
	}
	return count, true
}

// MayCount reports whether a new post by author (inGroup: posted to a group) may change a
// home or list notice counted with n: not when n holds the reader's followed set and the
// author is not in it, as only the followed set's posts (and a group's, for its members)
// arrive there. A stream whose reader follows nobody of a share need not ask.
func (n *NoticeState) MayCount(author int64, inGroup bool) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.kept || n.q.Source != "" || inGroup {
		return true
	}
	return n.v.followed.Has(author)
}
