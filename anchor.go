package tributary

import (
	"maps"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Kind is the kind of resource a URL points to. It decides which URL a post is
// about (see Derive) and backs the ?source= feed filter.
type Kind string

// The kinds of resource, named after where they live.
const (
	KindArxiv       Kind = "arxiv"
	KindHuggingFace Kind = "huggingface"
	KindGitHub      Kind = "github"
	KindOpenReview  Kind = "openreview"
	KindDOI         Kind = "doi"
	KindTweet       Kind = "tweet" // x.com / twitter.com status links
	KindWeb         Kind = "web"   // anything else (blogs, news...)
)

// Kinds lists all kinds in anchor-priority order. It is the whitelist for
// ?source= filters, so a typo in a filter is an error rather than an empty feed.
var Kinds = []Kind{KindArxiv, KindHuggingFace, KindGitHub, KindOpenReview, KindDOI, KindTweet, KindWeb}

// anchorRank orders anchor candidates, best first. It differs from Kinds in one
// place on purpose: a tweet ranks below any web page, so a tweet linking a blog
// post joins that post's item instead of the blog post joining the tweet's.
var anchorRank = []Kind{KindArxiv, KindHuggingFace, KindGitHub, KindOpenReview, KindDOI, KindWeb, KindTweet}

// ParseKind parses a ?source= value. It ignores case and surrounding space
// because people type these by hand.
func ParseKind(s string) (Kind, bool) {
	k := Kind(strings.ToLower(strings.TrimSpace(s)))
	if !slices.Contains(Kinds, k) {
		return "", false
	}
	return k, true
}

// MaxURLLen bounds shared URLs: longer ones are almost always junk or abuse,
// and canonical URLs are stored and indexed.
const MaxURLLen = 2048

// URLError reports why a URL was rejected. Reason is short, lower-case and
// safe to show to the person who typed the URL.
type URLError struct {
	Reason string
}

// Error implements error; the prefix says what failed when the error is logged.
func (e *URLError) Error() string { return "invalid url: " + e.Reason }

func urlErr(reason string) error { return &URLError{Reason: reason} }

// Canonicalize returns the canonical form of a raw URL: the one spelling that
// every shape of a link to the same page maps to, so duplicates can be found
// by string equality. Invalid input yields a *URLError.
func Canonicalize(raw string) (string, error) {
	r, err := resolveOnce(raw)
	return r.canon, err
}

// Derived holds what the server derives from a shared URL and the URLs it links.
type Derived struct {
	URL          string   // the raw URL as shared, trimmed
	CanonicalURL string   // Canonicalize(URL)
	AnchorURL    string   // canonical anchor: highest-priority resource among URL and linked URLs
	Kind         Kind     // kind of the post's own URL (a tweet linking a paper is still a tweet)
	AnchorKind   Kind     // kind of the resource the post is about: the feed's source filter
	Host         string   // host of CanonicalURL without www.
	LinkHosts    []string // distinct hosts of URL + linked urls (canonical, sorted)
	URLCount     int      // number of distinct canonical URLs (URL + linked)
	SciScore     int      // 3: a scientific host is shared or linked, 1: GitHub, 0: neither
}

// Derive computes Derived for a post sharing rawURL and linking linked (e.g. a
// tweet that links a paper). The anchor is the best-ranked resource among all
// of them, so a tweet about a paper lands in the paper's feed item. Invalid
// linked URLs are ignored (they come from scraped pages); an invalid rawURL is
// an error.
func Derive(rawURL string, linked []string) (Derived, error) {
	own, err := resolve(rawURL)
	if err != nil {
		return Derived{}, err
	}
	d := Derived{URL: strings.TrimSpace(rawURL), CanonicalURL: own.canon, Kind: own.kind, Host: own.host, SciScore: own.sci}
	best := own
	seen := map[string]bool{own.canon: true}
	hosts := map[string]bool{own.host: true}
	for _, raw := range linked {
		r, err := resolve(raw)
		if err != nil || seen[r.canon] {
			continue
		}
		seen[r.canon], hosts[r.host] = true, true
		d.SciScore = max(d.SciScore, r.sci)
		// Strictly better only: on a tie the post's own URL, then the first link, wins.
		if slices.Index(anchorRank, r.akind) < slices.Index(anchorRank, best.akind) {
			best = r
		}
	}
	d.AnchorURL, d.AnchorKind = best.anchor, best.akind
	d.LinkHosts = slices.Sorted(maps.Keys(hosts))
	d.URLCount = len(seen)
	return d, nil
}

// resolvedURL is one URL worked out: its canonical form and what it is about.
type resolvedURL struct {
	host   string // canonical host, without port
	canon  string // canonical URL
	kind   Kind   // kind of the URL itself
	anchor string // canonical URL of the resource it is about
	akind  Kind   // kind of that resource; KindWeb for pages that are no resource (user pages, listings)
	sci    int
}

// resolve is resolveOnce with the anchor canonicalized too, so an anchor is a
// fixed point of Canonicalize no matter how a site rule spelled it.
func resolve(raw string) (resolvedURL, error) {
	r, err := resolveOnce(raw)
	if err == nil && r.anchor != r.canon {
		a, err := resolveOnce(r.anchor)
		if err != nil {
			a.canon, r.akind = r.canon, KindWeb
		}
		r.anchor = a.canon
	}
	return r, err
}

func resolveOnce(raw string) (resolvedURL, error) {
	u, err := parseURL(raw)
	if err != nil {
		return resolvedURL{}, err
	}
	kind, akind, anchor := classifyURL(&u)
	canon := u.String()
	if len(canon) > MaxURLLen { // escaping can grow a URL; keep Canonicalize idempotent
		return resolvedURL{}, urlErr(tooLongReason)
	}
	if anchor == "" {
		anchor = canon
	}
	sci := 0
	switch {
	case isSciHost(u.host) || akind == KindArxiv || akind == KindHuggingFace || akind == KindOpenReview || akind == KindDOI:
		sci = 3
	case kind == KindGitHub || akind == KindGitHub:
		sci = 1
	}
	return resolvedURL{host: u.host, canon: canon, kind: kind, anchor: anchor, akind: akind, sci: sci}, nil
}

var tooLongReason = "url is too long (max " + strconv.Itoa(MaxURLLen) + ")"

// canonURL is a URL being canonicalized. Path and query are kept escaped and
// normalized, so every rewrite goes through setPath and stays canonical.
type canonURL struct {
	host  string // lower-case ASCII (punycode), without www. or m.
	port  string // only a non-default port
	path  string // escaped, cleaned, no trailing slash; "" for the root
	query []queryParam
}

type queryParam struct {
	k, v string // escaped
	eq   bool   // "k=" and "k" are kept apart
}

// parseURL validates raw and applies the site-independent normalizations.
func parseURL(raw string) (canonURL, error) {
	raw = strings.TrimSpace(raw)
	switch {
	case raw == "":
		return canonURL{}, urlErr("url is empty")
	case len(raw) > MaxURLLen:
		return canonURL{}, urlErr(tooLongReason)
	case strings.ContainsFunc(raw, unicode.IsControl):
		return canonURL{}, urlErr("url contains control characters")
	}
	// Only web pages: javascript:, data:, ftp: and scheme-less input would be
	// unsafe to render as links or ambiguous to resolve.
	scheme, rest, _ := strings.Cut(raw, "://")
	if s := strings.ToLower(scheme); s != "http" && s != "https" {
		return canonURL{}, urlErr("url must start with http:// or https://")
	}
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	if authority == "" {
		return canonURL{}, urlErr("url has no host")
	}
	if strings.ContainsAny(authority, " \\") {
		return canonURL{}, urlErr("invalid host")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return canonURL{}, urlErr("url is malformed")
	}
	if u.User != nil { // credentials must not be published in a feed
		return canonURL{}, urlErr("url must not contain a user name or password")
	}
	if u.Hostname() == "" {
		return canonURL{}, urlErr("url has no host")
	}
	host, ok := normalizeHost(u.Hostname())
	if !ok {
		return canonURL{}, urlErr("invalid host")
	}
	c := canonURL{host: host}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return canonURL{}, urlErr("invalid port")
		}
		if n != 80 && n != 443 {
			c.port = strconv.Itoa(n)
		}
	}
	c.setPath(u.EscapedPath())
	c.query = parseQuery(u.RawQuery, host)
	return c, nil
}

