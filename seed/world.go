package seed

import (
	"context"
	"sync"
)

// seedWorld is the generated dataset: users, the follow graph and the shares live in
// memory; posts and events are derived from them while they are written.
type seedWorld struct {
	cfg              Config
	start, last, end int64 // the window in Unix ms; shares happen before last

	users []seedUser
	// The follow graph as CSR arrays: user i follows outDst[outOff[i]:outOff[i+1]]
	// (ascending, followed at outAt[...]); user j is followed by inSrc[inOff[j]:inOff[j+1]].
	outOff, outDst []int32
	outAt          []int64
	inOff, inSrc   []int32

	resources []seedResource
	shares    []seedShare // post i+1, in time order
	// Each author's posts in time order: authorPosts[authorOff[a]:authorOff[a+1]].
	authorOff, authorPosts []int32

	anchors    []seedAnchor  // in order of first share
	postAnchor []int32       // anchor id of post i+1
	refs       *seedPostRefs // what the posts tag and mention
	events     int

	talk     []seedPostTalk // post i+1's counts, bumped_at and ord
	likes    []seedLike     // by post, then user
	comments []seedComment  // in time order: comment i+1 is comments[i]
	bumps    []seedBump     // by post, then time
	ords     int64          // the feed_posts ords given out: one per post, one per bump

	// planned is closed when the world is drawn (plan), with planErr set if that failed.
	planned chan struct{}
	planErr error
}

// plan generates the world in memory: users, the follow graph, resources, shares and talk.
// It returns once the users and the follow graph are drawn, which is all that the users'
// and follows' tables need: load writes them while the rest is drawn (waitPlan). The
// resources' unique names are drawn one after another, on one core, so the other is free
// for PostgreSQL meanwhile.
func (w *seedWorld) plan(ctx context.Context) {
	w.cfg.Progress("plan", 0, 4)
	w.genUsers()
	w.cfg.Progress("plan", 1, 4)
	// The follow graph and the resources depend on the users alone: drawn at the same time.
	var graph sync.WaitGroup
	graph.Go(w.genFollows)
	go func() {
		defer close(w.planned)
		w.genResources()
		graph.Wait()
		w.cfg.Progress("plan", 2, 4)
		w.genShares()
		w.cfg.Progress("plan", 3, 4)
		if w.planErr = w.genTalk(ctx); w.planErr == nil {
			w.cfg.Progress("plan", 4, 4)
		}
	}()
	graph.Wait()
}

// waitPlan waits until the whole world is drawn.
func (w *seedWorld) waitPlan(ctx context.Context) error {
	select {
	case <-w.planned:
		return w.planErr
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func newSeedWorld(cfg Config) *seedWorld {
	end := cfg.End.UnixMilli()
	return &seedWorld{cfg: cfg, end: end, last: end - 10*seedMinute, start: end - Window.Milliseconds(), planned: make(chan struct{})}
}
