package tributary

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// User is a member of Tributary.
type User struct {
	ID          int64
	Handle      string
	DisplayName string
	VIP         bool
	Notability  int64 // external follower count
	Private     bool
	CreatedAt   time.Time
	// HomeActivity: their home feed brings in what people they follow liked or commented on.
	HomeActivity bool
	Bio          string // their own words, rendered as a post's text is
	Avatar       string // hash of their avatar's small square ("": none, initials are shown)
	AvatarLarge  string // hash of its large square
}

// UserRef is the part of a user shown beside their posts.
type UserRef struct {
	ID     int64  `json:"id"`
	Handle string `json:"handle"`
	Name   string `json:"name"`
	VIP    bool   `json:"vip"`
	Avatar string `json:"avatar,omitempty"` // hash of their avatar's small square ("": none)
}

// Link is a URL a post links, with its preview image when it has one.
type Link struct {
	URL   string `json:"url"`
	Image string `json:"image,omitempty"`
}

// Post is one share of a URL by one author (its JSON is a chronological feed's entry).
type Post struct {
	ID           int64  `json:"id"`
	AnchorID     int64  `json:"item_id"` // the feed item this post belongs to
	URL          string `json:"url"`
	Title        string `json:"title"`
	Body         string `json:"body"`
	CanonicalURL string `json:"canonical_url"`
	AnchorURL    string `json:"anchor_url"`
	Kind         Kind   `json:"kind"`
	Host         string `json:"host"`
	Links        []Link `json:"links"`
	// Card is what the post's item's link says about itself, once fetched.
	Card       *LinkCard `json:"card,omitempty"`
	ImageCount int       `json:"image_count"`
	Tags       []string  `json:"tags"`
	CreatedAt  time.Time `json:"created_at"`
	Author     UserRef   `json:"author"`
	Talk       Talk      `json:"talk"` // what the viewer sees of its conversation, when read with it
	// Audience is who can see it beyond its author's feed, as its reader's card says (nil:
	// a public share outside groups, or not read with it).
	Audience *Audience `json:"audience,omitempty"`
	// Muted is the viewer's muted word the post has, when the viewer asked to collapse such
	// cards rather than leave them out.
	Muted string `json:"muted,omitempty"`
	// EditedAt is when its author last edited it (nil: never).
	EditedAt *time.Time `json:"edited_at,omitempty"`
}

// Limits of a share.
const (
	TitleMaxLen = 300
	BodyMaxLen  = 5000
	MaxTags     = 10
	TagMaxLen   = 40
	MaxLinks    = 20
)

// NewPost is a share as submitted: by the web form, the importer or the seeder.
type NewPost struct {
	AuthorID  int64
	URL       string
	Title     string
	Body      string
	Links     []Link
	Tags      []string
	CreatedAt time.Time
	// Direct: the post goes as a direct, which is a message: text alone, without a link,
	// is enough.
	Direct bool
}

// Prepared is a NewPost checked and enriched with what the server derives from its URLs.
type Prepared struct {
	NewPost
	Derived
	ImageCount int
	Mentions   []string // the handles the body mentions (lower-cased)
}

// Edit is an author's change to a post's text: its title, text and tags (its link stays).
type Edit struct {
	Title, Body string
	Tags        []string // with the body's #tags
	Mentions    []string // the handles the body mentions (lower-cased)
}

