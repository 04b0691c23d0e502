package linkcard

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// reader reads the links of one site from its best source.
type reader struct {
	name  string
	match func(u *url.URL) bool
	read  func(ctx context.Context, f *Fetcher, u *url.URL) (Card, error)
}

// readers is the registry of per-host readers; Fetch uses the first that
// matches and reads any other link as a plain page.
var readers = []reader{
	{"arxiv", hostIn("arxiv.org", "export.arxiv.org"), readArxiv},
	{"doi", hostIn("doi.org", "dx.doi.org"), readDOI},
	{"openreview", hostIn("openreview.net"), readOpenReview},
	{"huggingface", hostIn("huggingface.co"), readHuggingFace},
	{"github", hostIn("github.com"), readGitHub},
}

func hostIn(hosts ...string) func(*url.URL) bool {
	return func(u *url.URL) bool {
		h := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
		for _, want := range hosts {
			if h == want {
				return true
			}
		}
		return false
	}
}

// readOpenReview reads a forum page, whose citation_* tags describe the paper.
func readOpenReview(ctx context.Context, f *Fetcher, u *url.URL) (Card, error) {
	c, err := f.readPage(ctx, u.String())
	if err != nil {
		return c, err
	}
	c.SiteName = firstOf(c.SiteName, "OpenReview")
	return c, nil
}

// readHuggingFace reads a model or dataset page; the path says which.
func readHuggingFace(ctx context.Context, f *Fetcher, u *url.URL) (Card, error) {
	c, err := f.readPage(ctx, u.String())
	if err != nil {
		return c, err
	}
	c.SiteName = firstOf(c.SiteName, "Hugging Face")
	c.Title = strings.TrimSuffix(c.Title, " · Hugging Face")
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	switch {
	case len(parts) >= 3 && parts[0] == "datasets":
		c.Kind = KindDataset
	case len(parts) >= 3 && parts[0] == "spaces":
		c.Kind = KindPage
	case len(parts) == 2 || (len(parts) > 2 && (parts[2] == "tree" || parts[2] == "blob")):
		c.Kind = KindModel
	}
	return c, nil
}

// githubRepo is the part of the REST API's repository answer a card keeps.
type githubRepo struct {
	FullName    string `json:"full_name"`
	Description string `json:"description"`
	Language    string `json:"language"`
	HTMLURL     string `json:"html_url"`
}

// githubReserved are top-level paths of github.com that are no user or organisation.
var githubReserved = map[string]bool{
	"about": true, "apps": true, "collections": true, "enterprise": true, "events": true,
	"explore": true, "features": true, "issues": true, "login": true, "marketplace": true,
	"new": true, "notifications": true, "orgs": true, "pricing": true, "pulls": true,
	"search": true, "security": true, "settings": true, "site": true, "sponsors": true,
	"topics": true, "trending": true,
}

// readGitHub reads a repository's page (title, image) and then the REST API
// for its description and main language; the API is a bonus, as it is
// rate-limited.
func readGitHub(ctx context.Context, f *Fetcher, u *url.URL) (Card, error) {
	c, err := f.readPage(ctx, u.String())
	if err != nil {
		return c, err
	}
	c.SiteName = firstOf(c.SiteName, "GitHub")
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" || githubReserved[parts[0]] {
		return c, nil
	}
	c.Kind = KindRepo
	api := fmt.Sprintf("https://api.github.com/repos/%s/%s", url.PathEscape(parts[0]), url.PathEscape(parts[1]))
	var repo githubRepo
	if f.getJSON(ctx, api, "application/vnd.github+json", &repo) == nil {
		c.Title = clean(firstOf(repo.FullName, c.Title), maxTitle)
		c.Description = clean(firstOf(repo.Description, c.Description), maxDescription)
		c.RepoLanguage = clean(firstOf(repo.Language, c.RepoLanguage), maxShort)
	}
	return c, nil
}