// hostAliases maps alternative hosts of a site to the one we keep.
var hostAliases = map[string]string{
	"twitter.com": "x.com", "mobile.twitter.com": "x.com", "mobile.x.com": "x.com",
	"fxtwitter.com": "x.com", "vxtwitter.com": "x.com", "fixupx.com": "x.com", "fixvx.com": "x.com",
	"hf.co": "huggingface.co", "dx.doi.org": "doi.org", "export.arxiv.org": "arxiv.org",
}

// nonPublicTLDs never resolve on the public internet; this is a public feed.
var nonPublicTLDs = []string{"localhost", "local", "internal", "test", "invalid", "example", "onion"}

// normalizeHost lower-cases h, converts IDNs to punycode (one spelling per
// host), rejects anything that is not a public DNS name (IPs, localhost), and
// drops www./m. prefixes, which almost always serve the same page.
func normalizeHost(h string) (string, bool) {
	if !utf8.ValidString(h) { // idna would turn the junk into U+FFFD, a real-looking host
		return "", false
	}
	h, err := idna.Lookup.ToASCII(strings.TrimSuffix(h, "."))
	if err != nil || len(h) > 253 {
		return "", false
	}
	if again, err := idna.Lookup.ToASCII(h); err != nil || again != h { // punycode must round-trip
		return "", false
	}
	labels := strings.Split(h, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return "", false
		}
	}
	tld := labels[len(labels)-1]
	if len(labels) < 2 || strings.Trim(tld, "0123456789") == "" || slices.Contains(nonPublicTLDs, tld) {
		return "", false
	}
	for {
		rest, ok := strings.CutPrefix(h, "www.")
		if !ok {
			rest, ok = strings.CutPrefix(h, "m.")
		}
		if !ok || !strings.Contains(rest, ".") {
			break
		}
		h = rest
	}
	if a, ok := hostAliases[h]; ok {
		h = a
	}
	return h, true
}

