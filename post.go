package tributary

import (
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
}

// UserRef is the part of a user shown beside their posts.
type UserRef struct {
	ID     int64  `json:"id"`
	Handle string `json:"handle"`
	Name   string `json:"name"`
	VIP    bool   `json:"vip"`
}

// Link is a URL a post links, with its preview image when it has one.
type Link struct {
	URL   string `json:"url"`
	Image string `json:"image,omitempty"`
}

// Post is one share of a URL by one author (its JSON is a chronological feed's entry).
type Post struct {
	ID           int64     `json:"id"`
	AnchorID     int64     `json:"item_id"` // the feed item this post belongs to
	URL          string    `json:"url"`
	Title        string    `json:"title"`
	Body         string    `json:"body"`
	CanonicalURL string    `json:"canonical_url"`
	AnchorURL    string    `json:"anchor_url"`
	Kind         Kind      `json:"kind"`
	Host         string    `json:"host"`
	Links        []Link    `json:"links"`
	ImageCount   int       `json:"image_count"`
	Tags         []string  `json:"tags"`
	CreatedAt    time.Time `json:"created_at"`
	Author       UserRef   `json:"author"`
	Talk         Talk      `json:"talk"` // what the viewer sees of its conversation, when read with it
	// Audience is who can see it beyond its author's feed, as its reader's card says (nil:
	// a public share outside groups, or not read with it).
	Audience *Audience `json:"audience,omitempty"`
	// Muted is the viewer's muted word the post has, when the viewer asked to collapse such
	// cards rather than leave them out.
	Muted string `json:"muted,omitempty"`
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
}

// Prepared is a NewPost checked and enriched with what the server derives from its URLs.
type Prepared struct {
	NewPost
	Derived
	ImageCount int
	Mentions   []string // the handles the body mentions (lower-cased)
}

// Prepare validates a share and derives its URL fields. Errors are user-safe.
func Prepare(p NewPost) (Prepared, error) {
	p.Title = strings.TrimSpace(p.Title)
	p.Body = strings.TrimSpace(p.Body)
	if strings.TrimSpace(p.URL) == "" {
		return Prepared{}, FieldErrorf("url", "URL is required.")
	}
	if utf8.RuneCountInString(p.Title) > TitleMaxLen {
		return Prepared{}, FieldErrorf("title", "Title must be at most %d characters long.", TitleMaxLen)
	}
	if utf8.RuneCountInString(p.Body) > BodyMaxLen {
		return Prepared{}, FieldErrorf("body", "Comment must be at most %d characters long.", BodyMaxLen)
	}
	if len(p.Links) > MaxLinks {
		return Prepared{}, FieldErrorf("links", "A post may link at most %d URLs.", MaxLinks)
	}
	tags, err := NormalizeTags(p.Tags)
	if err != nil {
		return Prepared{}, err
	}
	// The body's #tags tag the post too, as many as fit.
	for _, t := range Tags(p.Body) {
		if len(tags) < MaxTags && !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	slices.Sort(tags)
	p.Tags = tags
	linked := make([]string, len(p.Links))
	images := 0
	for i, l := range p.Links {
		linked[i] = l.URL
		if l.Image != "" {
			images++
		}
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
