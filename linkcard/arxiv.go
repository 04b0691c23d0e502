package linkcard

import (
	"context"
	"encoding/xml"
	"errors"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// arXiv is read from the abs page first: one request gives the citation_* tags (title,
// authors, date, id, abstract) and the page's image and site name. When the page carries no
// citation tags (arXiv changed its markup, or answered a robot's page) or fails, the arXiv
// API (export.arxiv.org, Atom) is asked for the paper instead.

var arxivPath = regexp.MustCompile(`^/(?:abs|pdf|html)/([a-z\-.]*/?[0-9.]+(?:v[0-9]+)?)(?:\.pdf)?/?$`)

// ArxivAPI is the arXiv API's query endpoint; an id_list parameter names the paper.
const ArxivAPI = "https://export.arxiv.org/api/query"

// readArxiv reads a paper's abs page, whatever form of link was shared, falling back on the
// API for what the page does not say.
func readArxiv(ctx context.Context, f *Fetcher, u *url.URL) (Card, error) {
	m := arxivPath.FindStringSubmatch(u.Path)
	if m == nil { // not a paper (a listing, a search): a plain page
		c, err := f.readPage(ctx, u.String())
		c.SiteName = firstOf(c.SiteName, "arXiv")
		return c, err
	}
	abs := *u
	abs.Path, abs.RawQuery, abs.Fragment = "/abs/"+m[1], "", ""
	c, err := f.readPage(ctx, abs.String())
	if err == nil && c.Abstract != "" && len(c.Authors) > 0 {
		c.SiteName = firstOf(c.SiteName, "arXiv")
		c.Kind = KindPaper
		return c, nil
	}
	if err != nil && !arxivAPIHelps(err) {
		return Card{}, err
	}
	api, apiErr := f.readArxivAPI(ctx, m[1])
	if apiErr != nil {
		if err != nil {
			return Card{}, err // the page's failure says more than the API's
		}
		c.SiteName = firstOf(c.SiteName, "arXiv")
		return c, nil
	}
	// The API's fields are the paper's; the page (if any) adds its image and names.
	api.ImageURL, api.ImageAlt = c.ImageURL, c.ImageAlt
	api.SiteName = firstOf(c.SiteName, api.SiteName)
	api.Description = c.Description
	api.Language = firstOf(c.Language, api.Language)
	return api, nil
}

// arxivAPIHelps says whether the API may answer for a page that failed with err: not when
// the fetch was refused or canceled, which would refuse or cancel the API's too.
func arxivAPIHelps(err error) bool {
	switch ReasonOf(err) {
	case ReasonStatus, ReasonNotHTML, ReasonTooLarge, ReasonBadBody, ReasonTimeout, ReasonUnreachable:
		return true
	}
	return false
}

// arxivFeed is the part of the API's Atom answer a card keeps.
type arxivFeed struct {
	Entries []struct {
		ID        string `xml:"id"`
		Title     string `xml:"title"`
		Summary   string `xml:"summary"`
		Published string `xml:"published"`
		Authors   []struct {
			Name string `xml:"name"`
		} `xml:"author"`
	} `xml:"entry"`
}

// readArxivAPI asks the arXiv API for the paper id (e.g. 2401.00001v2 or hep-th/9901001).
func (f *Fetcher) readArxivAPI(ctx context.Context, id string) (Card, error) {
	q := ArxivAPI + "?" + url.Values{"id_list": {id}, "max_results": {"1"}}.Encode()
	r, err := f.get(ctx, q, "application/atom+xml", f.cfg.MaxJSON, false)
	if err != nil {
		return Card{}, err
	}
	var feed arxivFeed
	if err := xml.Unmarshal(r.body, &feed); err != nil {
		return Card{}, fail(ReasonBadBody, q, err)
	}
	// An unknown id answers no entry, or (older API) an entry whose id is an error's.
	if len(feed.Entries) == 0 || strings.Contains(feed.Entries[0].ID, "/api/errors") {
		return Card{}, fail(ReasonStatus, q, errors.New("arXiv API: no such paper"))
	}
	e := feed.Entries[0]
	c := Card{
		Title:        clean(e.Title, maxTitle),
		Abstract:     clean(e.Summary, maxAbstract),
		SiteName:     "arXiv",
		CanonicalURL: "https://arxiv.org/abs/" + id,
		Kind:         KindPaper,
	}
	if t, err := time.Parse(time.RFC3339, strings.TrimSpace(e.Published)); err == nil {
		c.Published = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
	for _, a := range e.Authors {
		c.Authors = append(c.Authors, a.Name)
	}
	c.Authors = cleanAll(c.Authors)
	if c.Title == "" {
		return Card{}, fail(ReasonBadBody, q, errors.New("arXiv API: entry without a title"))
	}
	return c, nil
}
