package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a-h/templ"

	"tributary"
	"tributary/db"
	"tributary/feed"
	"tributary/views"
)

// A notice is an open page's "N new": what its slot polls (GET /feed/new?… for the ranked
// feeds, a chronological feed's page with ?new=) and what its live stream asks. The poll's
// handlers and the streams call the same ask (pill), so a stream asks exactly what the slot
// polls, and no other route of the site.
type notice struct {
	after time.Time // the page's fencepost
	// The ranked feed (/feed/new): its query, and where its pill brings the new items (from
	// its page's address without a cursor; made once, as a stream tells its pill often).
	ranked bool
	q      tributary.FeedQuery
	href   string
	// A chronological feed: the feed, its page, the fencepost as the page has it, and the
	// author of a user's page (only their posts are new there; 0 for other pages).
	chrono    feed.Chrono
	path      string
	fencepost string
	author    int64
}

// rankedNotice is the notice of GET /feed/new with query v.
func rankedNotice(v url.Values) (notice, error) {
	after, err := feed.ParseFencepost(v.Get("fencepost"))
	if err != nil {
		return notice{}, err
	}
	v.Del("fencepost")
	q, err := tributary.ParseFeedQuery(v)
	return notice{after: after, ranked: true, q: q, href: views.NewItemsHref("/?"+feedLink(q), feed.FormatFencepost(after))}, err
}

// chronoNotice is the notice of a chronological feed's page at path, after the page's
// fencepost (its ?new=).
func chronoNotice(c feed.Chrono, path, fencepost string) (notice, error) {
	after, err := feed.ParseFencepost(fencepost)
	return notice{after: after, chrono: c, path: path, fencepost: fencepost}, err
}

// pill asks the notice as viewer (nil: anonymous) with access, and returns what the page's
// slot shows.
func (s *Server) pill(ctx context.Context, viewer *tributary.User, access tributary.Viewer, n notice) (templ.Component, error) {
	if n.ranked {
		c, err := s.feed.NewCount(ctx, viewer, n.q, n.after, noticeMax)
		return n.rankedPill(c), err
	}
	c, err := s.feed.ChronoNewCount(ctx, access, n.chrono, n.after, 100)
	return views.ChronoPill(c, n.path, n.fencepost), err
}

// noticeMax is the most a notice counts.
const noticeMax = 100

// rankedPill is what a ranked notice's slot shows for c new items.
func (n notice) rankedPill(c int) templ.Component {
	return views.NewPill(c, n.href)
}

// errLiveSource refuses a stream's src that is not a notice of this site's feeds.
var errLiveSource = tributary.Errorf(tributary.EInvalid, "src must be the \"new\" notice of a feed of this site.")

// liveNotice reads a stream's src, as the page's reader (r's): a notice of one of this
// site's feeds, by the same names and rules as the feed's page (a path with its query,
// never another host, never another route). Anything else is errLiveSource.
func (s *Server) liveNotice(r *http.Request, src string) (notice, error) {
	u, err := url.Parse(src)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		!strings.HasPrefix(src, "/") || strings.HasPrefix(src, "//") || strings.Contains(u.Path, "//") {
		return notice{}, errLiveSource
	}
	v := u.Query()
	if u.Path == "/feed/new" {
		return rankedNotice(v)
	}
	if !v.Has("new") {
		return notice{}, errLiveSource
	}
	ctx := r.Context()
	fp := v.Get("new")
	user := func() (int64, error) { // the pages of the reader's own feeds
		if u := currentUser(ctx); u != nil {
			return u.ID, nil
		}
		return 0, tributary.Errorf(tributary.EUnauthorized, "Log in first.")
	}
	part := strings.Split(strings.TrimPrefix(u.Path, "/"), "/")
	switch {
	case len(part) == 2 && part[0] == "u", len(part) == 3 && part[0] == "u" && (part[2] == "likes" || part[2] == "comments"):
		author, err := s.names.byHandle(ctx, part[1])
		if err != nil {
			return notice{}, err
		}
		path := "/u/" + author.Handle
		if len(part) == 2 {
			n, err := chronoNotice(feed.Chrono{Author: author.ID}, path, fp)
			n.author = author.ID
			return n, err
		}
		f := map[string]userFilter{"likes": likesFilter, "comments": commentsFilter}[part[2]]
		return chronoNotice(feed.Chrono{Filter: f.feed(author.ID)}, path+"/"+part[2], fp)
	case len(part) == 2 && part[0] == "t":
		tags, err := tributary.NormalizeTags([]string{part[1]})
		if err != nil || len(tags) != 1 {
			return notice{}, errLiveSource
		}
		return chronoNotice(feed.Chrono{Filter: db.TagFeed(tags[0])}, "/t/"+tags[0], fp)
	case len(part) == 2 && part[0] == "g":
		g, err := s.store.GroupByName(ctx, part[1])
		if err != nil {
			return notice{}, err
		}
		return chronoNotice(feed.Chrono{Feed: g.ID}, "/g/"+g.Name, fp)
	case u.Path == "/search":
		raw := v.Get("q")
		sq, _, err := s.parseSearch(r, raw)
		if err != nil {
			return notice{}, errLiveSource
		}
		return chronoNotice(feed.Chrono{Search: &sq}, "/search?q="+url.QueryEscape(raw), fp)
	case u.Path == "/mentions", u.Path == "/discussions", u.Path == "/directs":
		id, err := user()
		if err != nil {
			return notice{}, err
		}
		c := map[string]feed.Chrono{"/mentions": {Filter: db.MentionsFeed(id)}, "/discussions": {Filter: db.DiscussionsFeed(id)},
			"/directs": {Directs: true}}[u.Path]
		return chronoNotice(c, u.Path, fp)
	}
	return notice{}, errLiveSource
}
