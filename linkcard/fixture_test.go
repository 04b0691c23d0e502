package linkcard

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"tributary/linkcard/linkcardtest"
)

func port(t testing.TB, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// fixture serves made-up copies of real sites on loopback under their real names
// (linkcardtest); fetcher reaches it through its rules and trusts its certificate.
type fixture struct {
	*linkcardtest.Fixture
	rules []ConnectTo
}

// fixtureHosts are the names the fixture answers for, on ports 80 and 443.
var fixtureHosts = []string{
	"arxiv.org", "export.arxiv.org", "doi.org", "api.crossref.org", "github.com", "api.github.com",
	"huggingface.co", "openreview.net", "blog.example", "journal.example",
	"video.example", "hostile.example", "ru.example", "jp.example",
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	fx := &fixture{Fixture: linkcardtest.New(t, fixtureHosts...)}
	for _, r := range fx.Rules {
		c, err := ParseConnectTo(r)
		if err != nil {
			t.Fatal(err)
		}
		fx.rules = append(fx.rules, c)
	}
	return fx
}

// fetcher returns a Fetcher that reaches the fixture, with no politeness
// delay unless cfg sets one.
func (fx *fixture) fetcher(t testing.TB, cfg Config) *Fetcher {
	t.Helper()
	cfg.ConnectTo = append(cfg.ConnectTo, fx.rules...)
	cfg.ExtraCA = fx.CAFile
	if cfg.Politeness == nil {
		cfg.Politeness = noWait{}
	}
	f, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// serve answers path on host with the file testdata/name and content type ct.
func (fx *fixture) serve(t testing.TB, host, path, name, ct string) {
	body, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	fx.Serve(host, path, body, ct)
}

func (fx *fixture) handle(host, path string, h http.HandlerFunc) { fx.Handle(host, path, h) }

type noWait struct{}

func (noWait) Wait(ctx context.Context, host string) error { return ctx.Err() }
