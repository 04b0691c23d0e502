package tributary

import (
	"strings"
	"time"
	"unicode/utf8"
)

// LinkCard is what a shared link's page says about itself, fetched once per item in the
// background: its title and summary, its site, a preview image served by Tributary itself,
// and for papers their authors and abstract.
type LinkCard struct {
	Kind        string    `json:"kind,omitempty"` // paper, repository, model, dataset, article or page
	Title       string    `json:"title,omitempty"`
	Description string    `json:"description,omitempty"`
	Site        string    `json:"site,omitempty"`
	Canonical   string    `json:"canonical_url,omitempty"`
	Image       string    `json:"image,omitempty"` // a path on this site, never a third party's URL
	ImageAlt    string    `json:"image_alt,omitempty"`
	Authors     []string  `json:"authors,omitempty"`
	Abstract    string    `json:"abstract,omitempty"`
	Published   time.Time `json:"published,omitzero"`
	Lang        string    `json:"lang,omitempty"`
}

// Limits of what a card keeps of a page.
const (
	CardTitleMax       = 300
	CardDescriptionMax = 1000
	CardAbstractMax    = 5000
	CardAuthorsMax     = 100
)

// Clean trims a fetched card to its limits, so that no page can make a card of any size.
func (c LinkCard) Clean() LinkCard {
	c.Kind = clip(c.Kind, 20)
	c.Title = clip(c.Title, CardTitleMax)
	c.Description = clip(c.Description, CardDescriptionMax)
	c.Site = clip(c.Site, 100)
	c.Canonical = clip(c.Canonical, 2000)
	c.ImageAlt = clip(c.ImageAlt, 300)
	c.Abstract = clip(c.Abstract, CardAbstractMax)
	c.Lang = clip(c.Lang, 20)
	var authors []string
	for _, a := range c.Authors {
		if a = clip(a, 100); a != "" && len(authors) < CardAuthorsMax {
			authors = append(authors, a)
		}
	}
	c.Authors = authors
	return c
}

// AuthorLine names a paper's first three authors, then "et al.".
func (c LinkCard) AuthorLine() string {
	switch n := len(c.Authors); {
	case n == 0:
		return ""
	case n <= 3:
		return strings.Join(c.Authors, ", ")
	default:
		return strings.Join(c.Authors[:3], ", ") + " et al."
	}
}

// Summary is what a card shows under its title: the first lines of a paper's abstract, else
// the page's description, cut at a word to at most n characters.
func (c LinkCard) Summary(n int) string {
	s := c.Abstract
	if s == "" {
		s = c.Description
	}
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	if i := strings.LastIndexByte(string(r), ' '); i > n/2 {
		return string(r)[:i] + "…"
	}
	return string(r) + "…"
}

// clip trims s and cuts it to at most n characters.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return strings.TrimSpace(string([]rune(s)[:n]))
}
