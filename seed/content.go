package seed

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"tributary"
)

var seedRepoDirs = []string{"examples", "src", "docs", "benchmarks", "scripts", "configs"}

// seedPost is post i as the share form would submit it: the URL in one of the shapes
// people paste (versions, PDFs, sub-paths, tracking parameters, tweets linking the
// resource), a title, sometimes a comment, tags and preview images.
func (w *seedWorld) seedPost(i int) tributary.NewPost {
	s := w.shares[i]
	res := &w.resources[s.res]
	r := seedRNG(w.cfg.Seed, seedStagePosts, i)
	p := tributary.NewPost{AuthorID: int64(s.author) + 1, Title: res.title, CreatedAt: time.UnixMilli(s.t).UTC()}
	primary := w.shareURL(r, &p, res)
	if p.URL == "" {
		w.tweetAbout(r, &p, s, res, primary)
	} else if r.Float64() < 0.3 {
		p.Links = append([]tributary.Link{{URL: p.URL, Image: res.preview}}, p.Links...)
	}
	if res.repo != "" && r.Float64() < 0.25 && !strings.Contains(p.URL, res.repo) {
		p.Links = append(p.Links, tributary.Link{URL: "https://github.com/" + res.repo})
	}
	if r.Float64() < 0.45 {
		p.Body = seedPick(r, seedComments)
		if r.IntN(3) == 0 {
			p.Body += " " + seedPick(r, seedComments)
		}
		if r.Float64() < 0.08 {
			p.Body += " cc @" + w.users[r.IntN(len(w.users))].handle
		}
	}
	if r.Float64() < 0.75 {
		topic := seedTopics[res.topic]
		p.Tags = []string{topic.tag}
		if r.Float64() < 0.5 {
			p.Tags = append(p.Tags, seedPick(r, topic.related))
		}
		if r.Float64() < 0.15 {
			p.Tags = append(p.Tags, seedPick(r, seedTags))
		}
	}
	return p
}

// shareURL sets p.URL to one spelling of res (leaving it empty when the share is a tweet
// about res) and returns the plain URL of res, the one a tweet links.
func (w *seedWorld) shareURL(r *rand.Rand, p *tributary.NewPost, res *seedResource) string {
	x := r.Float64()
	switch res.kind {
	case seedArxiv:
		abs := "https://arxiv.org/abs/" + res.key
		switch {
		case x < 0.40:
			p.URL = abs
		case x < 0.50:
			p.URL = fmt.Sprintf("%sv%d", abs, 1+r.IntN(3))
		case x < 0.60:
			p.URL = "https://arxiv.org/pdf/" + res.key
			if r.IntN(2) == 0 {
				p.URL += fmt.Sprintf("v%d", 1+r.IntN(3))
			}
		case x < 0.80: // a tweet about the paper
		case x < 0.85:
			p.URL = "https://huggingface.co/papers/" + res.key
		case x < 0.88:
			p.URL = "https://www.alphaxiv.org/abs/" + res.key
		case x < 0.95 && res.repo != "": // the code, whose README links the paper
			p.URL = "https://github.com/" + res.repo
			if r.IntN(3) == 0 {
				p.URL += "/tree/main/" + seedPick(r, seedRepoDirs)
			}
			p.Title = "GitHub - " + res.repo + ": official code for \"" + res.title + "\""
			p.Links = []tributary.Link{{URL: abs}}
		default: // a blog post about the paper
			host := seedPick(r, seedBlogHosts)
			p.URL = "https://" + host + "/p/notes-on-" + seedSlug(seedShort(res.title, 50))
			p.Title = "Notes on " + res.title
			p.Links = []tributary.Link{{URL: abs}}
		}
		return abs
	case seedHFModel:
		u := "https://huggingface.co/" + res.key
		switch {
		case x < 0.55:
			p.URL = u
		case x < 0.70:
			p.URL = u + "/tree/main"
		case x < 0.78:
			p.URL = "https://hf.co/" + res.key
		case x < 0.85:
			p.URL = u + "/blob/main/config.json"
		}
		return u
	case seedHFDataset:
		u := "https://huggingface.co/datasets/" + res.key
		switch {
		case x < 0.70:
			p.URL = u
		case x < 0.85:
			p.URL = u + "/viewer/default/train"
		}
		return u
	case seedHFSpace:
		u := "https://huggingface.co/spaces/" + res.key
		if x < 0.85 {
			p.URL = u
		}
		return u
	case seedGitHub:
		u := "https://github.com/" + res.key
		switch {
		case x < 0.45:
			p.URL = u
		case x < 0.60:
			p.URL = u + "/tree/main/" + seedPick(r, seedRepoDirs)
		case x < 0.66:
			p.URL = "https://github.com/" + strings.ToUpper(res.key[:1]) + res.key[1:]
		case x < 0.71:
			p.URL = u + "?tab=readme-ov-file"
		case x < 0.78:
			p.URL = u + "/blob/main/README.md"
		case x < 0.82:
			p.URL = u + ".git"
		}
		return u
	case seedOpenReview:
		u := "https://openreview.net/forum?id=" + res.key
		switch {
		case x < 0.60:
			p.URL = u
		case x < 0.80:
			p.URL = "https://openreview.net/pdf?id=" + res.key
		case x < 0.90:
			p.URL = u + "&noteId=" + seedRandString(r, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10)
		}
		return u
	case seedDOI:
		u := "https://doi.org/" + res.key
		switch {
		case x < 0.35:
			p.URL = u
		case x < 0.90:
			p.URL = seedPublisherURL(r, res.key)
		}
		return u
	case seedBlog:
		switch {
		case x < 0.65:
			p.URL = res.key
		case x < 0.80:
			p.URL = res.key + "?utm_source=twitter&utm_medium=social"
		case x < 0.85:
			p.URL = res.key + "#" + seedPick(r, []string{"results", "method", "conclusion", "setup"})
		}
		return res.key
	default: // seedTweet: a tweet shared as itself
		u := "https://x.com/" + res.key
		switch {
		case x < 0.70:
			p.URL = u
		case x < 0.90:
			p.URL = "https://twitter.com/" + res.key + "?s=20"
		default:
			p.URL = u + "/photo/1"
		}
		return u
	}
}

