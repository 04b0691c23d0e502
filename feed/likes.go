package feed

import (
	"context"
	"time"

	"tributary"
	"tributary/db"
)

// likesAhead is a viewer's likes of some items (db.Store.LikedOf), read in the background or
// asked of another read (asked): the page's arrivals, or the commit of its fencepost.
type likesAhead struct {
	done  chan struct{}
	liked map[int64]int64
	err   error
	asked *db.LikesRead
}

// likesAheadFor bounds the read of likes ahead: it outlives its request's context (were it
// cancelled mid-query, its connection would be closed), not this.
const likesAheadFor = 5 * time.Second

// likesAhead starts reading the viewer's likes of ids when the cards of a page from them
// may be made of kept talk (a viewer in no ban, on an instance that hears of every change);
// nil otherwise. With ask, they are asked of the page's next read instead: its arrivals (in
// their round trip when it can, db.ArrivedQuery.Likes), or the commit of the fencepost they
// head (fenceStore.Commit).
func (s *Service) likesAhead(ctx context.Context, access tributary.Viewer, ids []int64, ask bool) *likesAhead {
	if len(ids) == 0 || access.ID == 0 || !s.keptTalk(access) {
		return nil
	}
	if ask {
		return &likesAhead{asked: &db.LikesRead{Anchors: ids}}
	}
	a := &likesAhead{done: make(chan struct{})}
	go func() {
		defer close(a.done)
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), likesAheadFor)
		defer cancel()
		a.liked, a.err = s.store.LikedOf(ctx, access, ids)
	}()
	return a
}

// pending are the likes asked of a read that has not read them yet (nil: none).
func (a *likesAhead) pending() *db.LikesRead {
	if a == nil || a.asked == nil || a.asked.Liked != nil {
		return nil
	}
	return a.asked
}

// wait returns the likes read (nil when none were, or the read failed: the cards are then
// read as the viewer's). Those asked of another read are there when it read them.
func (a *likesAhead) wait() map[int64]int64 {
	if a == nil {
		return nil
	}
	if a.asked != nil {
		return a.asked.Liked
	}
	<-a.done
	if a.err != nil {
		return nil
	}
	return a.liked
}
