package bench

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// cardFixture is the site the server's fetcher reaches in the card-flow rows: one loopback
// listener answering for fetchHosts hosts (cardHost), which the server is told of by
// --fetch-connect-to rules (its fetcher still dials nothing but this fixture). It keeps when
// it answered each page, so a card's delivery is timed from the page having been served.
type cardFixture struct {
	srv *httptest.Server

	mu     sync.Mutex
	served map[string]time.Time // host+path -> when its page was answered (the first time)
	pages  map[string]int       // path prefix (its first two segments) -> pages answered
}

// cardFixtureTitle is the title of every fixture page: a preview that shows it has the card.
const cardFixtureTitle = "Why cards arrive"

// cardFixturePage is what every fixture host answers: a blog post with OpenGraph, no image
// (an image is a second request to the host, a politeness interval later).
const cardFixturePage = `<!doctype html><html lang="en"><head><title>A post</title>
<meta property="og:title" content="` + cardFixtureTitle + `"><meta property="og:site_name" content="A notebook">
<meta property="og:description" content="A card comes to the page that shows its link."></head><body><p>Text.</p></body></html>`

func newCardFixture() *cardFixture {
	f := &cardFixture{served: map[string]time.Time{}, pages: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(rw, cardFixturePage)
		at := time.Now()
		key := strings.ToLower(r.Host) + r.URL.Path
		f.mu.Lock()
		if _, ok := f.served[key]; !ok {
			f.served[key] = at
		}
		f.pages[pathPrefix(r.URL.Path)]++
		f.mu.Unlock()
	}))
	return f
}

func (f *cardFixture) close() { f.srv.Close() }

// cardHost is the fixture's i-th host (of fetchHosts).
func cardHost(i int) string { return fmt.Sprintf("h%d.cards.bench.example", i%fetchHosts) }

// args are the server's flags that map every fixture host to the fixture.
func (f *cardFixture) args() []string {
	_, port, _ := net.SplitHostPort(f.srv.Listener.Addr().String())
	var out []string
	for i := range fetchHosts {
		out = append(out, "--fetch-connect-to", fmt.Sprintf("%s:80:127.0.0.1:%s", cardHost(i), port))
	}
	return out
}

// servedAt is when the fixture answered a URL's page.
func (f *cardFixture) servedAt(rawURL string) (time.Time, bool) {
	key := strings.ToLower(strings.TrimPrefix(rawURL, "http://"))
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.served[key]
	return t, ok
}

// answered is how many pages the fixture answered under a path prefix ("/import/<run>").
func (f *cardFixture) answered(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pages[prefix]
}

// pathPrefix is a path's first two segments: "/import/17/3" -> "/import/17".
func pathPrefix(p string) string {
	parts := strings.SplitN(p, "/", 4)
	if len(parts) < 3 {
		return p
	}
	return "/" + parts[1] + "/" + parts[2]
}
