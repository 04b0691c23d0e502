package linkcard

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// arxivFixture serves abs pages with citation tags (2401.00001), without them (2401.00002,
// 2401.99999) and failing (2401.00003), and an API that knows 2401.00002 and 2401.00003 (by
// the same entry) and no other paper. It counts the API's requests.
func arxivFixture(t *testing.T) (*fixture, *atomic.Int32) {
	fx := newFixture(t)
	fx.serve(t, "arxiv.org", "/abs/", "arxiv_abs.html", htmlType)
	fx.serve(t, "arxiv.org", "/abs/2401.00002v1", "arxiv_abs_bare.html", htmlType)
	fx.serve(t, "arxiv.org", "/abs/2401.99999", "arxiv_abs_bare.html", htmlType)
	fx.handle("arxiv.org", "/abs/2401.00003", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	})
	known, err := os.ReadFile(filepath.Join("testdata", "arxiv_api.atom"))
	if err != nil {
		t.Fatal(err)
	}
	empty, err := os.ReadFile(filepath.Join("testdata", "arxiv_api_empty.atom"))
	if err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int32
	fx.handle("export.arxiv.org", "/api/query", func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
		id := r.URL.Query().Get("id_list")
		if strings.HasPrefix(id, "2401.00002") || id == "2401.00003" {
			w.Write(known)
		} else {
			w.Write(empty)
		}
	})
	return fx, &asked
}

// arXiv is read from the abs page's citation tags; the API answers for a page without them
// or a page that fails, and a paper the API does not know keeps what the page said.
func TestArxivFallsBackOnItsAPI(t *testing.T) {
	routers := Card{
		Title:        "Routers That Forget: Bounded Memory for Streaming Mixtures",
		Description:  "Abstract page for arXiv paper 2401.00002",
		SiteName:     "arXiv.org",
		CanonicalURL: "https://arxiv.org/abs/2401.00002",
		ImageURL:     "https://arxiv.org/static/browse/0.3.4/images/arxiv-logo-fb.png",
		ImageAlt:     "arXiv logo",
		Published:    day(2024, 1, 3),
		Language:     "en",
		Authors:      []string{"Emmy Noether", "Alan Turing"},
		Abstract:     "We bound the memory of a streaming router. A router that forgets old shards keeps its accuracy & halves its state.",
		Kind:         KindPaper,
	}
	cases := []struct {
		name, url string
		apiAsked  int32
		want      Card
	}{
		{"tagged page", "https://arxiv.org/abs/2401.00001", 0, Card{
			Title: "Sparse Mixtures of Tiny Experts for Streaming Retrieval", Kind: KindPaper}},
		{"bare page", "https://arxiv.org/pdf/2401.00002v1", 1, routers},
		{"failing page", "https://arxiv.org/abs/2401.00003", 1, Card{
			Title: routers.Title, SiteName: "arXiv", CanonicalURL: "https://arxiv.org/abs/2401.00003",
			Published: routers.Published, Authors: routers.Authors, Abstract: routers.Abstract, Kind: KindPaper}},
		{"unknown to the API", "https://arxiv.org/abs/2401.99999", 1, Card{
			Title: "Routers That Forget", Description: "Abstract page for arXiv paper 2401.00002", SiteName: "arXiv.org",
			CanonicalURL: "https://arxiv.org/abs/2401.99999", ImageURL: routers.ImageURL, ImageAlt: "arXiv logo",
			Language: "en", Kind: KindPage}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fx, asked := arxivFixture(t)
			got, err := fx.fetcher(t, Config{}).Fetch(context.Background(), tc.url)
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			if n := asked.Load(); n != tc.apiAsked {
				t.Errorf("the API was asked %d times, want %d", n, tc.apiAsked)
			}
			if tc.name == "tagged page" { // TestFetchCards checks the whole card
				if got.Title != tc.want.Title || got.Kind != KindPaper || len(got.Authors) != 4 {
					t.Errorf("card %+v", got)
				}
				return
			}
			assertCard(t, got, tc.want)
		})
	}
}

// A page that fails, for a paper the API does not know either, fails with the page's reason.
func TestArxivKeepsThePagesFailure(t *testing.T) {
	fx, _ := arxivFixture(t)
	fx.handle("arxiv.org", "/abs/2401.99998", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "gone", http.StatusNotFound)
	})
	_, err := fx.fetcher(t, Config{}).Fetch(context.Background(), "https://arxiv.org/abs/2401.99998")
	if e, ok := err.(*Error); !ok || e.Reason != ReasonStatus || e.Status != http.StatusNotFound {
		t.Fatalf("err %v, want the page's 404", err)
	}
}
