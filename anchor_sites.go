package tributary

import (
	"net/url"
	"regexp"
	"strings"
)

// Site rules: what each known site's URLs are about, and their canonical spellings.

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