// seedPublisherURL is the publisher's page of a DOI the seeder made.
func seedPublisherURL(r *rand.Rand, doi string) string {
	prefix, suffix, _ := strings.Cut(doi, "/")
	switch prefix {
	case "10.1038":
		return "https://www.nature.com/articles/" + suffix
	case "10.1145":
		if r.IntN(3) == 0 {
			return "https://dl.acm.org/doi/pdf/" + doi
		}
		return "https://dl.acm.org/doi/" + doi
	case "10.1126":
		return "https://www.science.org/doi/" + doi
	case "10.1101":
		u := fmt.Sprintf("https://www.biorxiv.org/content/%sv%d", doi, 1+r.IntN(3))
		if r.IntN(2) == 0 {
			u += ".full"
		}
		return u
	default:
		return "https://www.pnas.org/doi/" + doi
	}
}

// tweetAbout makes p a tweet (usually the sharer's own) that links target, often with the
// preview card image.
func (w *seedWorld) tweetAbout(r *rand.Rand, p *tributary.NewPost, s seedShare, res *seedResource, target string) {
	handle := w.users[s.author].handle
	if r.IntN(4) == 0 {
		handle = seedPick(r, seedNickWords) + seedPick(r, seedNickSuffixes)
	}
	id := seedSnowflake(r, s.t-r.Int64N(2*seedHour))
	switch r.IntN(10) {
	case 0, 1:
		p.URL = fmt.Sprintf("https://twitter.com/%s/status/%d?s=20&t=%s", handle, id,
			seedRandString(r, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", 22))
	default:
		p.URL = fmt.Sprintf("https://x.com/%s/status/%d", handle, id)
	}
	p.Title = fmt.Sprintf(seedPick(r, seedTweetTexts), seedShort(res.subject(), 90))
	link := tributary.Link{URL: target}
	if r.Float64() < 0.6 {
		link.Image = res.preview
	}
	p.Links = append([]tributary.Link{link}, p.Links...)
}

// seedShort cuts s to at most n bytes at a word boundary.
func seedShort(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n], ' '); i > 0 {
		return s[:i] + "…"
	}
	return strings.ToValidUTF8(s[:n], "")
}
