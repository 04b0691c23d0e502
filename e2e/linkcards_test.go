package e2e

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"tributary/linkcard/linkcardtest"
)

// arxivAbs is an abstract page in the shape of arXiv's: citation tags and OpenGraph.
const arxivAbs = `<!DOCTYPE html>
<html lang="en"><head>
<title>[2401.00001] Sparse Mixtures of Tiny Experts for Streaming Retrieval</title>
<meta property="og:site_name" content="arXiv.org">
<meta property="og:title" content="Sparse Mixtures of Tiny Experts for Streaming Retrieval">
<meta property="og:image" content="/static/preview.png">
<meta property="og:image:alt" content="The paper's first figure">
<meta name="citation_title" content="Sparse Mixtures of Tiny Experts for Streaming Retrieval">
<meta name="citation_author" content="Lovelace, Ada">
<meta name="citation_author" content="Hopper, Grace">
<meta name="citation_author" content="Turing, Alan">
<meta name="citation_author" content="Noether, Emmy">
<meta name="citation_date" content="2024/01/01">
<meta name="citation_arxiv_id" content="2401.00001">
<meta name="citation_abstract" content="We study retrieval over streams with many tiny experts. Each expert routes a slice of the stream, and the mixture adapts as the stream drifts.">
</head><body><h1>Sparse Mixtures of Tiny Experts for Streaming Retrieval</h1></body></html>`

// A shared arXiv link with no title becomes a paper's card: its title, authors and abstract,
// an image served by the site itself, and a follower's open page fills the card in when it
// arrives, without a reload. The paper is served on loopback as arxiv.org (never the real
// site): the server maps the name to the fixture and trusts its certificate.
func TestSharedPaperGetsItsCard(t *testing.T) {
	t.Parallel()
	fx := linkcardtest.New(t, "arxiv.org")
	release := make(chan struct{})
	asked := make(chan struct{}, 1)
	fx.Handle("arxiv.org", "/abs/", func(w http.ResponseWriter, r *http.Request) {
		select {
		case asked <- struct{}{}:
		default:
		}
		<-release // the card arrives once the reader's page is open
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(arxivAbs))
	})
	img := image.NewNRGBA(image.Rect(0, 0, 320, 200))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	img.SetNRGBA(10, 10, color.NRGBA{200, 30, 40, 255})
	var pngBytes bytes.Buffer
	must(t, png.Encode(&pngBytes, img))
	fx.Serve("arxiv.org", "/static/preview.png", pngBytes.Bytes(), "image/png")
	srv := startServerFetching(t, fx, "--poll-seconds", "3600")
	f := newFixture(t, srv)
	f.user("reader", "Rea Der", false)
	f.user("ada", "Ada Lovelace", false)
	f.follow("reader", "ada")
	f.share("ada", "https://arxiv.org/abs/2401.00001", "", time.Minute)
	f.refresh()

	page := pageAs(t, srv, "reader")
	_, err := page.ExpectResponse(regexp.MustCompile(`/live\?src=`), func() error {
		_, err := page.Goto(srv.URL + "/")
		return err
	})
	must(t, err)
	card := page.GetByTestId("card")
	must(t, expect.Locator(card).ToHaveCount(1))
	must(t, expect.Locator(card.GetByTestId("card-authors")).ToHaveCount(0))
	markDocument(t, page)
	select {
	case <-asked:
	case <-time.After(20 * time.Second):
		t.Fatal("the server never asked the fixture for the paper")
	}
	close(release)

	slow := playwright.LocatorAssertionsToHaveTextOptions{Timeout: playwright.Float(20000)}
	must(t, expect.Locator(card.GetByTestId("card-authors")).ToHaveText("Ada Lovelace, Grace Hopper, Alan Turing et al.", slow))
	must(t, expect.Locator(card.GetByTestId("card-summary")).ToContainText("We study retrieval over streams"))
	must(t, expect.Locator(card.Locator(".card-title")).ToHaveText("Sparse Mixtures of Tiny Experts for Streaming Retrieval"))
	sameDocument(t, page)

	// After a reload the card's image is the site's own, and the browser loads it.
	_, err = page.Reload()
	must(t, err)
	preview := card.Locator("img.preview")
	must(t, expect.Locator(preview).ToHaveAttribute("src", regexp.MustCompile(`^/img/[0-9a-f]{64}\.(jpg|png)$`)))
	must(t, expect.Locator(preview).ToHaveAttribute("alt", "The paper's first figure"))
	loaded, err := preview.Evaluate("img => img.complete && img.naturalWidth > 0", nil)
	must(t, err)
	if loaded != true {
		t.Error("the card's image did not load from the site")
	}

	// The item page shows the whole abstract; the JSON has the card.
	id, err := card.GetAttribute("data-item-id")
	must(t, err)
	_, err = page.Goto(srv.URL + "/i/" + id)
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("card-abstract")).ToContainText("the mixture adapts as the stream drifts"))
	resp, err := page.Request().Get(srv.URL + "/api/timeline")
	must(t, err)
	body, err := resp.Text()
	must(t, err)
	if !strings.Contains(body, `"card":{"kind":"paper"`) || !strings.Contains(body, `"authors":["Ada Lovelace","Grace Hopper","Alan Turing","Emmy Noether"]`) {
		t.Errorf("the timeline's JSON has no paper card: %.600s", body)
	}
}

// Pasting a link into the share form previews it: the paper's authors show, and the empty
// title fills in with the paper's; the share then carries it, and its job finds the card
// already fetched (the fixture is asked once).
func TestShareFormPreviewsTheLink(t *testing.T) {
	t.Parallel()
	fx := linkcardtest.New(t, "arxiv.org")
	var asked atomic.Int32
	fx.Handle("arxiv.org", "/abs/", func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(arxivAbs))
	})
	srv := startServerFetching(t, fx, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("ada", "Ada Lovelace", false)
	page := pageAs(t, srv, "ada")
	_, err := page.Goto(srv.URL + "/share")
	must(t, err)
	must(t, page.Locator("#f-url").Fill("https://arxiv.org/abs/2401.00001"))
	preview := page.GetByTestId("share-preview")
	slow := playwright.LocatorAssertionsToContainTextOptions{Timeout: playwright.Float(15000)}
	must(t, expect.Locator(preview).ToContainText("Ada Lovelace, Grace Hopper, Alan Turing et al.", slow))
	must(t, expect.Locator(page.Locator("#f-title")).ToHaveValue("Sparse Mixtures of Tiny Experts for Streaming Retrieval"))
	must(t, page.GetByTestId("share-submit").Click())
	must(t, expect.Locator(page.GetByTestId("card").First()).ToContainText("Sparse Mixtures of Tiny Experts"))
	if n := asked.Load(); n != 1 {
		t.Errorf("the fixture was asked %d times, want once (the preview's fetch is reused)", n)
	}
}

// startServerFetching starts a server that fetches link cards from fx alone.
func startServerFetching(t *testing.T, fx *linkcardtest.Fixture, extraArgs ...string) *server {
	t.Helper()
	args := append([]string{"--fetch", "mapped", "--fetch-ca", fx.CAFile}, extraArgs...)
	for _, r := range fx.Rules {
		args = append(args, "--fetch-connect-to", r)
	}
	return startServer(t, args...)
}
