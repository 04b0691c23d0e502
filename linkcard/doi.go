package linkcard

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// cslItem is the part of a CSL-JSON record (Crossref, DataCite) a card keeps.
type cslItem struct {
	Type           string    `json:"type"`
	Title          any       `json:"title"` // a string, or an array of them
	ContainerTitle any       `json:"container-title"`
	Publisher      string    `json:"publisher"`
	Abstract       string    `json:"abstract"` // JATS XML at Crossref
	Author         []cslName `json:"author"`
	Issued         cslDate   `json:"issued"`
	Published      cslDate   `json:"published"`
	DOI            string    `json:"DOI"`
	Language       string    `json:"language"`
	URL            string    `json:"URL"`
}

type cslName struct {
	Family  string `json:"family"`
	Given   string `json:"given"`
	Literal string `json:"literal"`
	Name    string `json:"name"`
}

type cslDate struct {
	DateParts [][]any `json:"date-parts"`
}

// time reads [[year, month, day]], each part a number or a string.
func (d cslDate) time() time.Time {
	if len(d.DateParts) == 0 || len(d.DateParts[0]) == 0 {
		return time.Time{}
	}
	var n [3]int
	n[1], n[2] = 1, 1
	for i, p := range d.DateParts[0] {
		if i > 2 {
			break
		}
		fmt.Sscan(fmt.Sprint(p), &n[i])
	}
	if n[0] < 1 || n[1] < 1 || n[1] > 12 || n[2] < 1 || n[2] > 31 {
		return time.Time{}
	}
	return time.Date(n[0], time.Month(n[1]), n[2], 0, 0, 0, 0, time.UTC)
}

// CSLAccept asks doi.org for CSL-JSON, which Crossref and DataCite both answer.
const CSLAccept = "application/vnd.citationstyles.csl+json"

// readDOI asks doi.org for the DOI's CSL-JSON record rather than reading
// the publisher's landing page, which is often closed to robots.
func readDOI(ctx context.Context, f *Fetcher, u *url.URL) (Card, error) {
	var it cslItem
	if err := f.getJSON(ctx, u.String(), CSLAccept, &it); err != nil {
		return Card{}, err
	}
	c := Card{
		Title:    clean(ldString(it.Title), maxTitle),
		SiteName: clean(firstOf(ldString(it.ContainerTitle), it.Publisher), maxShort),
		Abstract: clean(stripTags(it.Abstract), maxAbstract),
		Language: clean(it.Language, maxShort),
		Kind:     KindPaper,
	}
	c.Published = it.Issued.time()
	if c.Published.IsZero() {
		c.Published = it.Published.time()
	}
	if it.DOI != "" {
		c.CanonicalURL = "https://doi.org/" + strings.ToLower(it.DOI)
	} else {
		c.CanonicalURL = u.String()
	}
	for _, a := range it.Author {
		c.Authors = append(c.Authors, firstOf(strings.TrimSpace(a.Given+" "+a.Family), a.Literal, a.Name))
	}
	c.Authors = cleanAll(c.Authors)
	switch strings.ToLower(it.Type) {
	case "dataset":
		c.Kind = KindDataset
	case "software":
		c.Kind = KindRepo
	}
	return c, nil
}
