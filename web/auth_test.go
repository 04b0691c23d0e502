package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestSignupLoginLogout(t *testing.T) {
	a := newApp(t)
	c := a.client()
	c.signup("ada")
	if r := c.get("/"); !strings.Contains(r.body, `class="me-handle">@ada<`) {
		t.Fatalf("after signup the home page does not show @ada as logged in")
	}
	if r := c.post("/logout", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("logout: status %d, want 303", r.status)
	}
	if r := c.get("/"); strings.Contains(r.body, "@ada") || !strings.Contains(r.body, "nav-login") {
		t.Fatalf("after logout the page still shows a logged-in user")
	}
	r := c.post("/login", url.Values{"handle": {"ADA"}, "password": {"correct horse"}})
	if r.status != http.StatusSeeOther || r.location != "/" {
		t.Fatalf("login: status %d location %q, want 303 to /", r.status, r.location)
	}
	if r := c.get("/"); !strings.Contains(r.body, "@ada") {
		t.Fatalf("after login the home page does not show @ada")
	}
}

func TestLoginRejectsWrongPassword(t *testing.T) {
	a := newApp(t)
	a.client().signup("ada")
	for _, tc := range []struct{ name, handle, password string }{
		{"wrong password", "ada", "wrong horse!"},
		{"unknown handle", "nobody", "correct horse"},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := a.client().post("/login", url.Values{"handle": {tc.handle}, "password": {tc.password}})
			if r.status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", r.status)
			}
			if !strings.Contains(r.body, "Handle or password is incorrect.") {
				t.Fatalf("body does not explain the failure")
			}
		})
	}
}

func TestSessionTokenRenewedOnLogin(t *testing.T) {
	a := newApp(t)
	a.client().signup("ada")
	c := a.client()
	c.get("/login")
	c.post("/share", url.Values{}) // anonymous: creates no session, but try to plant one
	before := c.http.Jar.Cookies(mustURL(a.srv.URL))
	c.post("/login", url.Values{"handle": {"ada"}, "password": {"correct horse"}})
	after := c.http.Jar.Cookies(mustURL(a.srv.URL))
	if len(after) == 0 {
		t.Fatal("no session cookie after login")
	}
	for _, b := range before {
		if b.Name == after[0].Name && b.Value == after[0].Value {
			t.Fatal("session token was not renewed on login")
		}
	}
}

func TestSignupValidation(t *testing.T) {
	a := newApp(t)
	a.client().signup("taken")
	tests := []struct {
		name, handle, password, field, want string
	}{
		{"bad characters", "no spaces", "correct horse", "handle", "may use only letters"},
		{"too short", "a", "correct horse", "handle", "must be 2 to 30"},
		{"reserved", "admin", "correct horse", "handle", "reserved"},
		{"taken, other case", "TAKEN", "correct horse", "handle", "is taken"},
		{"short password", "grace", "short", "password", "at least 8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := a.client().post("/signup", url.Values{"handle": {tc.handle}, "password": {tc.password}})
			if r.status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", r.status)
			}
			if !strings.Contains(r.body, `data-testid="error-`+tc.field+`"`) || !strings.Contains(r.body, tc.want) {
				t.Fatalf("body lacks the %s error %q", tc.field, tc.want)
			}
			if tc.handle != "" && !strings.Contains(r.body, `value="`+tc.handle+`"`) {
				t.Fatalf("the form was not re-rendered with the submitted handle")
			}
		})
	}
}

func TestCSRFRejectsCrossOriginPosts(t *testing.T) {
	a := newApp(t)
	c := a.client()
	c.signup("ada")
	for _, tc := range []struct {
		name   string
		header http.Header
		want   int
	}{
		{"cross-site fetch metadata", http.Header{"Sec-Fetch-Site": {"cross-site"}}, http.StatusForbidden},
		{"foreign origin", http.Header{"Origin": {"https://evil.example"}}, http.StatusForbidden},
		{"same origin", http.Header{"Sec-Fetch-Site": {"same-origin"}}, http.StatusSeeOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.do("POST", "/share", url.Values{"url": {"https://example.com/" + strings.ReplaceAll(tc.name, " ", "-")}}, tc.header)
			if r.status != tc.want {
				t.Fatalf("status %d, want %d", r.status, tc.want)
			}
		})
	}
	r := c.get("/u/ada")
	if strings.Contains(r.body, "evil") || strings.Contains(r.body, "cross-site") {
		t.Fatal("a refused cross-origin share was stored")
	}
	if !strings.Contains(r.body, "same-origin") {
		t.Fatal("the same-origin share was not stored")
	}
}

func TestHealthz(t *testing.T) {
	a := newApp(t)
	if r := a.client().get("/healthz"); r.status != http.StatusOK {
		t.Fatalf("healthz: status %d, want 200", r.status)
	}
	a.store.Pool.Close()
	if r := a.client().get("/healthz"); r.status != http.StatusServiceUnavailable {
		t.Fatalf("healthz with the database gone: status %d, want 503", r.status)
	}
}

// Log-in and sign-up take people where they were going: the page that sent them, carried by
// the form's hidden next field, and only ever a path on this site.
func TestLoginAndSignupGoWhereYouWereGoing(t *testing.T) {
	a := newApp(t)
	a.client().signup("ada")
	anon := a.client()
	r := anon.get("/mentions")
	if r.status != http.StatusSeeOther || r.location != "/login?next=/mentions" {
		t.Fatalf("anonymous mentions: status %d location %q, want 303 to the log-in page with next", r.status, r.location)
	}
	if r := anon.get(r.location); !strings.Contains(r.body, `name="next" value="/mentions"`) {
		t.Fatalf("the log-in form does not carry next:\n%s", r.body)
	}
	if r := anon.get("/signup?next=%2Fshare"); !strings.Contains(r.body, `name="next" value="/share"`) {
		t.Fatalf("the sign-up form does not carry next")
	}
	for _, tc := range []struct{ name, next, want string }{
		{"a local page", "/mentions?include_seen=1", "/mentions?include_seen=1"},
		{"none", "", "/"},
		{"another site", "https://evil.example/", "/"},
		{"another host", "//evil.example/", "/"},
	} {
		t.Run("login "+tc.name, func(t *testing.T) {
			r := a.client().post("/login", url.Values{"handle": {"ada"}, "password": {"correct horse"}, "next": {tc.next}})
			if r.status != http.StatusSeeOther || r.location != tc.want {
				t.Fatalf("status %d location %q, want 303 to %q", r.status, r.location, tc.want)
			}
		})
		t.Run("signup "+tc.name, func(t *testing.T) {
			handle := "u" + strings.NewReplacer(" ", "", "/", "").Replace(tc.name)
			r := a.client().post("/signup", url.Values{"handle": {handle}, "password": {"correct horse"}, "next": {tc.next}})
			want := tc.want
			if want == "/" {
				want = "/welcome" // without a page to go to, sign-up goes to the first run
			}
			if r.status != http.StatusSeeOther || r.location != want {
				t.Fatalf("status %d location %q, want 303 to %q", r.status, r.location, want)
			}
		})
	}
	// An anonymous reader's Like leads to the log-in page, and back to the page it was on.
	bob := a.client()
	bob.signup("bob")
	bob.shareAs("https://blog.example.com/bob/one")
	if r := a.client().get("/u/bob"); !strings.Contains(r.body, `href="/login?next=%2Fu%2Fbob"`) {
		t.Fatalf("an anonymous Like does not say where to come back to")
	}
}
