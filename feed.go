package tributary

import (
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Sharer is one person who shared an item, as the sharer stack shows them.
type Sharer struct {
	UserRef
	At       time.Time `json:"at"`
	Followed bool      `json:"followed,omitempty"` // the viewer follows them (never the viewer)
	Self     bool      `json:"self,omitempty"`     // the viewer
	Public   bool      `json:"-"`                  // this sharer's share is public
}

// Item is one feed entry: an anchor with its representative post. Every read path
// (cache, snapshot, live) produces this one schema.
type Item struct {
	ID           int64      `json:"id"` // the anchor id: stable across paths and refreshes
	URL          string     `json:"url"`
	CanonicalURL string     `json:"canonical_url"`
	AnchorURL    string     `json:"anchor_url"`
	Title        string     `json:"title"`
	Excerpt      string     `json:"excerpt"` // the representative post's comment, shortened
	Kind         Kind       `json:"kind"`
	Host         string     `json:"host"`
	Date         time.Time  `json:"date"`
	Score        float64    `json:"score"`
	ScoreParts   ScoreParts `json:"score_parts"`
	PrimaryUser  UserRef    `json:"primary_user"`
	Sharers      []Sharer   `json:"sharers"`
	ShareCount   int        `json:"share_count"`
	AlreadySeen  bool       `json:"already_seen"`
	Images       []string   `json:"images"`
	Tags         []string   `json:"tags"`
	RepPostID    int64      `json:"rep_post_id"`
	// Talk sums the conversations on the item's shares that the viewer may read.
	Talk Talk `json:"talk"`
	// Muted is the viewer's muted word the item has, when the viewer asked to collapse
	// such cards rather than leave them out.
	Muted string `json:"muted,omitempty"`
	// Activity is why an item nobody the viewer follows shared is in their home feed.
	Activity *Activity `json:"activity,omitempty"`
	// Group names the viewer's group that brought an item nobody they follow shared into
	// their home feed (seed 003: a home feed aggregates its reader's groups).
	Group string `json:"group,omitempty"`
	// Card is what the item's link says about itself, once fetched.
	Card *LinkCard `json:"card,omitempty"`
	// Audience is who can see an item: the groups and directs its shares went to, and a lock
	// when none of those the viewer reads is public.
	Audience *Audience `json:"-"`
	// Popular marks a front page item filling a newcomer's home feed (PopularFor).
	Popular bool `json:"-"`
	// Inputs kept for re-scoring and access checks; not part of the API.
	SharerIDs []int64 `json:"-"`
	GroupIDs  []int64 `json:"-"` // the groups it is in (Rollup.GroupIDs)
}

// Activity is the latest like or comment of someone a viewer follows on a share of an item:
// how the item arrived in the viewer's home feed (seed 003: a friend feed subscribes to
// friends' likes and comments), when no one they follow shared it.
type Activity struct {
	User      UserRef   `json:"user"`
	Commented bool      `json:"commented"` // a comment; a like otherwise
	At        time.Time `json:"at"`
}

// Paths that can serve a timeline.
const (
	PathCache    = "cache"
	PathSnapshot = "snapshot"
	PathLive     = "live"
)

// Timeline is one page of a feed: the JSON API's envelope.
type Timeline struct {
	Items      []Item `json:"items"`
	NextCursor string `json:"next_cursor"`
	Path       string `json:"path"`
	Fencepost  string `json:"fencepost"`
	// Refreshed says the cursor pointed into feed state that is gone: this is a fresh first page.
	Refreshed bool `json:"refreshed,omitempty"`
	// Followees is how many people the home feed's reader follows (-1: not a home feed).
	Followees int `json:"-"`
	// Popular fills a newcomer's first page: the front page's items (PopularFor).
	Popular []Item `json:"popular,omitempty"`
}

// PostList is a page of a chronological feed (a user's posts, a group, a list, a filter feed,
// a search) in the JSON API: the timeline's envelope with posts.
type PostList struct {
	Posts      []Post `json:"posts"`
	NextCursor string `json:"next_cursor"`
	Path       string `json:"path"`
	Fencepost  string `json:"fencepost"`
	Refreshed  bool   `json:"refreshed,omitempty"`
}

// Feed query limits.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// FeedQuery is a validated timeline request.
type FeedQuery struct {
	Limit       int
	Cursor      string
	Source      Kind // "" for every kind
	Tag         string
	Since       time.Time // zero: unbounded
	Until       time.Time // zero: unbounded
	IncludeSeen bool
	List        int64 // one of the viewer's lists instead of the home feed (0: the home feed)
}

// ParseFeedQuery validates timeline parameters; errors name the parameter at fault.
func ParseFeedQuery(v url.Values) (FeedQuery, error) {
	q := FeedQuery{Limit: DefaultLimit, Cursor: v.Get("cursor")}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return q, FieldErrorf("limit", "Parameter 'limit' must be a whole number, got %q.", s)
		}
		if n < 1 || n > MaxLimit {
			return q, FieldErrorf("limit", "Parameter 'limit' must be between 1 and %d, got %d.", MaxLimit, n)
		}
		q.Limit = n
	}
	if s := v.Get("source"); s != "" {
		k, ok := ParseKind(s)
		if !ok {
			return q, FieldErrorf("source", "Parameter 'source' must be one of %s, got %q.", kindList(), s)
		}
		q.Source = k
	}
	if s := strings.TrimSpace(v.Get("tag")); s != "" {
		tags, err := NormalizeTags([]string{s})
		if err != nil || len(tags) != 1 {
			return q, FieldErrorf("tag", "Parameter 'tag' is not a valid tag: %q.", s)
		}
		q.Tag = tags[0]
	}
	var err error
	if q.Since, err = parseDateParam(v, "since"); err != nil {
		return q, err
	}
	if q.Until, err = parseDateParam(v, "until"); err != nil {
		return q, err
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
		return q, FieldErrorf("since", "Parameter 'since' must be before 'until'.")
	}
	if s := v.Get("list"); s != "" {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id < 1 {
			return q, FieldErrorf("list", "Parameter 'list' must be a list's id, got %q.", s)
		}
		q.List = id
	}
	switch s := v.Get("include_seen"); s {
	case "", "0", "false":
	case "1", "true":
		q.IncludeSeen = true
	default:
		return q, FieldErrorf("include_seen", "Parameter 'include_seen' must be true or false, got %q.", s)
	}
	return q, nil
}

