// Package e2e drives the real tributary binary in Chromium through playwright-go.
package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"tributary/db/dbtest"
)

var (
	binary  string
	pw      *playwright.Playwright
	browser playwright.Browser
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "tributary-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "tributary")
	if out, err := exec.Command("go", "build", "-o", binary, "../cmd/tributary").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: build: %v\n%s", err, out)
		return 1
	}
	// The driver is installed offline by `make deps-browser`; never download here.
	pw, err = playwright.Run(&playwright.RunOptions{SkipInstallBrowsers: true, Verbose: false})
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: start playwright (run `make deps-browser` first): %v\n", err)
		return 1
	}
	defer pw.Stop()
	exe := os.Getenv("TRIBUTARY_CHROMIUM")
	if exe == "" {
		exe = "/usr/bin/chromium"
	}
	browser, err = pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath: playwright.String(exe),
		Headless:       playwright.Bool(true),
		// As a real browser: pages go into the back-forward cache (Playwright turns it off).
		IgnoreDefaultArgs: []string{"--disable-back-forward-cache"},
		Args: []string{"--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync"},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: launch %s: %v\n", exe, err)
		return 1
	}
	defer browser.Close()
	return m.Run()
}

// server is the real binary on a fresh database.
type server struct {
	URL     string
	DSN     string
	Metrics string // its metrics listener's /metrics, when started with --metrics-addr
	proc    *os.Process
}

// startServer runs `tributary serve` on a fresh database and an ephemeral port.
func startServer(t *testing.T, extraArgs ...string) *server {
	t.Helper()
	return startServerOn(t, dbtest.DSN(t), extraArgs...)
}

// startServerOn runs `tributary serve` on the database at dsn.
func startServerOn(t *testing.T, dsn string, extraArgs ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	// Link cards are fetched only from fixtures a test maps (--fetch-connect-to): never beyond loopback.
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--database-url", dsn, "--fetch", "mapped"}, extraArgs...)
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urlc := make(chan string, 1)
	logs := &strings.Builder{}
	var metrics string // logged before the site's URL
	go func() {
		re := regexp.MustCompile(`msg=serving url=(\S+)`)
		metricsRe := regexp.MustCompile(`msg=metrics url=(\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			logs.WriteString(line + "\n")
			if m := metricsRe.FindStringSubmatch(line); m != nil {
				metrics = m[1]
			}
			if m := re.FindStringSubmatch(line); m != nil {
				urlc <- m[1]
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})
	select {
	case u := <-urlc:
		return &server{URL: u, DSN: dsn, Metrics: metrics, proc: cmd.Process}
	case <-time.After(60 * time.Second):
		t.Fatalf("server did not start; log:\n%s", logs.String())
	}
	return nil
}

// newPage opens a fresh browser context (its own cookies) whose every page and fragment is
// audited for accessibility (see axe_test.go), and saves a screenshot of the page when the
// test fails.
func newPage(t *testing.T) playwright.Page {
	t.Helper()
	return newPageWith(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1100, Height: 900}})
}

func newPageWith(t *testing.T, opts playwright.BrowserNewContextOptions) playwright.Page {
	t.Helper()
	bctx, err := browser.NewContext(opts)
	if err != nil {
		t.Fatal(err)
	}
	audit, err := auditAccessibility(t, bctx)
	if err != nil {
		t.Fatal(err)
	}
	page, err := bctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	page.SetDefaultTimeout(30_000) // generous: browser tests run in parallel on two shared cores
	t.Cleanup(func() {
		if t.Failed() {
			os.MkdirAll("screenshots", 0o755)
			path := filepath.Join("screenshots", strings.ReplaceAll(t.Name(), "/", "_")+".png")
			if _, err := page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(path), FullPage: playwright.Bool(true)}); err == nil {
				t.Logf("screenshot saved to e2e/%s", path)
			}
		}
		t.Logf("accessibility: %d documents and fragments audited", audit.wait(page))
		bctx.Close()
	})
	return page
}

// must fails the test on a playwright error.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
