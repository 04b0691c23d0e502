// Package linkcard fetches what a shared link says about itself (title,
// authors, abstract, image...) as a Card, safely: it is the site's outbound
// HTTP boundary, refusing internal addresses at connect time, and reads each
// site from its best source through one registry of per-host readers.
package linkcard

import (
	"strings"
	"time"

	"tributary"
)

// Kind is what a card describes.
type Kind string

// The kinds of card.
const (
	KindPaper   Kind = "paper"
	KindRepo    Kind = "repo"
	KindModel   Kind = "model"
	KindDataset Kind = "dataset"
	KindArticle Kind = "article"
	KindPage    Kind = "page"
)

// Card is what a link says about itself. Empty fields are unknown.
type Card struct {
	Title        string
	Description  string
	SiteName     string
	CanonicalURL string
	ImageURL     string // absolute http(s) URL, to be fetched with FetchImage
	ImageAlt     string
	Published    time.Time
	Language     string // the page's language, e.g. "en"
	Authors      []string
	Abstract     string
	Kind         Kind
	RepoLanguage string // a repository's main programming language
	// Truncated says the page passed the HTML cap and was read from its start only.
	Truncated bool
}

// Canonical returns the canonical form of a URL, as anchors use it; a URL
// that does not canonicalize comes back trimmed.
func Canonical(raw string) string {
	c, err := tributary.Canonicalize(raw)
	if err != nil {
		return strings.TrimSpace(raw)
	}
	return c
}
