package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"tributary"
	"tributary/db"
	"tributary/images"
	"tributary/linkcard"
)

// fetchFlags are the link-card fetcher's settings.
type fetchFlags struct {
	mode      string // on, off or mapped
	connectTo []string
	ca        string
	contact   string
}

func (f *fetchFlags) register(fs *flag.FlagSet, e *env) {
	fs.StringVar(&f.mode, "fetch", e.envOr("TRIBUTARY_FETCH", "on"),
		"fetch link cards: on, off (air-gapped installs) or mapped (only hosts a --fetch-connect-to rule names; for tests and mirrors) (env TRIBUTARY_FETCH)")
	if env := e.getenv("TRIBUTARY_FETCH_CONNECT_TO"); env != "" {
		f.connectTo = strings.Split(env, ",")
	}
	fs.Func("fetch-connect-to", "HOST:PORT:ADDR:PORT2: connect to ADDR:PORT2 for HOST:PORT, as curl's --connect-to (repeatable; env TRIBUTARY_FETCH_CONNECT_TO, comma-separated); only such a rule may reach a loopback or private address",
		func(s string) error { f.connectTo = append(f.connectTo, s); return nil })
	fs.StringVar(&f.ca, "fetch-ca", e.getenv("TRIBUTARY_FETCH_CA"), "a PEM file of extra root certificates the fetcher trusts (env TRIBUTARY_FETCH_CA)")
	fs.StringVar(&f.contact, "fetch-contact", e.getenv("TRIBUTARY_FETCH_CONTACT"), "a URL where a site's operator learns about this instance's fetcher, named in its User-Agent (env TRIBUTARY_FETCH_CONTACT)")
}

// fetcher returns the link-card fetcher the flags ask for, nil when fetching is off.
func (f *fetchFlags) fetcher(store *db.Store, log *slog.Logger) (db.CardFetcher, error) {
	switch f.mode {
	case "off":
		return nil, nil
	case "on", "mapped":
	default:
		return nil, fmt.Errorf("--fetch: want on, off or mapped, got %q", f.mode)
	}
	var rules []linkcard.ConnectTo
	for _, s := range f.connectTo {
		r, err := linkcard.ParseConnectTo(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("--fetch-connect-to %q: %w", s, err)
		}
		rules = append(rules, r)
	}
	lf, err := linkcard.New(linkcard.Config{Contact: f.contact, ConnectTo: rules, ExtraCA: f.ca,
		Politeness: hostSchedule{store}})
	if err != nil {
		return nil, fmt.Errorf("--fetch: %w", err)
	}
	c := &cardFetcher{f: lf, store: store, log: log}
	if f.mode == "mapped" {
		c.only = rules
		if len(rules) == 0 {
			c.only = []linkcard.ConnectTo{} // nothing is fetched
		}
	}
	return c, nil
}

// hostSchedule spaces requests to each host across every instance (the database keeps the
// schedule). A job takes only a turn that is about due and leaves a later one to a later try
// (its worker is free meanwhile, and no turn is held ahead of a preview); a preview goes at
// once on hosts that ask for no more than the default spacing, and waits its turn on those
// that ask for more (arXiv).
type hostSchedule struct{ store *db.Store }

// jobTurnWithin is how far away a turn a job waits for its first request; the requests
// after it (a redirect, the card's image) wait up to followUpWithin, so a job that started
// finishes.
const jobTurnWithin, followUpWithin = 250 * time.Millisecond, 5 * time.Second

// turnsKey holds whether a fetch took its first turn (cardFetcher.FetchCard).
type turnsKey struct{}

func (h hostSchedule) Wait(ctx context.Context, host string) error {
	host = strings.TrimPrefix(strings.ToLower(host), "www.")
	every := linkcard.IntervalFor(host)
	switch {
	case db.Previewing(ctx) && every <= linkcard.DefaultInterval:
		return h.store.HostTurnNow(ctx, host, every)
	case db.Previewing(ctx):
		return h.store.HostSlot(ctx, host, every, 5*time.Second) // the preview's deadline bounds it
	default:
		most := jobTurnWithin
		if started, ok := ctx.Value(turnsKey{}).(*atomic.Bool); !ok || started.Swap(true) {
			most = followUpWithin
		}
		return h.store.HostSlot(ctx, host, every, most)
	}
}

// cardFetcher fetches an item's card for the durable job: the page through linkcard, and its
// image through the image pipeline into the database, so readers load it from this site.
type cardFetcher struct {
	f     *linkcard.Fetcher
	store *db.Store
	log   *slog.Logger
	only  []linkcard.ConnectTo // non-nil: fetch only the hosts these rules name
}

// maxImage is the most of an image fetched; the pipeline refuses more anyway.
const maxImage = 5 << 20

func (c *cardFetcher) FetchCard(ctx context.Context, raw string) (tributary.LinkCard, error) {
	if c.only != nil && !c.mapped(raw) {
		return tributary.LinkCard{}, &db.CardError{Reason: "not mapped", Permanent: true}
	}
	ctx = context.WithValue(ctx, turnsKey{}, new(atomic.Bool))
	card, err := c.f.Fetch(ctx, raw)
	if err != nil {
		return tributary.LinkCard{}, cardError(err)
	}
	lc := tributary.LinkCard{Kind: string(card.Kind), Title: card.Title, Description: card.Description,
		Site: card.SiteName, Canonical: card.CanonicalURL, ImageAlt: card.ImageAlt, Authors: card.Authors,
		Abstract: card.Abstract, Published: card.Published, Lang: card.Language}
	if card.RepoLanguage != "" {
		lc.Description = strings.TrimSpace(strings.TrimSuffix(lc.Description, ".") + " · " + card.RepoLanguage)
	}
	if card.ImageURL != "" && (c.only == nil || c.mapped(card.ImageURL)) {
		img, err := c.image(ctx, card.ImageURL)
		if err != nil {
			c.log.Info("link card: image not kept", "url", card.ImageURL, "err", err)
		} else {
			lc.Image = img
		}
	}
	return lc, nil
}

// image fetches, checks and re-encodes an image and stores it; it returns its path here.
func (c *cardFetcher) image(ctx context.Context, raw string) (string, error) {
	b, err := c.f.FetchImage(ctx, raw, maxImage)
	if err != nil {
		return "", err
	}
	img, err := images.Card(b)
	if err != nil {
		return "", err
	}
	if err := c.store.PutImages(ctx, img); err != nil {
		return "", err
	}
	return img.Path(), nil
}

// mapped reports whether a connect-to rule names the URL's host.
func (c *cardFetcher) mapped(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	for _, r := range c.only {
		if r.Matches(net.JoinHostPort(u.Hostname(), port)) {
			return true
		}
	}
	return false
}

// cardError says whether a failed fetch is worth trying again, and when.
func cardError(err error) error {
	var busy *db.HostBusy
	if errors.As(err, &busy) {
		return busy
	}
	var le *linkcard.Error
	if !errors.As(err, &le) {
		return err
	}
	if le.RetryAfter > 0 {
		return &db.HostBusy{Until: time.Now().Add(le.RetryAfter)}
	}
	switch le.Reason {
	case linkcard.ReasonBadURL, linkcard.ReasonRefused, linkcard.ReasonNotHTML, linkcard.ReasonLoop, linkcard.ReasonRedirects:
		return &db.CardError{Reason: string(le.Reason), Permanent: true}
	case linkcard.ReasonStatus:
		return &db.CardError{Reason: fmt.Sprintf("%s %d", le.Reason, le.Status), Permanent: le.Status == 404 || le.Status == 410}
	}
	return &db.CardError{Reason: string(le.Reason)}
}
