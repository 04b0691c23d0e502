package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/playwright-community/playwright-go"
)

// Every document a browser test opens and every fragment htmx swaps into it is audited by
// axe-core (the npm package, pinned in package.json) in the page itself: an init script,
// added to each browser context by newPage, runs axe after each load and after each htmx
// swap (one audit for a burst of swaps: htmx settles each element a swap inserts) and reports
// serious and critical violations to the test through a binding. So a page
// added later is checked without anyone remembering to.

// axeSource is axe-core's script followed by ours; read once.
var axeSource = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile("../node_modules/axe-core/axe.min.js")
	if err != nil {
		return "", fmt.Errorf("axe-core is missing (run `npm ci`, as `make test` does): %w", err)
	}
	return string(b) + "\n" + auditScript, nil
})

const auditScript = `(() => {
  if (window.top !== window || !window.axe) return;
  let pending = Promise.resolve();
  let queued = false; // an audit waits to start: it will see every change made until it does
  const audit = (why) => {
    if (queued) return;
    queued = true;
    pending = pending.then(() => { queued = false; return axe.run(document, {resultTypes: ['violations']}); }).then(r => {
      const bad = r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => ({
        id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.slice(0, 5).map(n => ({target: n.target.join(' '), html: n.html.slice(0, 240)}))}));
      return window.__tributaryAxe(JSON.stringify({url: location.href, why, violations: bad}));
    }).catch(e => window.__tributaryAxe(JSON.stringify({url: location.href, why, error: String(e)})));
    window.__tributaryAxePending = pending;
  };
  addEventListener('load', () => audit('page'));
  document.addEventListener('htmx:afterSettle', () => audit('fragment'));
})();`

// axeReport is what the page reports after one audit.
type axeReport struct {
	URL        string `json:"url"`
	Why        string `json:"why"`
	Error      string `json:"error"`
	Violations []struct {
		ID     string `json:"id"`
		Impact string `json:"impact"`
		Help   string `json:"help"`
		Nodes  []struct {
			Target string `json:"target"`
			HTML   string `json:"html"`
		} `json:"nodes"`
	} `json:"violations"`
}

// errorer is where violations go: the test (or, in the check's own test, a recorder).
type errorer interface {
	Errorf(format string, args ...any)
	Logf(format string, args ...any)
}

// axeAudit collects one browser context's audits.
type axeAudit struct {
	mu      sync.Mutex
	t       errorer
	done    bool
	audited int
}

// auditAccessibility makes every page of bctx audited; wait (before the context closes)
// lets the audits under way finish.
func auditAccessibility(t errorer, bctx playwright.BrowserContext) (*axeAudit, error) {
	src, err := axeSource()
	if err != nil {
		return nil, err
	}
	a := &axeAudit{t: t}
	err = bctx.ExposeBinding("__tributaryAxe", func(_ *playwright.BindingSource, args ...any) any {
		s, _ := args[0].(string)
		var r axeReport
		if err := json.Unmarshal([]byte(s), &r); err != nil {
			a.report(func() { a.t.Errorf("axe: unreadable report %.200q: %v", s, err) })
			return nil
		}
		a.record(r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := bctx.AddInitScript(playwright.Script{Content: playwright.String(src)}); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *axeAudit) record(r axeReport) {
	a.report(func() {
		if r.Error != "" {
			// A document left before its audit ended; its successor is audited too.
			if !strings.Contains(r.Error, "context") && !strings.Contains(r.Error, "navigat") {
				a.t.Errorf("axe on %s (%s): %s", r.URL, r.Why, r.Error)
			}
			return
		}
		a.audited++
		for _, v := range r.Violations {
			var nodes []string
			for _, n := range v.Nodes {
				nodes = append(nodes, fmt.Sprintf("%s: %s", n.Target, n.HTML))
			}
			a.t.Errorf("accessibility: %s (%s) on %s (%s): %s\n\t%s", v.ID, v.Impact, r.URL, r.Why, v.Help, strings.Join(nodes, "\n\t"))
		}
	})
}

// report runs fn unless the test is over (a late report from a page being closed).
func (a *axeAudit) report(fn func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.done {
		fn()
	}
}

// wait lets the audits of the page's current document finish, then stops reporting.
func (a *axeAudit) wait(page playwright.Page) int {
	done := make(chan struct{})
	go func() {
		defer close(done)
		page.Evaluate("() => Promise.race([window.__tributaryAxePending, new Promise(r => setTimeout(r, 10000))])")
	}()
	select {
	case <-done:
	case <-time.After(15 * time.Second): // a page that no longer answers
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.done = true
	return a.audited
}

// recorded is an errorer that keeps what it is told.
type recorded struct {
	mu     sync.Mutex
	errors []string
}

func (r *recorded) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorded) Logf(string, ...any) {}
