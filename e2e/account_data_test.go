package e2e

import (
	"testing"
	"time"
)

// The account's data pages in a browser (each one audited by axe, see axe_test.go): the
// export page's download, the feeds' autodiscovery, and deleting the account from the
// settings page, after which the user's page and posts are gone for everyone.
func TestExportAndDeleteAccount(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("leaver", "Lea Ver", false)
	f.user("stayer", "Stay Er", false)
	f.follow("stayer", "leaver")
	f.share("leaver", "https://blog.example.com/leaving-note", "A note before leaving", 2*time.Hour)

	p := newPage(t)
	login(t, p, srv.URL, "leaver")
	_, err := p.Goto(srv.URL + "/u/leaver")
	must(t, err)
	must(t, expect.Locator(p.Locator(`link[rel=alternate][type="application/atom+xml"]`)).ToHaveAttribute("href", "/u/leaver.atom"))
	_, err = p.Goto(srv.URL + "/settings")
	must(t, err)
	must(t, p.GetByTestId("export-link").Click())
	download, err := p.ExpectDownload(func() error { return p.GetByTestId("export-download").Click() })
	must(t, err)
	if name := download.SuggestedFilename(); name != "tributary-leaver.zip" {
		t.Errorf("download named %q, want tributary-leaver.zip", name)
	}

	_, err = p.Goto(srv.URL + "/settings")
	must(t, err)
	must(t, p.GetByTestId("delete-password").Fill("correct horse battery"))
	must(t, p.GetByTestId("delete-account").Click())
	must(t, expect.Locator(p.Locator("h1")).ToHaveText("Your account is deleted"))

	other := newPage(t)
	login(t, other, srv.URL, "stayer")
	must(t, expect.Locator(other.GetByTestId("feed")).Not().ToContainText("A note before leaving"))
	res, err := other.Goto(srv.URL + "/u/leaver")
	must(t, err)
	if res.Status() != 404 {
		t.Errorf("the deleted user's page: status %d, want 404", res.Status())
	}
}
