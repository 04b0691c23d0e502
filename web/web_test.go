package web_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"tributary/db"
	"tributary/db/dbtest"
	"tributary/web"
)

// app is a real server on a fresh database, driven over HTTP.
type app struct {
	t     *testing.T
	srv   *httptest.Server
	store *db.Store
	now   time.Time
	web   *web.Server
}

// newApp starts a server on a fresh database; tune, when given, changes its configuration.
func newApp(t *testing.T, tune ...func(*web.Config)) *app {
	t.Helper()
	a := &app{t: t, store: dbtest.Store(t), now: time.Date(2026, 11, 20, 12, 0, 0, 123456789, time.UTC)} // nanoseconds: PostgreSQL keeps micro
	cfg := web.Config{Store: a.store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now: func() time.Time { return a.now }, HashCost: bcrypt.MinCost}
	for _, f := range tune {
		f(&cfg)
	}
	s := web.NewServer(cfg)
	a.web = s
	a.srv = httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.CloseStreams(); a.srv.Close() })
	return a
}

// client is one browser: a cookie jar that does not follow redirects.
type client struct {
	a    *app
	http *http.Client
}

func (a *app) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{a: a, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

type response struct {
	status   int
	body     string
	location string
	header   http.Header
}

func (c *client) do(method, path string, form url.Values, header http.Header, raw ...string) response {
	c.a.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else if len(raw) > 0 {
		body = strings.NewReader(raw[0])
	}
	req, err := http.NewRequest(method, c.a.srv.URL+path, body)
	if err != nil {
		c.a.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := c.http.Do(req)
	if err != nil {
		c.a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, body: string(b), location: res.Header.Get("Location"), header: res.Header}
}

func (c *client) get(path string) response { return c.do("GET", path, nil, nil) }
func (c *client) post(path string, form url.Values) response {
	return c.do("POST", path, form, nil)
}

func (c *client) signup(handle string) {
	c.a.t.Helper()
	r := c.post("/signup", url.Values{"handle": {handle}, "password": {"correct horse"}})
	if r.status != http.StatusSeeOther {
		c.a.t.Fatalf("signup %s: status %d, want 303; body: %s", handle, r.status, r.body)
	}
}

// metrics is what the server's metrics listener answers (it is not on the site).
func (a *app) metrics() string {
	a.t.Helper()
	rec := httptest.NewRecorder()
	a.web.Metrics().Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}
