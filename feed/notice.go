package feed

import (
	"context"
	"sync"
	"time"

	"tributary"
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

// NoticeState is what a live stream keeps of its reader between its asks.
type NoticeState struct {
	mu     sync.Mutex
	kept   bool
	viewer int64
	q      tributary.FeedQuery
	v      viewerState
	fenced bool
}

// Forget makes the next ask read the reader's state again.
func (n *NoticeState) Forget() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.kept, n.v = false, viewerState{}
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