func kindList() string {
	s := make([]string, len(Kinds))
	for i, k := range Kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// parseDateParam accepts RFC 3339 or a plain date (midnight UTC).
func parseDateParam(v url.Values, name string) (time.Time, error) {
	s := v.Get(name)
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, FieldErrorf(name, "Parameter '%s' must be a date like 2026-01-02 or 2026-01-02T15:04:05Z, got %q.", name, s)
}

// Values is the query as URL parameters, the known ones only and only when not their
// default: what links to the feed are built from (ParseFeedQuery reads them back), never
// whatever else the request's URL carried.
func (q FeedQuery) Values() url.Values {
	v := url.Values{}
	set := func(k, val string, on bool) {
		if on {
			v.Set(k, val)
		}
	}
	set("limit", strconv.Itoa(q.Limit), q.Limit != DefaultLimit && q.Limit != 0)
	set("cursor", q.Cursor, q.Cursor != "")
	set("source", string(q.Source), q.Source != "")
	set("tag", q.Tag, q.Tag != "")
	set("since", q.Since.Format(time.RFC3339Nano), !q.Since.IsZero())
	set("until", q.Until.Format(time.RFC3339Nano), !q.Until.IsZero())
	set("include_seen", "1", q.IncludeSeen)
	set("list", strconv.FormatInt(q.List, 10), q.List != 0)
	return v
}

// Template names the feed a fence belongs to: the filters, without page size, cursor or
// include_seen (which only changes what is shown, not what the feed holds).
func (q FeedQuery) Template() string {
	t := q
	t.Limit, t.Cursor, t.IncludeSeen = 0, "", false
	return t.Signature()
}

// Signature is the canonical form of the query's filters (without the cursor): the key of
// the anonymous cache and of fence templates, the same however the URL spelled them.
func (q FeedQuery) Signature() string {
	var b strings.Builder
	b.WriteString("limit=" + strconv.Itoa(q.Limit))
	if q.Source != "" {
		b.WriteString("&source=" + string(q.Source))
	}
	if q.Tag != "" {
		b.WriteString("&tag=" + url.QueryEscape(q.Tag))
	}
	if !q.Since.IsZero() {
		b.WriteString("&since=" + q.Since.Format(time.RFC3339Nano))
	}
	if !q.Until.IsZero() {
		b.WriteString("&until=" + q.Until.Format(time.RFC3339Nano))
	}
	if q.IncludeSeen {
		b.WriteString("&include_seen=1")
	}
	if q.List != 0 {
		b.WriteString("&list=" + strconv.FormatInt(q.List, 10))
	}
	return b.String()
}