// PrepareEdit validates a post's text, as a share's or an edit's. Errors are user-safe.
func PrepareEdit(title, body string, tags []string) (Edit, error) {
	e := Edit{Title: strings.TrimSpace(title), Body: strings.TrimSpace(body)}
	if utf8.RuneCountInString(e.Title) > TitleMaxLen {
		return Edit{}, FieldErrorf("title", "Title must be at most %d characters long.", TitleMaxLen)
	}
	if utf8.RuneCountInString(e.Body) > BodyMaxLen {
		return Edit{}, FieldErrorf("body", "Comment must be at most %d characters long.", BodyMaxLen)
	}
	tags, err := NormalizeTags(tags)
	if err != nil {
		return Edit{}, err
	}
	// The body's #tags tag the post too, as many as fit.
	for _, t := range Tags(e.Body) {
		if len(tags) < MaxTags && !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	slices.Sort(tags)
	e.Tags, e.Mentions = tags, Mentions(e.Body)
	if e.Tags == nil {
		e.Tags = []string{}
	}
	if e.Mentions == nil {
		e.Mentions = []string{}
	}
	return e, nil
}

// Prepare validates a share and derives its URL fields. Errors are user-safe.
func Prepare(p NewPost) (Prepared, error) {
	p.Title = strings.TrimSpace(p.Title)
	p.Body = strings.TrimSpace(p.Body)
	message := strings.TrimSpace(p.URL) == ""
	if message && !p.Direct {
		return Prepared{}, FieldErrorf("url", "URL is required.")
	}
	if message && p.Body == "" {
		return Prepared{}, FieldErrorf("body", "A direct needs a link or a message.")
	}
	if len(p.Links) > MaxLinks {
		return Prepared{}, FieldErrorf("links", "A post may link at most %d URLs.", MaxLinks)
	}
	e, err := PrepareEdit(p.Title, p.Body, p.Tags)
	if err != nil {
		return Prepared{}, err
	}
	p.Title, p.Body, p.Tags = e.Title, e.Body, e.Tags
	linked := make([]string, len(p.Links))
	images := 0
	for i, l := range p.Links {
		linked[i] = l.URL
		if l.Image != "" {
			images++
		}
	}
	if message {
		return prepareMessage(p, images), nil
	}
	d, err := Derive(p.URL, linked)
	if err != nil {
		return Prepared{}, FieldErrorf("url", "URL is not valid: %s.", reason(err))
	}
	if p.Title == "" {
		p.Title = d.CanonicalURL
	}
	p.URL = d.URL
	return Prepared{NewPost: p, Derived: d, ImageCount: images, Mentions: Mentions(p.Body)}, nil
}

// MessagePrefix begins the item URL of a message (a direct without a link): each message is
// an item of its own, which no shared link can name.
const MessagePrefix = "tributary:message/"

// prepareMessage prepares a direct without a link: its own item, titled by its first line.
func prepareMessage(p NewPost, images int) Prepared {
	p.URL = ""
	if p.Title == "" {
		p.Title = strings.TrimSpace(strings.SplitN(p.Body, "\n", 2)[0])
		if r := []rune(p.Title); len(r) > 80 {
			p.Title = string(r[:80]) + "…"
		}
	}
	item := fmt.Sprintf("%s%d/%d", MessagePrefix, p.AuthorID, p.CreatedAt.UnixNano())
	d := Derived{CanonicalURL: item, AnchorURL: item, Kind: KindWeb, AnchorKind: KindWeb, LinkHosts: []string{}}
	return Prepared{NewPost: p, Derived: d, ImageCount: images, Mentions: Mentions(p.Body)}
}

func reason(err error) string {
	if e, ok := err.(*URLError); ok {
		return e.Reason
	}
	return err.Error()
}

// ParseTags splits a free-text tag list ("ml, #nlp  vision") into tags.
func ParseTags(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
}

// NormalizeTags lower-cases tags, drops '#' and duplicates, and sorts them.
func NormalizeTags(in []string) ([]string, error) {
	seen := map[string]bool{}
	out := []string{}
	for _, t := range in {
		t = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(t), "#"))
		if t == "" || seen[t] {
			continue
		}
		if len(t) > TagMaxLen {
			return nil, FieldErrorf("tags", "Tag %q is longer than %d characters.", t, TagMaxLen)
		}
		for _, r := range t {
			if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.') {
				return nil, FieldErrorf("tags", "Tag %q may use only letters, digits, '-', '_' and '.'.", t)
			}
		}
		seen[t] = true
		out = append(out, t)
	}
	if len(out) > MaxTags {
		return nil, FieldErrorf("tags", "A post may have at most %d tags.", MaxTags)
	}
	sort.Strings(out)
	return out, nil
}
