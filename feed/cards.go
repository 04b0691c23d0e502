package feed

import (
	"context"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"tributary"
	"tributary/db"
	"tributary/internal/lru"
)

// cards keeps, on each instance, what items' cards show that is the same for every reader,
// so that a page whose items are kept reads none of them: an item's row (the snapshot's, for
// items all of whose shares are public) and its public talk (the counts of its public shares
// and its newest public likes). Each reader's cards are made of these as the queries would
// make them (the reader's own like comes with their state, for the items of the fencepost
// read with it); a reader in a ban with someone, or an item with shares that are not public,
// is read per reader as before.
//
// Neither decides anything alone. A row is used only for the version of the snapshot's row
// it was read for: the ranking copy's, which every request checks against the changes its
// viewer state lists (rankIndex.ready), so a row redone by any instance is read again on the
// next request that sees the change. Talk is dropped when the site's event path names its
// item (a like, a comment, a share, a deletion or change of access: the changes carry their
// items), all of it when a user's name changes or the path resets, and none is used while this
// instance is not listening (site.Bus.Up): another instance's change reaches it within a
// wake-up, as open pages hear of it.
type cards struct {
	rows    *lru.Cache[int64, keptRow]
	sharers *lru.Cache[sharerKey, keptSharer] // followees named beyond kept rows' stacks

	mu    sync.Mutex
	gen   uint64      // moves with every drop
	drops []talkDrops // the newest drops, oldest first
	talk  *lru.Cache[int64, db.PublicTalk]

	// Readers who wrote through this instance, with the event path's mark at the time
	// (site.Bus.Mark): until it has heard of their change, their cards' talk is read.
	writers *lru.Cache[int64, uint64]
}

// keptRow is an item's candidate as read for one version of its snapshot row.
type keptRow struct {
	version rowVersion
	c       db.Candidate
}

// sharerKey names a user's newest share of an item; keptSharer is that share as read for one
// version of the item's all-public row (the same for every reader in no ban).
type sharerKey struct{ anchor, user int64 }

type keptSharer struct {
	version rowVersion
	s       tributary.Sharer
}

// rowVersion names one version of a snapshot row in the ranking copy: the copy's base, and
// the row redone on it (nil: the base's own).
type rowVersion struct {
	lineage uint64
	over    *db.RankRow
}

// talkDrops are the items whose talk one change dropped (all: every item's).
type talkDrops struct {
	gen     uint64
	all     bool
	anchors []int64
}

const (
	cardsKept = 8192             // items whose row, and whose talk, an instance keeps
	rowsTTL   = time.Hour        // a row kept is checked on every use; this bounds its memory
	talkTTL   = 10 * time.Minute // talk kept when no change came round at all
	dropsKept = 64               // drops remembered for the reads still running
	// AnchorTalk names up to likersNamed likers among an item's likersAmong newest public
	// likes that are not the reader's; likersKept of them are kept, so that a reader's own
	// likes among the newest leave enough.
	likersNamed = 3
	likersAmong = 12
	likersKept  = 16
)

func newCards(now func() time.Time) *cards {
	return &cards{rows: lru.New[int64, keptRow](rowsTTL, cardsKept, now),
		sharers: lru.New[sharerKey, keptSharer](rowsTTL, 8*cardsKept, now),
		talk:    lru.New[int64, db.PublicTalk](talkTTL, cardsKept, now),
		writers: lru.New[int64, uint64](time.Minute, cardsKept, now)}
}

// Wrote is told of a reader's write through this instance as it commits (a like, a comment,
// a share): their next page, which may come before the write has come round the event path,
// reads its cards' talk rather than use what this instance keeps.
func (s *Service) Wrote(reader int64) {
	if s.bus != nil {
		s.cards.writers.Put(reader, s.bus.Mark())
	}
}

// keptTalk reports whether a reader's cards may be made of the talk kept: this instance hears
// of every change, has heard of the reader's own, and the reader is in no ban (whose likes
// and comments are taken away per reader).
func (s *Service) keptTalk(access tributary.Viewer) bool {
	if s.bus == nil || !s.bus.Up() || len(access.Blocked) > 0 {
		return false
	}
	if m, ok := s.cards.writers.Get(access.ID); ok {
		if !s.bus.Past(m) {
			return false
		}
		s.cards.writers.Delete(access.ID)
	}
	return true
}

