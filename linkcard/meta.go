package linkcard

import (
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// oembed is the part of an oEmbed JSON answer a card keeps. Its html field,
// for rich and video types, is never read: it is third-party markup.
type oembed struct {
	Type         string `json:"type"`
	Title        string `json:"title"`
	AuthorName   string `json:"author_name"`
	ProviderName string `json:"provider_name"`
	ThumbnailURL string `json:"thumbnail_url"`
	URL          string `json:"url"` // the image, for type photo
}

// Lengths a card keeps, in runes.
const (
	maxTitle       = 300
	maxDescription = 1000
	maxAbstract    = 10000
	maxShort       = 200 // names, site, language
	maxAuthors     = 100
)

// buildCard weighs what a page says in the order of trust: citation_* tags
// (the scholarly publishers' convention), oEmbed, JSON-LD, OpenGraph and
// Twitter tags, then <title> and the meta description. base resolves
// relative URLs; oe and ld may be nil.
func buildCard(p *page, oe *oembed, ld *ldThing, base *url.URL) Card {
	if oe == nil {
		oe = &oembed{}
	}
	if ld == nil {
		ld = &ldThing{}
	}
	oeImage := oe.ThumbnailURL
	if oe.Type == "photo" {
		oeImage = firstOf(oe.URL, oe.ThumbnailURL)
	}
	c := Card{
		Title: clean(firstOf(p.first("citation_title"), oe.Title, ld.name, p.first("og:title"),
			p.first("twitter:title"), p.title, p.h1), maxTitle),
		Description: clean(firstOf(ld.description, p.first("og:description"), p.first("twitter:description"),
			p.first("description")), maxDescription),
		SiteName: clean(firstOf(oe.ProviderName, p.first("og:site_name"), ld.publisher,
			p.first("application-name")), maxShort),
		CanonicalURL: absURL(base, firstOf(p.canonical, p.first("og:url"), ld.url, base.String())),
		ImageURL: absURL(base, firstOf(oeImage, ld.image, p.first("og:image", "og:image:url", "og:image:secure_url"),
			p.first("twitter:image", "twitter:image:src"))),
		ImageAlt:     clean(firstOf(ld.imageAlt, p.first("og:image:alt"), p.first("twitter:image:alt")), maxDescription),
		Published:    parseDate(firstOf(p.first("citation_publication_date", "citation_date", "citation_online_date"), ld.published, p.first("article:published_time", "datepublished"))),
		Language:     clean(firstOf(p.lang, ld.language, strings.ReplaceAll(p.first("og:locale"), "_", "-")), maxShort),
		Abstract:     clean(stripTags(firstOf(p.first("citation_abstract"), ld.abstract)), maxAbstract),
		RepoLanguage: clean(ld.progLang, maxShort),
		Kind:         KindPage,
	}
	switch {
	case len(p.meta["citation_author"]) > 0:
		for _, a := range p.meta["citation_author"] {
			c.Authors = append(c.Authors, givenFamily(a))
		}
	case oe.AuthorName != "":
		c.Authors = []string{oe.AuthorName}
	case len(ld.authors) > 0:
		c.Authors = ld.authors
	case p.first("author") != "":
		c.Authors = []string{p.first("author")}
	}
	c.Authors = cleanAll(c.Authors)
	for _, ty := range ld.types {
		if k, ok := ldKind[ty]; ok {
			c.Kind = k
			break
		}
	}
	switch {
	case p.first("citation_title") != "":
		c.Kind = KindPaper
	case c.Kind == KindPage && strings.EqualFold(p.first("og:type"), "article"):
		c.Kind = KindArticle
	}
	return c
}

var space = regexp.MustCompile(`\s+`)

// clean makes text fit for a card: valid UTF-8, one space between words,
// at most max runes.
func clean(s string, max int) string {
	s = strings.TrimSpace(space.ReplaceAllString(strings.ToValidUTF8(s, ""), " "))
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:max-1])) + "…"
}

func cleanAll(names []string) []string {
	var out []string
	for _, n := range names {
		if n = clean(n, maxShort); n != "" && len(out) < maxAuthors {
			out = append(out, n)
		}
	}
	return out
}

var tag = regexp.MustCompile(`<[^>]*>`)

// stripTags drops markup from abstracts (Crossref's are JATS XML).
func stripTags(s string) string {
	s = tag.ReplaceAllString(s, " ")
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&quot;", `"`, "&#39;", "'").Replace(s)
}

// givenFamily turns citation_author's "Family, Given" into "Given Family".
func givenFamily(name string) string {
	family, given, ok := strings.Cut(name, ",")
	if !ok || strings.TrimSpace(given) == "" {
		return name
	}
	return strings.TrimSpace(given) + " " + strings.TrimSpace(family)
}

// absURL resolves ref against base; anything but an absolute http(s) URL yields "".
func absURL(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" || len(ref) > 2048 {
		return ""
	}
	u, err := base.Parse(ref)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

// parseDate reads the date layouts pages use; "" and the unreadable give zero.
func parseDate(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02", "2006/01/02", "2006-01", "2006/01", "2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
