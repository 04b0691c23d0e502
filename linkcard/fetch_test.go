package linkcard

import (
	"context"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

const htmlType = "text/html; charset=utf-8"

// sitesFixture serves every well-behaved fixture page.
func sitesFixture(t testing.TB) *fixture {
	fx := newFixture(t)
	fx.serve(t, "arxiv.org", "/abs/", "arxiv_abs.html", htmlType)
	fx.serve(t, "github.com", "/ada/tinyexperts", "github_repo.html", htmlType)
	fx.serve(t, "api.github.com", "/repos/ada/tinyexperts", "github_api.json", "application/json")
	fx.serve(t, "blog.example", "/2024/feeds-should-end", "blog_og.html", htmlType)
	fx.serve(t, "journal.example", "/rivers", "jsonld_article.html", htmlType)
	fx.serve(t, "video.example", "/watch/1", "oembed_page.html", htmlType)
	fx.serve(t, "video.example", "/oembed", "oembed.json", "application/json")
	fx.serve(t, "blog.example", "/nohead", "nohead.html", "text/html")
	fx.serve(t, "ru.example", "/", "cp1251.html", "text/html")
	fx.serve(t, "jp.example", "/", "shiftjis.html", "text/html")
	fx.serve(t, "huggingface.co", "/ada/tiny-expert-7b", "hf_model.html", htmlType)
	fx.serve(t, "huggingface.co", "/datasets/ada/streams", "hf_model.html", htmlType)
	fx.serve(t, "openreview.net", "/forum", "openreview.html", htmlType)
	// doi.org redirects, as the real one does, to the registry's CSL-JSON.
	fx.handle("doi.org", "/", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != CSLAccept {
			http.Error(w, "landing page", http.StatusTeapot)
			return
		}
		http.Redirect(w, r, "https://api.crossref.org/v1/works"+r.URL.Path+"/transform", http.StatusSeeOther)
	})
	fx.serve(t, "api.crossref.org", "/v1/works/10.1145/3580305.3599999/transform", "doi_csl.json", CSLAccept)
	fx.serve(t, "api.crossref.org", "/v1/works/10.5281/zenodo.1234567/transform", "datacite_csl.json", CSLAccept)
	return fx
}

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestFetchCards(t *testing.T) {
	fx := sitesFixture(t)
	f := fx.fetcher(t, Config{})
	cases := []struct {
		url  string
		want Card
	}{
		{"https://arxiv.org/pdf/2401.00001v2", Card{
			Title:        "Sparse Mixtures of Tiny Experts for Streaming Retrieval",
			Description:  "We study retrieval over streams with many tiny experts.",
			SiteName:     "arXiv.org",
			CanonicalURL: "https://arxiv.org/abs/2401.00001",
			ImageURL:     "https://arxiv.org/static/browse/0.3.4/images/arxiv-logo-fb.png",
			ImageAlt:     "arXiv logo",
			Published:    day(2024, 1, 2),
			Language:     "en",
			Authors:      []string{"Ada Lovelace", "Grace M. Hopper", "Alan Turing", "Emmy Noether"},
			Abstract: "We study retrieval over streams with many tiny experts. Each expert sees a shard of the stream; " +
				"a router learns which to ask. On three benchmarks the mixture matches a dense retriever at a tenth of the cost.",
			Kind: KindPaper,
		}},
		{"https://doi.org/10.1145/3580305.3599999", Card{
			Title:        "Ranking Feeds by What Readers Finish",
			SiteName:     "Communications of the ACM",
			CanonicalURL: "https://doi.org/10.1145/3580305.3599999",
			Published:    day(2023, 7, 20),
			Language:     "en",
			Authors:      []string{"Ada Lovelace", "Charles Babbage", "The Analytical Engine Group"},
			Abstract:     "We rank a feed by the share of readers who finish each item & show it helps.",
			Kind:         KindPaper,
		}},
		{"https://doi.org/10.5281/zenodo.1234567", Card{
			Title:        "Stream Retrieval Benchmark",
			SiteName:     "Zenodo",
			CanonicalURL: "https://doi.org/10.5281/zenodo.1234567",
			Published:    day(2022, 11, 5),
			Language:     "en",
			Authors:      []string{"Grace Hopper"},
			Abstract:     "Three benchmarks for retrieval over streams.",
			Kind:         KindDataset,
		}},
		{"https://github.com/ada/tinyexperts", Card{
			Title:        "ada/tinyexperts",
			Description:  "Tiny experts for streaming retrieval",
			SiteName:     "GitHub",
			CanonicalURL: "https://github.com/ada/tinyexperts",
			ImageURL:     "https://opengraph.githubassets.com/abc123/ada/tinyexperts",
			ImageAlt:     "Tiny experts for streaming retrieval. Contribute to ada/tinyexperts development by creating an account on GitHub.",
			Language:     "en",
			Kind:         KindRepo,
			RepoLanguage: "Go",
		}},
		{"https://blog.example/2024/feeds-should-end", Card{
			Title:        "Why feeds should end",
			Description:  "A feed you can finish is a feed you can trust.",
			SiteName:     "Ada's notebook",
			CanonicalURL: "https://blog.example/2024/feeds-should-end",
			ImageURL:     "https://blog.example/img/ending.jpg",
			ImageAlt:     "A river reaching the sea",
			Published:    time.Date(2024, 2, 3, 9, 0, 0, 0, time.UTC),
			Language:     "en-GB",
			Authors:      []string{"Ada Lovelace"},
			Kind:         KindArticle,
		}},
		{"https://journal.example/rivers", Card{
			Title:        "Rivers of Text: Reading Feeds to the End",
			Description:  "How readers finish feeds.",
			SiteName:     "Journal of Streams",
			CanonicalURL: "https://journal.example/rivers",
			ImageURL:     "https://journal.example/fig1.png",
			ImageAlt:     "Figure 1: a river",
			Published:    day(2023, 5, 6),
			Language:     "en",
			Authors:      []string{"Grace Hopper", "Alan Turing"},
			Abstract:     "Readers finish feeds that end.",
			Kind:         KindPaper,
		}},
		{"https://video.example/watch/1", Card{
			Title:        "A talk on feeds that end",
			SiteName:     "VideoSite",
			CanonicalURL: "https://video.example/watch/1",
			ImageURL:     "https://video.example/thumb/1.jpg",
			Language:     "en",
			Authors:      []string{"Grace Hopper"},
			Kind:         KindPage,
		}},
		{"http://blog.example/nohead", Card{
			Title:        "Notes on streams",
			CanonicalURL: "http://blog.example/nohead",
			Kind:         KindPage,
		}},
		{"http://ru.example/", Card{
			Title:        "Поток знаний: как читать ленту до конца",
			Description:  "Лента, которую можно дочитать.",
			CanonicalURL: "http://ru.example/",
			Kind:         KindPage,
		}},
		{"http://jp.example/", Card{Title: "知識の流れ", CanonicalURL: "http://jp.example/", Kind: KindPage}},
		{"https://huggingface.co/ada/tiny-expert-7b", Card{
			Title:        "ada/tiny-expert-7b",
			Description:  "A tiny expert for streaming retrieval.",
			SiteName:     "Hugging Face",
			CanonicalURL: "https://huggingface.co/ada/tiny-expert-7b",
			ImageURL:     "https://cdn-thumbnails.huggingface.co/social-thumbnails/models/ada/tiny-expert-7b.png",
			Kind:         KindModel,
		}},
		{"https://huggingface.co/datasets/ada/streams", Card{
			Title:        "ada/tiny-expert-7b",
			Description:  "A tiny expert for streaming retrieval.",
			SiteName:     "Hugging Face",
			CanonicalURL: "https://huggingface.co/ada/tiny-expert-7b",
			ImageURL:     "https://cdn-thumbnails.huggingface.co/social-thumbnails/models/ada/tiny-expert-7b.png",
			Kind:         KindDataset,
		}},
		{"https://openreview.net/forum?id=abc123", Card{
			Title:        "Feeds That End",
			Description:  "A feed that ends is read to the end.",
			SiteName:     "OpenReview",
			CanonicalURL: "https://openreview.net/forum?id=abc123",
			Published:    day(2024, 5, 1),
			Language:     "en",
			Authors:      []string{"Alan Turing", "Emmy Noether"},
			Abstract:     "A feed that ends is read to the end.",
			Kind:         KindPaper,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			got, err := f.Fetch(context.Background(), tc.url)
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			assertCard(t, got, tc.want)
		})
	}
}

func assertCard(t *testing.T, got, want Card) {
	t.Helper()
	if !got.Published.Equal(want.Published) {
		t.Errorf("Published = %v, want %v", got.Published, want.Published)
	}
	if !slices.Equal(got.Authors, want.Authors) {
		t.Errorf("Authors = %q, want %q", got.Authors, want.Authors)
	}
	got.Published, want.Published, got.Authors, want.Authors = time.Time{}, time.Time{}, nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("card\n got %+v\nwant %+v", got, want)
	}
}

// An oEmbed answer's html (an iframe and a script, for a video) never reaches the card.
func TestFetchKeepsNoOEmbedHTML(t *testing.T) {
	fx := sitesFixture(t)
	got, err := fx.fetcher(t, Config{}).Fetch(context.Background(), "https://video.example/watch/1")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{got.Title, got.Description, got.SiteName, got.ImageURL, got.Abstract, got.ImageAlt} {
		if strings.Contains(s, "<") || strings.Contains(s, "alert") {
			t.Errorf("card field %q carries the oEmbed html", s)
		}
	}
}