// version is the version of an item's row in the copy, when the copy has an all-public row
// for it (only those are kept: the others are rolled up per reader).
func (st *rankState) version(id int64) (rowVersion, bool) {
	if st == nil {
		return rowVersion{}, false
	}
	r, ok := st.row(id)
	if !ok || !r.AllPublic {
		return rowVersion{}, false
	}
	v := rowVersion{lineage: st.lineage}
	if o, redone := st.over[id]; redone {
		v.over = o
	}
	return v, true
}

// heard drops the talk that changes may have made stale (reset: all of it).
func (c *cards) heard(changes []db.SiteChange, reset bool) {
	d := talkDrops{all: reset}
	for _, ch := range changes {
		switch ch.Kind {
		case "talk", "new_posts", "posts":
			// Empty: too many to list, or recorded before changes named their items.
			d.all = d.all || len(ch.Anchors) == 0
			d.anchors = append(d.anchors, ch.Anchors...)
		case "bans", "feed_readers", "group_members", "follows", "cursor_keys", "past_posts", "notifications", "notification_reads", "sessions":
			// Who may read what, per reader: public talk is read per reader for those in a
			// ban; a private feed's posts are not public.
		default: // users (names), feeds (access), and any other: drop it all
			d.all = true
		}
	}
	if !d.all && len(d.anchors) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	d.gen = c.gen
	c.drops = append(c.drops, d)
	if len(c.drops) > dropsKept {
		c.drops = slices.Delete(c.drops, 0, len(c.drops)-dropsKept)
	}
	if d.all {
		c.talk.Clear()
		return
	}
	for _, id := range d.anchors {
		c.talk.Delete(id)
	}
}

// reading returns where a read of talk to keep starts: drops from there on are checked when
// it is kept.
func (c *cards) reading() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// keep stores talk read from gen on, but an item's dropped since: the read may have been
// made before the change it was dropped for.
func (c *cards) keep(gen uint64, talk map[int64]db.PublicTalk) {
	c.mu.Lock()
	defer c.mu.Unlock()
	dropped := map[int64]bool{}
	if c.gen != gen {
		if len(c.drops) == 0 || c.drops[0].gen > gen+1 { // the drops since are forgotten
			return
		}
		for _, d := range c.drops {
			if d.gen <= gen {
				continue
			}
			if d.all {
				return
			}
			for _, id := range d.anchors {
				dropped[id] = true
			}
		}
	}
	for id, t := range talk {
		if !dropped[id] {
			c.talk.Put(id, t)
		}
	}
}

// readerLikers names a reader's likers of an item from its newest public likes as AnchorTalk
// does for a reader in no ban: among the likersAmong newest likes not the reader's, the
// likers of the newest likersNamed, each once. ok is false when the likes kept are too few to
// tell (the reader's own took the place of others not kept).
func readerLikers(newest []tributary.UserRef, viewer int64) ([]tributary.UserRef, bool) {
	out, among := []tributary.UserRef{}, 0
	for _, u := range newest {
		if u.ID == viewer {
			continue
		}
		if among == likersAmong {
			break
		}
		among++
		if len(out) < likersNamed && !slices.ContainsFunc(out, func(o tributary.UserRef) bool { return o.ID == u.ID }) {
			out = append(out, u)
		}
	}
	if among < likersAmong && len(newest) == likersKept {
		return nil, false
	}
	return out, true
}

