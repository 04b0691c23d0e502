package e2e

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The audit fails a page with a violation, naming the rule and the element, on a page load
// and on a fragment htmx swaps in later.
func TestAccessibilityAuditFailsBadPages(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/htmx.js":
			http.ServeFile(w, r, "../static/js/vendor/htmx.min.js")
		case "/fragment":
			w.Write([]byte(`<p id="faint" style="color:#bbb;background:#fff">Faint text nobody can read</p>`))
		default:
			w.Write([]byte(`<!DOCTYPE html><html lang="en"><head><title>Bad</title><script src="/htmx.js"></script></head>
<body><main><h1>Bad page</h1><img id="noalt" src="/pic.png">
<button id="more" hx-get="/fragment" hx-target="#slot" hx-swap="innerHTML">More</button><div id="slot"></div></main></body></html>`))
		}
	}))
	defer srv.Close()
	bctx, err := browser.NewContext()
	must(t, err)
	defer bctx.Close()
	rec := &recorded{}
	audit, err := auditAccessibility(rec, bctx)
	must(t, err)
	page, err := bctx.NewPage()
	must(t, err)
	_, err = page.Goto(srv.URL + "/")
	must(t, err)
	must(t, page.Locator("#more").Click())
	must(t, page.Locator("#faint").WaitFor())
	eventually(t, 10*time.Second, "both audits", func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return len(rec.errors) >= 2
	})
	audit.wait(page)
	all := strings.Join(rec.errors, "\n")
	for _, want := range []string{"image-alt (critical)", "#noalt", "(page)", "color-contrast (serious)", "#faint", "(fragment)"} {
		if !strings.Contains(all, want) {
			t.Errorf("the audit's report lacks %q:\n%s", want, all)
		}
	}
}
