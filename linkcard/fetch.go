package linkcard

import (
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// Fetch returns what the page at rawURL says about itself, read by the
// registry's reader for its host or, for other hosts, from its HTML.
// Every error is an *Error.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (Card, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return Card{}, fail(ReasonBadURL, rawURL, err)
	}
	if err := f.checkURL(u); err != nil {
		return Card{}, err
	}
	read := readerFor(u)
	c, err := read(ctx, f, u)
	if err != nil {
		return Card{}, err
	}
	c.CanonicalURL = Canonical(c.CanonicalURL)
	return c, nil
}

// readerFor returns the registry's reader for u, or the plain page reader.
func readerFor(u *url.URL) func(context.Context, *Fetcher, *url.URL) (Card, error) {
	for _, r := range readers {
		if r.match(u) {
			return r.read
		}
	}
	return func(ctx context.Context, f *Fetcher, u *url.URL) (Card, error) {
		return f.readPage(ctx, u.String())
	}
}

// readPage fetches an HTML page and weighs what it says, fetching its
// oEmbed JSON if it names one. A page past the HTML cap is read from its
// start; if that start names no title the page counts as too large.
func (f *Fetcher) readPage(ctx context.Context, rawURL string) (Card, error) {
	r, err := f.get(ctx, rawURL, "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1", f.cfg.MaxHTML, true)
	if err != nil {
		return Card{}, err
	}
	ct := r.contentType
	if ct == "" {
		ct = http.DetectContentType(r.body)
	}
	if mt, _, _ := mime.ParseMediaType(ct); mt != "text/html" && mt != "application/xhtml+xml" {
		return Card{}, fail(ReasonNotHTML, rawURL, errors.New(mt))
	}
	p := parsePage(decodeHTML(r.body, ct))
	var oe *oembed
	if href := absURL(r.url, p.oembed); href != "" {
		var o oembed
		// oEmbed is a bonus: a provider that fails leaves the page's own tags.
		if f.getJSON(ctx, href, "application/json", &o) == nil {
			oe = &o
		}
	}
	c := buildCard(p, oe, parseJSONLD(p.jsonLD), r.url)
	if r.capped {
		if c.Title == "" {
			return Card{}, fail(ReasonTooLarge, rawURL, errors.New("no title before the cap"))
		}
		c.Truncated = true
	}
	return c, nil
}

// getJSON fetches a JSON document of at most MaxJSON bytes into v.
func (f *Fetcher) getJSON(ctx context.Context, rawURL, accept string, v any) error {
	r, err := f.get(ctx, rawURL, accept, f.cfg.MaxJSON, false)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(r.body, v); err != nil {
		return fail(ReasonBadBody, rawURL, err)
	}
	return nil
}
