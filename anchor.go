package tributary

import (
	"maps"
	"net/url"
	"path"
	"regexp"
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

// classifyURL applies the site rules: it rewrites c into the site's canonical
// shape and says what c is (kind) and which resource it is about (akind,
// anchor; anchor "" means c itself).
func classifyURL(c *canonURL) (kind, akind Kind, anchor string) {
	s := c.segs()
	switch h := c.host; {
	case h == "arxiv.org" || h == "alphaxiv.org":
		if len(s) >= 2 && arxivViews[s[0]] {
			if id := arxivID(s[1:]); id != "" {
				if h != "arxiv.org" { // a mirror keeps its URL but anchors to arXiv
					return KindArxiv, KindArxiv, "https://arxiv.org/abs/" + id
				}
				c.setPath("/abs/" + id) // pdf, html and versions are one paper
				c.query = nil
				return KindArxiv, KindArxiv, ""
			}
		}
		return KindArxiv, KindWeb, ""
	case h == "huggingface.co":
		return huggingFaceRule(s)
	case h == "github.com":
		return gitHubRule(c, s)
	case h == "raw.githubusercontent.com" && len(s) >= 2:
		return KindGitHub, KindGitHub, "https://github.com/" + s[0] + "/" + s[1]
	case h == "openreview.net":
		if id := c.get("id"); len(s) == 1 && (s[0] == "forum" || s[0] == "pdf") && id != "" {
			c.setPath("/forum") // the PDF and the forum are one submission; noteId is a comment
			c.query = []queryParam{{"id", id, true}}
			return KindOpenReview, KindOpenReview, ""
		}
		return KindOpenReview, KindWeb, ""
	case h == "doi.org":
		if doi := unescapeAll(s); doiFull.MatchString(doi) {
			c.setPath("/" + escapePath(strings.ToLower(doi))) // DOIs are case-insensitive
			c.query = nil
			return KindDOI, KindDOI, ""
		}
	case h == "x.com":
		return tweetRule(c, s)
	case h == "t.co" || h == "pic.x.com" || h == "pic.twitter.com":
		return KindWeb, KindTweet, "" // shorteners and media never make a good anchor
	case h == "youtube.com" || h == "youtu.be":
		youTubeRule(c, s)
	case isSciHost(h):
		if doi := publisherDOI(c, s); doi != "" {
			return KindDOI, KindDOI, "https://doi.org/" + escapePath(doi)
		}
	}
	return KindWeb, KindWeb, ""
}

var (
	arxivViews = map[string]bool{"abs": true, "pdf": true, "html": true, "format": true, "ps": true, "src": true, "overview": true}
	arxivNewID = regexp.MustCompile(`^(?i:arxiv:)?(\d{4}\.\d{4,5})(?:v\d+)?(?:\.pdf)?$`)
	arxivOldID = regexp.MustCompile(`^(?i:arxiv:)?([a-z][a-z-]*)(?:\.[A-Za-z]{2})?/(\d{7})(?:v\d+)?(?:\.pdf)?$`)
)

// arxivID finds the version-less arXiv id at the start of s: 2401.12345v3 or
// old-style hep-th/9901001 (the math.GT-style subject class is not part of the id).
func arxivID(s []string) string {
	if m := arxivNewID.FindStringSubmatch(s[0]); m != nil {
		return m[1]
	}
	if len(s) >= 2 {
		if m := arxivOldID.FindStringSubmatch(s[0] + "/" + s[1]); m != nil {
			return m[1] + "/" + m[2]
		}
	}
	return ""
}

// hfReserved are first path segments of huggingface.co that are not users or orgs.
var hfReserved = map[string]bool{
	"models": true, "datasets": true, "spaces": true, "papers": true, "docs": true, "blog": true, "learn": true,
	"posts": true, "collections": true, "organizations": true, "settings": true, "pricing": true, "join": true,
	"login": true, "api": true, "tasks": true, "chat": true, "enterprise": true, "new": true, "search": true,
}

// huggingFaceRule anchors files and views of a model, dataset or space to the
// repo itself, and paper pages to the arXiv paper they present.
func huggingFaceRule(s []string) (kind, akind Kind, anchor string) {
	const base = "https://huggingface.co/"
	switch {
	case len(s) >= 2 && s[0] == "papers":
		if id := arxivID(s[1:2]); id != "" { // HF paper pages are arXiv papers
			return KindHuggingFace, KindArxiv, "https://arxiv.org/abs/" + id
		}
	case len(s) >= 3 && (s[0] == "datasets" || s[0] == "spaces"):
		return KindHuggingFace, KindHuggingFace, base + strings.Join(s[:3], "/")
	case len(s) >= 2 && !hfReserved[s[0]]: // a model; tree/blob/resolve are files of it
		return KindHuggingFace, KindHuggingFace, base + s[0] + "/" + s[1]
	}
	return KindHuggingFace, KindWeb, ""
}

// ghReserved are first path segments of github.com that are not users or orgs.
var ghReserved = map[string]bool{
	"about": true, "apps": true, "collections": true, "contact": true, "customer-stories": true, "enterprise": true,
	"events": true, "explore": true, "features": true, "issues": true, "join": true, "login": true, "marketplace": true,
	"new": true, "notifications": true, "orgs": true, "organizations": true, "pricing": true, "pulls": true,
	"search": true, "security": true, "settings": true, "site": true, "sponsors": true, "stars": true,
	"topics": true, "trending": true, "users": true, "codespaces": true, "readme": true, "team": true,
}

// gitHubRule lower-cases owner and repo (GitHub matches them case-insensitively)
// and anchors anything under a repo to the repo.
func gitHubRule(c *canonURL, s []string) (kind, akind Kind, anchor string) {
	if len(s) == 0 || ghReserved[strings.ToLower(s[0])] {
		return KindGitHub, KindWeb, ""
	}
	s[0] = strings.ToLower(s[0])
	if len(s) >= 2 {
		s[1] = strings.TrimSuffix(strings.ToLower(s[1]), ".git")
	}
	if len(s) >= 2 && s[1] == "" {
		s = s[:1]
	}
	c.setPath("/" + strings.Join(s, "/"))
	if len(s) == 1 { // a user or org page is not a resource
		return KindGitHub, KindWeb, ""
	}
	if len(s) == 2 && len(c.query) == 1 && c.query[0] == (queryParam{"tab", "readme-ov-file", true}) {
		c.query = nil // GitHub's default view, added to copied links
	}
	return KindGitHub, KindGitHub, "https://github.com/" + s[0] + "/" + s[1]
}

// tweetRule reduces status links to x.com/<user>/status/<id>: media views
// (/photo/1) and share parameters are the same tweet.
func tweetRule(c *canonURL, s []string) (kind, akind Kind, anchor string) {
	if len(s) >= 4 && s[0] == "i" && s[1] == "web" {
		s = append([]string{"i"}, s[2:]...)
	}
	if len(s) >= 3 && (s[1] == "status" || s[1] == "statuses") && s[2] != "" && strings.Trim(s[2], "0123456789") == "" {
		c.setPath("/" + strings.ToLower(s[0]) + "/status/" + s[2])
		c.query = nil
		return KindTweet, KindTweet, ""
	}
	return KindWeb, KindTweet, "" // profiles and search pages are not what a post is about
}

var youTubeID = regexp.MustCompile(`^[A-Za-z0-9_-]{6,20}$`)

// youTubeRule rewrites every video URL shape to youtube.com/watch?v=<id>.
func youTubeRule(c *canonURL, s []string) {
	id := ""
	switch {
	case c.host == "youtu.be" && len(s) == 1:
		id = s[0]
	case len(s) == 1 && s[0] == "watch":
		id = c.get("v")
	case len(s) == 2 && (s[0] == "shorts" || s[0] == "embed" || s[0] == "live" || s[0] == "v"):
		id = s[1]
	}
	if youTubeID.MatchString(id) {
		c.host = "youtube.com"
		c.setPath("/watch")
		c.query = []queryParam{{"v", id, true}}
	}
}

var (
	doiPrefix     = regexp.MustCompile(`^10\.\d{4,9}$`)
	doiFull       = regexp.MustCompile(`^10\.\d{4,9}/\S+$`)
	biorxivSuffix = regexp.MustCompile(`v\d+(\.full|\.abstract|\.full-text|\.supplementary-material)?$`)
	// doiViews are publisher path segments after a DOI that pick a view of the paper.
	doiViews = map[string]bool{"full": true, "abstract": true, "abs": true, "pdf": true, "epdf": true, "pdfdirect": true, "fulltext": true, "html": true, "meta": true, "summary": true, "references": true, "figures": true, "citedby": true}
)

// publisherDOI finds the DOI in a publisher URL (dl.acm.org/doi/pdf/10.1145/...,
// ...?id=10.1371/...), so the publisher page and doi.org share one anchor.
func publisherDOI(c *canonURL, s []string) string {
	if c.host == "nature.com" && len(s) == 2 && s[0] == "articles" {
		return "10.1038/" + strings.ToLower(strings.TrimSuffix(s[1], ".pdf")) // Nature article ids are their DOI suffix
	}
	for _, k := range []string{"id", "doi"} {
		if v, err := url.QueryUnescape(c.get(k)); err == nil && doiFull.MatchString(v) {
			return strings.ToLower(v)
		}
	}
	for i := range s {
		if !doiPrefix.MatchString(s[i]) || i+1 >= len(s) {
			continue
		}
		parts := s[i:]
		for len(parts) > 2 && doiViews[strings.ToLower(parts[len(parts)-1])] {
			parts = parts[:len(parts)-1]
		}
		doi := strings.TrimSuffix(unescapeAll(parts), ".pdf")
		if c.host == "biorxiv.org" || c.host == "medrxiv.org" {
			doi = biorxivSuffix.ReplaceAllString(strings.TrimSuffix(doi, ".full"), "")
		}
		if doiFull.MatchString(doi) {
			return strings.ToLower(doi)
		}
	}
	return ""
}

// unescapeAll joins escaped path segments into one unescaped string.
func unescapeAll(s []string) string {
	j := strings.Join(s, "/")
	if u, err := url.PathUnescape(j); err == nil {
		return u
	}
	return j
}

// sciHosts are scientific sites: a post sharing or linking one is research.
var sciHosts = []string{
	"arxiv.org", "alphaxiv.org", "huggingface.co", "openreview.net", "doi.org", "biorxiv.org", "medrxiv.org",
	"chemrxiv.org", "distill.pub", "semanticscholar.org", "aclanthology.org", "aclweb.org", "neurips.cc",
	"nips.cc", "proceedings.mlr.press", "jmlr.org", "icml.cc", "iclr.cc", "thecvf.com", "ecva.net", "aaai.org",
	"ijcai.org", "dl.acm.org", "ieeexplore.ieee.org", "springer.com", "nature.com", "science.org",
	"sciencedirect.com", "cell.com", "pnas.org", "wiley.com", "plos.org", "ncbi.nlm.nih.gov", "europepmc.org",
	"ssrn.com", "researchgate.net", "paperswithcode.com", "jstor.org", "academic.oup.com", "tandfonline.com",
	"frontiersin.org", "mdpi.com", "elifesciences.org", "royalsocietypublishing.org", "iop.org", "aps.org",
	"sagepub.com", "acs.org", "annualreviews.org", "zenodo.org", "osf.io", "hal.science", "usenix.org",
	"dblp.org", "scholar.archive.org", "core.ac.uk",
}

func isSciHost(h string) bool {
	if strings.HasPrefix(h, "scholar.google.") {
		return true
	}
	for _, d := range sciHosts {
		if h == d || strings.HasSuffix(h, "."+d) {
			return true
		}
	}
	return false
}