// setPath stores an escaped path in canonical form: escapes normalized, dot
// segments resolved, duplicate and trailing slashes and index files dropped.
func (c *canonURL) setPath(p string) {
	p = normEscapes(p, false)
	if p == "" || p == "/" {
		c.path = ""
		return
	}
	p = path.Clean("/" + p)
	for {
		q, ok := strings.CutSuffix(p, "/index.html")
		if !ok {
			q, ok = strings.CutSuffix(p, "/index.htm")
		}
		if !ok {
			break
		}
		p = q
	}
	if p == "/" {
		p = ""
	}
	c.path = p
}

func (c *canonURL) segs() []string {
	if c.path == "" {
		return nil
	}
	return strings.Split(c.path[1:], "/")
}

func (c *canonURL) get(key string) string {
	for _, p := range c.query {
		if p.k == key {
			return p.v
		}
	}
	return ""
}

func (c *canonURL) String() string {
	var b strings.Builder
	b.WriteString("https://" + c.host)
	if c.port != "" {
		b.WriteString(":" + c.port)
	}
	b.WriteString(c.path)
	for i, p := range c.query {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString(p.k)
		if p.eq || p.v != "" {
			b.WriteString("=" + p.v)
		}
	}
	return b.String()
}

// parseQuery splits a raw query by hand (url.ParseQuery would drop pairs it
// dislikes and lose escaping), drops tracking parameters and sorts by key, so
// parameter order does not make two URLs differ.
func parseQuery(raw, host string) []queryParam {
	var ps []queryParam
	for part := range strings.SplitSeq(raw, "&") {
		k, v, eq := strings.Cut(part, "=")
		k, v = normEscapes(k, true), normEscapes(v, true)
		if k != "" && !isTracking(strings.ToLower(k), host) {
			ps = append(ps, queryParam{k, v, eq})
		}
	}
	slices.SortStableFunc(ps, func(a, b queryParam) int { return strings.Compare(a.k, b.k) })
	return ps
}

// trackingParams identify the sharer or campaign, never the page.
var trackingParams = map[string]bool{
	"fbclid": true, "gclid": true, "gclsrc": true, "dclid": true, "msclkid": true, "mc_cid": true, "mc_eid": true,
	"igshid": true, "igsh": true, "ref": true, "ref_src": true, "ref_url": true, "si": true, "spm": true,
	"yclid": true, "_hsenc": true, "_hsmi": true, "mkt_tok": true, "__s": true, "vero_id": true, "vero_conv": true,
	"_ga": true, "_gl": true, "gbraid": true, "wbraid": true, "twclid": true, "ttclid": true, "li_fat_id": true,
	"srsltid": true,
}

func isTracking(k, host string) bool {
	for _, p := range []string{"utm_", "oly_", "trk", "pk_", "mtm_", "hsa_"} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	// x.com's share-sheet adds s (client) and t (sharer); elsewhere they may matter.
	return trackingParams[k] || (host == "x.com" && (k == "s" || k == "t"))
}

// normEscapes makes escaping canonical: unreserved bytes decoded, everything
// else not allowed raw escaped with upper-case hex, stray '%' escaped.
func normEscapes(s string, query bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			c = hexValue(s[i+1])<<4 | hexValue(s[i+2])
			i += 2
			if !isUnreserved(c) {
				writeEscape(&b, c)
				continue
			}
		} else if !isUnreserved(c) && !strings.ContainsRune("!$&'()*+,;=:@/", rune(c)) && (!query || c != '?') {
			writeEscape(&b, c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// escapePath escapes an unescaped path (one that may contain a literal '%').
func escapePath(s string) string {
	return normEscapes(strings.ReplaceAll(s, "%", "%25"), false)
}

func writeEscape(b *strings.Builder, c byte) {
	const hex = "0123456789ABCDEF"
	b.Write([]byte{'%', hex[c>>4], hex[c&15]})
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func hexValue(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
