// Package views renders Tributary's pages with templ. Components take explicit typed data;
// only the current user and the flash message come from the page struct.
package views

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/a-h/templ"

	"tributary"
	"tributary/db"
)

// Page is what every page's layout needs.
type Page struct {
	Title string
	// Description is the page's summary for search engines and link previews; Preview asks
	// for Open Graph and Twitter card tags (pages worth sharing: users, groups); URL is the
	// page's absolute address.
	Description string
	Preview     bool
	URL         string
	// Atom is the path of the page's Atom feed, for feed readers' autodiscovery.
	Atom      string
	User      *tributary.User // nil when anonymous
	Unread    int             // the user's unread notification lines (the header's badge)
	Flash     string
	FlashUndo *Undo // a button beside the flash that takes back what it tells of
	Now       time.Time
	// RequestID names the request on a 5xx page, for a report.
	RequestID string
	// DwellFlushMs is how often the dwell tracker reports (tests shorten it); "" for the default.
	DwellFlushMs string
	Query        string // the search asked for, kept in the header's search box
}

// Undo is a form that takes an action back: a POST to Action that returns to Return.
type Undo struct {
	Action, Return string
}

// DefaultDescription describes the site, for pages without a summary of their own.
const DefaultDescription = "Tributary is a knowledge feed: papers, models, repositories and posts shared by people you follow, ranked, deduplicated and explained."

func (p Page) description() string {
	if p.Description != "" {
		return p.Description
	}
	return DefaultDescription
}

// FieldErrors maps a form field to its message; "" holds form-wide errors.
type FieldErrors map[string]string

// Form is a submitted form's values and errors, for re-rendering.
type Form struct {
	Values url.Values
	Errors FieldErrors
}

// shareToOwn: the share form's "My feed" is ticked unless a submitted form left it
// unticked (or a link asked for own=0).
func shareToOwn(f Form) bool {
	if f.Get("dest") != "" {
		return f.Get("own") == "1"
	}
	return f.Get("own") != "0"
}

// Get returns a submitted value.
func (f Form) Get(key string) string {
	if f.Values == nil {
		return ""
	}
	return f.Values.Get(key)
}

// PostList is a page of a chronological feed.
type PostList struct {
	Posts      []tributary.Post
	NextCursor string // "" at the end
	Fencepost  string
	Base       string // the feed's URL without cursor: "/u/ada?"
	Empty      string // what to say when there are no posts
	LoggedIn   bool
	Fragment   bool // the next page alone, for htmx
	// PollSeconds: how often the open page asks for posts that arrived after its fencepost
	// (0: never).
	PollSeconds int
}

// talk is a post card's conversation line; no-JS forms come back to the feed.
func (l PostList) talk(p tributary.Post) *Talk {
	return &Talk{View: "post", PostID: p.ID, Talk: p.Talk, Return: l.Base, LoggedIn: l.LoggedIn}
}

// ItemTalk is an item card's conversation line: likes and comments act on the share the
// viewer liked, or on the item's representative share.
func ItemTalk(it tributary.Item, loggedIn bool, back string) *Talk {
	if it.RepPostID == 0 {
		return nil
	}
	post := it.RepPostID
	if it.Talk.LikedPost != 0 {
		post = it.Talk.LikedPost
	}
	return &Talk{View: "item", PostID: post, AnchorID: it.ID, Talk: it.Talk, Return: back, LoggedIn: loggedIn}
}

// countText says "1 comment", "3 likes", "No comments".
func countText(n int, noun string) string {
	switch n {
	case 0:
		return "No " + noun + "s"
	case 1:
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// withNext is a link to the log-in or sign-up page that keeps the form's next.
func withNext(path string, f Form) templ.SafeURL {
	if next := f.Get("next"); next != "" {
		return templ.SafeURL(path + "?next=" + url.QueryEscape(next))
	}
	return templ.SafeURL(path)
}

// loginTo is the log-in page, coming back to back afterwards.
func loginTo(back string) templ.SafeURL {
	if back == "" {
		return "/login"
	}
	return templ.SafeURL("/login?next=" + url.QueryEscape(back))
}

// nameSep is what follows the i-th of n names in "Ada, Bob and Cy" (more: "and 3 more"
// follows the last).
func nameSep(i, n int, more bool) string {
	switch {
	case i == n-1:
		return ""
	case i == n-2 && !more:
		return " and "
	}
	return ", "
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// likerSep is what follows the i-th name of "Liked by you, Ada, Alan and 3 others".
func likerSep(i int, t tributary.Talk) string {
	named := boolInt(t.Liked) + len(t.Likers)
	others := t.OtherLikers()
	switch {
	case i == named-1 && others > 0:
		return " and "
	case i == named-1:
		return ""
	case i == named-2 && others == 0:
		return " and "
	}
	return ", "
}

// Profile is a user page.
type Profile struct {
	db.Profile
	IsSelf   bool
	LoggedIn bool
	Posts    PostList
}

// Ago renders a time relative to now: "just now", "5m", "3h", "2d", or a date.
func Ago(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	case t.Year() == now.Year():
		return t.Format("Jan 2")
	}
	return t.Format("Jan 2, 2006")
}

// Excerpt shortens text to at most n runes at a word boundary.
func Excerpt(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n])
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return cut + "…"
}

