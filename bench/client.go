package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tributary/db"
)

// sessionCookie is the name of the app's session cookie (web.NewServer).
const sessionCookie = "tributary_session"

// password is every seeded user's password (cmd/tributary seed).
const password = "tributary"

// newTransport is one keep-alive transport shared by every simulated client; each client
// has its own cookie jar.
func newTransport(conns int) *http.Transport {
	return &http.Transport{
		Proxy:               nil, // loopback only, never through a proxy
		MaxIdleConns:        conns * 2,
		MaxIdleConnsPerHost: conns * 2,
		IdleConnTimeout:     90 * time.Second, // under the servers' 2 min: never a POST on a closing connection
		DisableCompression:  true,
	}
}

// client is one simulated user agent: a cookie jar on the shared transport. Its GETs go
// over raw keep-alive connections (rawGetter) shared by every client of the server, each
// GET with the jar's cookies: net/http's client spent about 0.2 ms of the driver's CPU on a
// logged-in page (its connection's goroutines, the jar, reading the body into a growing
// buffer), on the cores the server under test runs on, where the peer's driver reads its
// rows with pgx.
type client struct {
	base string
	url  *url.URL
	http *http.Client
}

func newClient(base string, tr *http.Transport) *client {
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(base)
	return &client{base: base, url: u, http: &http.Client{Transport: tr, Jar: jar, Timeout: time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// login logs a seeded user in through the login form.
func (c *client) login(ctx context.Context, handle string) error {
	form := url.Values{"handle": {handle}, "password": {password}}
	req, err := http.NewRequestWithContext(ctx, "POST", c.base+"/login", strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin") // what a browser sends: passes the CSRF check
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("bench: log in %s: %w", handle, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return fmt.Errorf("bench: log in %s: status %d, want 303", handle, resp.StatusCode)
	}
	return nil
}

// setSession gives the client a session token (see mintSessions).
func (c *client) setSession(token string) {
	u, _ := url.Parse(c.base)
	c.http.Jar.SetCookies(u, []*http.Cookie{{Name: sessionCookie, Value: token, Path: "/"}})
}

// get fetches base+path and returns the body and how long the request took, the body read
// to its end included. A status other than 200 is an error.
func (c *client) get(ctx context.Context, path string) ([]byte, latency, error) {
	var headers []string
	if cookies := c.http.Jar.Cookies(c.url); len(cookies) > 0 {
		line := "Cookie: "
		for i, ck := range cookies {
			if i > 0 {
				line += "; "
			}
			line += ck.Name + "=" + ck.Value
		}
		headers = append(headers, line)
	}
	g := c.getter()
	defer c.putGetter(g)
	body, code, d, err := g.send(ctx, rawRequest(c.url.Host, path, headers...))
	if err != nil {
		return nil, latency{}, err
	}
	body = bytes.Clone(body) // the getter's buffer is the next GET's
	if code != "200" {
		msg := string(body)
		if len(msg) > 200 {
			msg = msg[:200] + "..."
		}
		return body, d, fmt.Errorf("GET %s: status %s: %s", path, code, strings.TrimSpace(msg))
	}
	return body, d, nil
}

// rawConns are the idle raw connections to each server (by host), shared by every client:
// a GET carries its client's cookies, so any connection serves it. At most rawIdleMax are
// kept per server, as net/http's transport keeps its idle ones.
var rawConns sync.Map // host -> *rawIdle

type rawIdle struct {
	mu   sync.Mutex
	idle []*rawGetter
}

const rawIdleMax = 64

// getter is an idle connection to the client's server, or a new one.
func (c *client) getter() *rawGetter {
	p, _ := rawConns.LoadOrStore(c.url.Host, &rawIdle{})
	pool := p.(*rawIdle)
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if n := len(pool.idle); n > 0 {
		g := pool.idle[n-1]
		pool.idle = pool.idle[:n-1]
		return g
	}
	return &rawGetter{addr: c.url.Host}
}

// putGetter gives a connection back, or closes it when enough are idle.
func (c *client) putGetter(g *rawGetter) {
	p, _ := rawConns.LoadOrStore(c.url.Host, &rawIdle{})
	pool := p.(*rawIdle)
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if len(pool.idle) >= rawIdleMax {
		g.close()
		return
	}
	pool.idle = append(pool.idle, g)
}

// openLive opens c's live stream of src's notice on a goroutine of its own and hands each of
// its events to on. answered has the stream's status (0: no answer) before opened is done;
// done is done once the stream has ended (ctx ends it).
func (c *client) openLive(ctx context.Context, src string, opened, done *sync.WaitGroup, answered func(status int), on func(event, data string)) error {
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+"/live?src="+url.QueryEscape(src), nil)
	if err != nil {
		return err
	}
	opened.Add(1)
	done.Add(1)
	go func() {
		defer done.Done()
		c.http.Timeout = 0
		res, err := c.http.Do(req)
		status := 0
		if err == nil {
			defer res.Body.Close()
			status = res.StatusCode
		}
		answered(status)
		opened.Done()
		if status == http.StatusOK {
			readEvents(res.Body, on)
		}
	}()
	return nil
}

// postJSON posts a JSON body the way the dwell tracker does, and expects want.
func (c *client) postJSON(ctx context.Context, path string, body []byte, want int) (latency, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", c.base+path, bytes.NewReader(body))
	if err != nil {
		return latency{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	_, d, err := c.do(req, want)
	return d, err
}

func (c *client) do(req *http.Request, want int) ([]byte, latency, error) {
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, latency{}, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := latency{client: time.Since(start), server: serverTiming(resp.Header.Get("Server-Timing"))}
	if err != nil {
		return nil, latency{}, err
	}
	if resp.StatusCode != want {
		msg := string(body)
		if len(msg) > 200 {
			msg = msg[:200] + "..."
		}
		return body, d, fmt.Errorf("%s %s: status %d: %s", req.Method, req.URL.Path, resp.StatusCode, strings.TrimSpace(msg))
	}
	return body, d, nil
}

// page is the part of a JSON page's envelope the bench checks: a timeline's
// (tributary.Timeline) or a list of posts' (tributary.PostList).
type page struct {
	Empty      bool   `json:"-"` // no items, or no posts
	NextCursor string `json:"next_cursor"`
	Path       string `json:"path"`
	Fencepost  string `json:"fencepost"`
	Refreshed  bool   `json:"refreshed"`
}

// timeline is a /api/timeline page's envelope.
type timeline = page

// decodeTimeline reads a /api/timeline answer's envelope and checks it came from the expected
// path.
func decodeTimeline(body []byte, wantPath string) (timeline, error) {
	t, err := decodePage(body, "items", `{"id":`)
	if err == nil && wantPath != "" && t.Path != wantPath {
		err = fmt.Errorf("timeline: served by the %q path, want %q", t.Path, wantPath)
	}
	return t, err
}

// decodePosts reads the envelope of a chronological feed's JSON page (a filter feed's, a
// search's).
func decodePosts(body []byte) (page, error) { return decodePage(body, "posts", `{"id":`) }

// decodePage reads the envelope of a JSON page whose list is under key, each of its elements
// an object starting with first. The list is not decoded: encoding/json took ~0.4 ms of the
// driver's CPU for a 70 KB page, on the cores the server under test runs on. The server
// writes the envelope's other fields after the list (tributary.Timeline.AppendJSON), and no
// string holds a bare quote, so the last `,"next_cursor":` ends the list; what follows is
// decoded (and so checked) as JSON.
func decodePage(body []byte, key, first string) (page, error) {
	var p page
	what := "timeline"
	if key != "items" {
		what = key
	}
	rest, ok := bytes.CutPrefix(body, []byte(`{"`+key+`":`))
	end := bytes.LastIndex(rest, []byte(`,"next_cursor":`))
	if !ok || end < 0 {
		return p, fmt.Errorf("%s: not a page of %s: %.120q", what, key, body)
	}
	switch list := rest[:end]; {
	case string(list) == "null" || string(list) == "[]":
		p.Empty = true
	case !bytes.HasPrefix(list, []byte("["+first)) || !bytes.HasSuffix(list, []byte("}]")):
		return p, fmt.Errorf("%s: not a list of %s: %.120q", what, key, list)
	}
	if err := json.Unmarshal(append([]byte{'{'}, rest[end+1:]...), &p); err != nil {
		return p, fmt.Errorf("%s: %w", what, err)
	}
	return p, nil
}

// mintSessions stores logged-in sessions for users straight into the session table, in the
// format the app's session manager reads (scs, gob codec, "user_id"). Ingestion spreads over
// many users because the server caps events per user per minute, and bcrypt makes logging in
// thousands of users through the form slow; the feed scenarios log in through the form.
func mintSessions(ctx context.Context, pool *pgxpool.Pool, users []int64) ([]string, error) {
	deadline := time.Now().Add(24 * time.Hour)
	tokens := make([]string, len(users))
	rows := make([][]any, len(users))
	for i, id := range users {
		b := make([]byte, 32)
		rand.Read(b)
		tokens[i] = base64.RawURLEncoding.EncodeToString(b)
		data, err := db.SessionData(id, deadline)
		if err != nil {
			return nil, fmt.Errorf("bench: encode session: %w", err)
		}
		rows[i] = []any{db.SessionTokenHash(tokens[i]), data, deadline, id}
	}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"sessions"}, []string{"token_hash", "data", "expiry", "user_id"}, pgx.CopyFromRows(rows)); err != nil {
		return nil, fmt.Errorf("bench: store sessions: %w", err)
	}
	return tokens, nil
}