// cardsOf reads the rows and talk of the items ids for one request, from what is kept where
// it may: candidates by item (items gone or unreadable are missing) and their talk.
func (src *source) cardsOf(ctx context.Context, ids []int64) (map[int64]db.Candidate, map[int64]tributary.Talk, error) {
	s, access := src.s, src.v.access
	copied := s.rank.ready(src.v)
	cands, versions, readRows := src.keptRows(copied, ids)
	talk, made, readTalk, readPublic, readLiked := src.keptTalk(ids)

	// What is read is read at once, each on its own connection: a page waits for one round
	// trip.
	var read map[int64]db.Candidate
	var readT map[int64]tributary.Talk
	var liked map[int64]int64
	g, gctx := errgroup.WithContext(ctx)
	if len(readLiked) > 0 {
		g.Go(func() (err error) {
			liked, err = s.store.LikedOf(gctx, access, readLiked)
			return err
		})
	}
	if len(readTalk) > 0 {
		g.Go(func() (err error) {
			readT, err = s.store.AnchorTalk(gctx, access, readTalk)
			return err
		})
	}
	if len(readPublic) > 0 {
		g.Go(func() (err error) {
			gen := s.cards.reading()
			public, err := s.store.PublicTalk(gctx, readPublic, likersKept)
			if err == nil {
				s.cards.keep(gen, public)
			}
			return err
		})
	}
	if s.cacheable() {
		// The items' link cards, kept for the page's fill (itemTalk) to find.
		g.Go(func() error {
			s.linkCardsOf(gctx, ids)
			return nil
		})
	}
	if len(readRows) > 0 {
		var sharers db.Sharers
		if copied != nil {
			sharers = copied.sharers
		}
		g.Go(func() (err error) {
			read, err = s.store.Items(gctx, readRows, access, src.now, sharers)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	for id, c := range read {
		cands[id] = c
		if v, ok := versions[id]; ok && c.Rollup.AllPublic {
			s.cards.rows.Put(id, keptRow{version: v, c: c})
		}
	}
	for id, t := range readT {
		talk[id] = t
	}
	for id, t := range made {
		t.Liked, t.LikedPost = liked[id] != 0, liked[id]
		talk[id] = t
	}
	return cands, talk, nil
}

// keptRows gives the candidates of ids kept for the version the ranking copy has (copied,
// when it is current for this request: a logged-in viewer's state lists the changes, an
// anonymous one's does not), and the ids to read, with the versions of those that may be
// kept once read.
func (src *source) keptRows(copied *rankState, ids []int64) (map[int64]db.Candidate, map[int64]rowVersion, []int64) {
	if src.viewer == nil {
		copied = nil
	}
	cands := make(map[int64]db.Candidate, len(ids))
	versions := map[int64]rowVersion{}
	var read []int64
	for _, id := range ids {
		v, ok := copied.version(id)
		if ok {
			if k, hit := src.s.cards.rows.Get(id); hit && k.version == v {
				cands[id] = k.c
				continue
			}
			versions[id] = v
		}
		read = append(read, id)
	}
	return cands, versions, read
}

// keptTalk makes the talk of ids from the public talk kept, for a reader in no ban: complete
// when the reader's like of the item is known (read with the page's fencepost), made but for
// the reader's like otherwise (readLiked). The rest are read as the reader's (readTalk), and
// the public talk not kept is read beside them to keep (readPublic).
func (src *source) keptTalk(ids []int64) (talk, made map[int64]tributary.Talk, readTalk, readPublic, readLiked []int64) {
	s, access := src.s, src.v.access
	talk, made = make(map[int64]tributary.Talk, len(ids)), map[int64]tributary.Talk{}
	if !s.keptTalk(access) {
		return talk, made, ids, nil, nil
	}
	headLikes := src.v.headLikes.wait()
	for _, id := range ids {
		p, ok := s.cards.talk.Get(id)
		if !ok {
			readPublic = append(readPublic, id)
			readTalk = append(readTalk, id)
			continue
		}
		likers, named := readerLikers(p.Newest, access.ID)
		if p.Restricted || !named {
			readTalk = append(readTalk, id)
			continue
		}
		t := tributary.Talk{Likes: p.Likes, Comments: p.Comments, Likers: likers}
		if liked, known := headLikes[id]; known || access.ID == 0 { // nobody's like
			t.Liked, t.LikedPost = liked != 0, liked
			talk[id] = t
			continue
		}
		made[id] = t
		readLiked = append(readLiked, id)
	}
	return talk, made, readTalk, readPublic, readLiked
}