// Initials are the avatar letters of a display name.
func Initials(name string) string {
	f := strings.Fields(name)
	switch {
	case len(f) == 0:
		return "?"
	case len(f) == 1:
		return strings.ToUpper(string([]rune(f[0])[:1]))
	}
	return strings.ToUpper(string([]rune(f[0])[:1]) + string([]rune(f[len(f)-1])[:1]))
}

// AvatarHue gives each user a stable avatar colour.
func AvatarHue(id int64) string { return fmt.Sprintf("--hue:%d", (id*47)%360) }

// KindLabel names a resource kind for a badge.
func KindLabel(k tributary.Kind) string {
	switch k {
	case tributary.KindArxiv:
		return "arXiv"
	case tributary.KindHuggingFace:
		return "Hugging Face"
	case tributary.KindGitHub:
		return "GitHub"
	case tributary.KindOpenReview:
		return "OpenReview"
	case tributary.KindDOI:
		return "DOI"
	case tributary.KindTweet:
		return "Post"
	}
	return "Web"
}

// imageAlt is a preview image's text for those who cannot see it: the card's, when the
// image is the card's.
func imageAlt(c *tributary.LinkCard) string {
	if c == nil {
		return ""
	}
	return c.ImageAlt
}

// FirstImage returns the first preview image of a post, or "".
func FirstImage(p tributary.Post) string {
	for _, l := range p.Links {
		if l.Image != "" {
			return l.Image
		}
	}
	return ""
}

// (The stack beside it is a picture of the same.)
// sharersText names the sharer to show first (a followee is the most meaningful) and says
// how many others shared the item: "Shared by <first> and 3 others".
func sharersText(it tributary.Item) (first tributary.UserRef, rest string) {
	if len(it.Sharers) == 0 {
		return tributary.UserRef{}, ""
	}
	// The sharers come explaining the card first (feed: followed, or VIP for anonymous).
	first = it.Sharers[0].UserRef
	var why string
	switch {
	case it.Sharers[0].Self:
		return first, ""
	case it.Sharers[0].Followed:
		why = ", whom you follow,"
	case first.VIP:
		why = " (VIP)"
	}
	switch n := max(it.ShareCount, len(it.Sharers)) - 1; n {
	case 0:
		return first, strings.TrimSuffix(why, ",")
	case 1:
		return first, why + " and 1 other"
	default:
		return first, why + fmt.Sprintf(" and %d others", n)
	}
}

// sharersCount says how many people shared an item: "1 person", "528 people" (a card's
// "Ada and 527 others").
func sharersCount(n int) string {
	if n == 1 {
		return "shared by 1 person"
	}
	return fmt.Sprintf("shared by %d people", n)
}

// selfText says that the viewer shared an item, first among its sharers: "You shared this",
// "You and 3 others shared this".
func selfText(it tributary.Item) string {
	switch n := max(it.ShareCount, len(it.Sharers)) - 1; n {
	case 0:
		return "You shared this"
	case 1:
		return "You and 1 other shared this"
	default:
		return fmt.Sprintf("You and %d others shared this", n)
	}
}

// sharedAt is when the sharer a card names first shared the item (the item's newest share
// when it names none).
func sharedAt(it tributary.Item) time.Time {
	if len(it.Sharers) > 0 && !it.Sharers[0].At.IsZero() {
		return it.Sharers[0].At
	}
	return it.Date
}

type scorePart struct{ Label, Value string }

// scoreParts lists the non-zero terms of a score for "why am I seeing this".
func scoreParts(p tributary.ScoreParts) []scorePart {
	var out []scorePart
	add := func(label string, v float64) {
		if v != 0 {
			out = append(out, scorePart{label, fmt.Sprintf("+%.2f", v)})
		}
	}
	add("Scientific source", p.Sci)
	add("Shared recently", p.Recency)
	add("Several people you follow shared it", p.FolloweeShare)
	add("Popular", p.TotalShare)
	add("Shared by a VIP", p.VIP)
	add("Notable sharer", p.Notability)
	add("Has a preview", p.RichPost)
	add("You just shared it", p.FreshSelf)
	return out
}

// withParam adds or replaces one query parameter of a local URL.
func withParam(base, key, value string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// NewItemsHref is where a ranked feed's page (base) brings the items that arrived after its
// fencepost.
func NewItemsHref(base, fencepost string) string {
	return withParam(onPath("/feed/new/items", base), "fencepost", fencepost)
}

// onPath moves a local URL's query onto another path.
func onPath(path, base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return path
	}
	u.Path = path
	return u.String()
}

// ActivityVerb says what a followee did to bring an item into a home feed.
func ActivityVerb(a tributary.Activity) string {
	if a.Commented {
		return "commented"
	}
	return "liked this"
}

// plural picks the word for n of something.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
