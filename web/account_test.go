package web_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"image"
	"image/color"
	"image/png"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"tributary/images"
)

// loginAs logs a new client in as handle (password "correct horse"), with a User-Agent.
func (a *app) loginAs(handle, userAgent string) *client {
	a.t.Helper()
	c := a.client()
	r := c.do("POST", "/login", url.Values{"handle": {handle}, "password": {"correct horse"}}, http.Header{"User-Agent": {userAgent}})
	if r.status != http.StatusSeeOther {
		a.t.Fatalf("login %s: status %d", handle, r.status)
	}
	return c
}

// signedIn says whether the client's session signs in a user.
func (c *client) signedIn() bool { return strings.Contains(c.get("/").body, `data-testid="nav-me"`) }

// The password changes only with the current one and a valid new one (400 with a plain
// message otherwise); a change ends every other session of the user and keeps this one.
func TestChangePassword(t *testing.T) {
	a := newApp(t)
	ada := a.client()
	ada.signup("ada")
	other := a.loginAs("ada", "Firefox/128.0 (X11; Linux x86_64)")
	a.client().signup("bob")
	bob := a.loginAs("bob", "")

	for _, c := range []struct{ name, current, password, want string }{
		{"wrong current password", "not my password", "a new password", "Your current password is incorrect."},
		{"no current password", "", "a new password", "Your current password is incorrect."},
		{"too short", "correct horse", "short", "Password must be at least 8 characters long."},
		{"only spaces", "correct horse", "          ", "Password must not be only spaces."},
	} {
		r := ada.post("/settings/password", url.Values{"current": {c.current}, "password": {c.password}})
		if r.status != http.StatusBadRequest || !strings.Contains(r.body, c.want) {
			t.Errorf("%s: status %d, want 400 with %q", c.name, r.status, c.want)
		}
	}
	if !other.signedIn() {
		t.Fatal("a refused change ended another session")
	}

	r := ada.post("/settings/password", url.Values{"current": {"correct horse"}, "password": {"battery staple"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("change: status %d: %s", r.status, r.body)
	}
	if !ada.signedIn() {
		t.Error("the session that changed the password was logged out")
	}
	if other.signedIn() {
		t.Error("another session of ada's is still signed in after the password changed")
	}
	if !bob.signedIn() {
		t.Error("bob's session ended with ada's password change")
	}
	if r := a.client().post("/login", url.Values{"handle": {"ada"}, "password": {"correct horse"}}); r.status != http.StatusBadRequest {
		t.Errorf("the old password still logs in: %d", r.status)
	}
	if r := a.client().post("/login", url.Values{"handle": {"ada"}, "password": {"battery staple"}}); r.status != http.StatusSeeOther {
		t.Errorf("the new password does not log in: %d", r.status)
	}
}

// Guessing the current password is limited as logging in is.
func TestChangePasswordLimited(t *testing.T) {
	a := newApp(t)
	ada := a.client()
	ada.signup("ada")
	var last int
	for range 12 {
		last = ada.post("/settings/password", url.Values{"current": {"guess"}, "password": {"a new password"}}).status
	}
	if last != http.StatusTooManyRequests {
		t.Fatalf("the 12th wrong current password: status %d, want 429", last)
	}
}

var sessionRow = regexp.MustCompile(`(?s)<tr data-testid="session">.*?</tr>`)
var endAction = regexp.MustCompile(`/settings/sessions/(\d+)/end`)

// The sessions page lists one's sessions with their device and which is this one; each can
// be logged out, and "log out everywhere" ends them all. Someone else's session is not one's
// to end.
func TestSessionsPage(t *testing.T) {
	a := newApp(t)
	a.client().signup("ada")
	a.client().signup("bob")
	phone := a.loginAs("ada", "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36")
	laptop := a.loginAs("ada", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")
	bob := a.loginAs("bob", "curl/8.0")

	page := laptop.get("/settings/sessions").body
	rows := sessionRow.FindAllString(page, -1)
	if len(rows) != 3 { // the sign-up's session too
		t.Fatalf("ada's sessions page lists %d sessions, want 3:\n%s", len(rows), page)
	}
	var phoneID, laptopID string
	for _, row := range rows {
		id := endAction.FindStringSubmatch(row)[1]
		switch {
		case strings.Contains(row, "Chrome on Android"):
			phoneID = id
		case strings.Contains(row, "Firefox on Linux"):
			laptopID = id
			if !strings.Contains(row, `data-testid="this-session"`) {
				t.Error("the laptop's own session is not marked as this one")
			}
		}
	}
	if phoneID == "" || laptopID == "" {
		t.Fatalf("devices not named on the sessions page:\n%s", strings.Join(rows, "\n"))
	}
	if strings.Contains(page, "curl") {
		t.Error("bob's session is on ada's sessions page")
	}

	if r := bob.post("/settings/sessions/"+phoneID+"/end", nil); r.status != http.StatusNotFound {
		t.Errorf("bob ending ada's session: %d, want 404", r.status)
	}
	if r := laptop.post("/settings/sessions/x/end", nil); r.status != http.StatusBadRequest || !strings.Contains(r.body, "Not a session id.") {
		t.Errorf("a malformed id: %d, want 400", r.status)
	}
	if !phone.signedIn() {
		t.Fatal("the phone was logged out by a refused request")
	}
	if r := laptop.post("/settings/sessions/"+phoneID+"/end", nil); r.status != http.StatusSeeOther {
		t.Fatalf("ending the phone's session: %d", r.status)
	}
	if phone.signedIn() || !laptop.signedIn() {
		t.Errorf("after ending the phone's session: phone signed in %v, laptop %v; want false, true", phone.signedIn(), laptop.signedIn())
	}
	// Ending one's own session logs out, and it stays ended.
	if r := laptop.post("/settings/sessions/"+laptopID+"/end", nil); r.status != http.StatusSeeOther {
		t.Fatalf("ending this session: %d", r.status)
	}
	if laptop.signedIn() {
		t.Error("still signed in after ending this session")
	}

	tablet := a.loginAs("ada", "iPad")
	desk := a.loginAs("ada", "desk")
	if r := tablet.post("/settings/sessions/end-all", nil); r.status != http.StatusSeeOther {
		t.Fatalf("log out everywhere: %d", r.status)
	}
	if tablet.signedIn() || desk.signedIn() {
		t.Error("a session of ada's outlived 'log out everywhere'")
	}
	if !bob.signedIn() {
		t.Error("bob was logged out by ada's 'log out everywhere'")
	}
}

// The table holds a token's SHA-256, never the token: the cookie's value is nowhere in it.
func TestSessionTokensStoredHashed(t *testing.T) {
	a := newApp(t)
	c := a.client()
	c.signup("ada")
	var token string
	for _, k := range c.http.Jar.Cookies(mustURL(a.srv.URL)) {
		if k.Name == "tributary_session" {
			token = k.Value
		}
	}
	if token == "" {
		t.Fatal("no session cookie")
	}
	sum := sha256.Sum256([]byte(token))
	var hashed, raw int
	if err := a.store.Pool.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE token_hash = $1),
		count(*) FILTER (WHERE position($2::bytea IN token_hash) > 0 OR position($2::bytea IN data) > 0) FROM sessions`,
		sum[:], []byte(token)).Scan(&hashed, &raw); err != nil {
		t.Fatal(err)
	}
	if hashed != 1 || raw != 0 {
		t.Errorf("sessions keyed by the token's hash: %d (want 1); holding the token itself: %d (want 0)", hashed, raw)
	}
}

// A session unused for 30 days is over, whatever its expiry; a session in use records its
// use (at most hourly), which starts its idle time again.
func TestSessionIdleTimeout(t *testing.T) {
	a := newApp(t)
	c := a.client()
	c.signup("ada")
	ctx := context.Background()
	set := func(ago string) {
		if _, err := a.store.Pool.Exec(ctx, "UPDATE sessions SET seen_at = now() - $1::interval", ago); err != nil {
			t.Fatal(err)
		}
	}
	set("29 days")
	if !c.signedIn() {
		t.Fatal("a session used 29 days ago is over")
	}
	var idle bool
	if err := a.store.Pool.QueryRow(ctx, "SELECT bool_and(seen_at > now() - interval '1 minute') FROM sessions").Scan(&idle); err != nil || !idle {
		t.Errorf("the session's use was not recorded (err %v)", err)
	}
	set("31 days")
	if c.signedIn() {
		t.Error("a session unused for 31 days still signs in")
	}
	if n, err := a.store.DeleteExpiredSessions(ctx); err != nil || n != 1 {
		t.Errorf("the cleanup removed %d idle sessions (err %v), want 1", n, err)
	}
}

// pngOf is a w×h PNG of one colour.
func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{200, 40, 90, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// upload posts a file as the form field "avatar".
func (c *client) upload(path string, file []byte) response {
	c.a.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("avatar", "me.png")
	if err != nil {
		c.a.t.Fatal(err)
	}
	fw.Write(file)
	mw.Close()
	return c.do("POST", path, nil, http.Header{"Content-Type": {mw.FormDataContentType()}}, body.String())
}

var avatarImg = regexp.MustCompile(`<img class="avatar-img" src="/img/([0-9a-f]{64})"`)

// A profile's display name and bio are saved (the bio's @mentions and #tags linked) and
// shown on the user page; bad input answers 400 with a plain message.
func TestProfileSettings(t *testing.T) {
	a := newApp(t)
	ada := a.client()
	ada.signup("ada")
	for _, c := range []struct {
		name string
		form url.Values
		want string
	}{
		{"long name", url.Values{"display_name": {strings.Repeat("n", 61)}}, "Display name must be at most 60 characters long."},
		{"long bio", url.Values{"display_name": {"Ada"}, "bio": {strings.Repeat("b", 501)}}, "Bio must be at most 500 characters long."},
	} {
		if r := ada.post("/settings/profile", c.form); r.status != http.StatusBadRequest || !strings.Contains(r.body, c.want) {
			t.Errorf("%s: status %d, want 400 with %q", c.name, r.status, c.want)
		}
	}
	r := ada.post("/settings/profile", url.Values{"display_name": {"  Ada   Lovelace "}, "bio": {"Notes with @bob on #graphs at https://ada.example.org/notes."}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("save profile: %d: %s", r.status, r.body)
	}
	page := a.client().get("/u/ada").body
	for _, want := range []string{"<h1>Ada Lovelace</h1>", `<a href="/u/bob">@bob</a>`, `<a href="/t/graphs">#graphs</a>`,
		`<a href="https://ada.example.org/notes" rel="nofollow ugc noopener">https://ada.example.org/notes</a>.`} {
		if !strings.Contains(page, want) {
			t.Errorf("the user page lacks %s", want)
		}
	}
	if f := ada.get("/settings/profile").body; !strings.Contains(f, `value="Ada Lovelace"`) || !strings.Contains(f, "Notes with @bob on #graphs at https://ada.example.org/notes.</textarea>") {
		t.Error("the profile form does not show the saved profile")
	}
}

// An uploaded avatar goes through the image pipeline and is shown on the user page, on the
// user's cards and in sharer stacks, served from /img/ for good; a file that is not an image,
// or too large, answers 400 with a plain message and changes nothing.
func TestAvatarUpload(t *testing.T) {
	a := newApp(t)
	ada := a.client()
	ada.signup("ada")
	ada.shareAs("https://arxiv.org/abs/2401.00001")
	if home := ada.get("/").body; avatarImg.MatchString(home) {
		t.Fatal("an avatar before any was uploaded")
	}

	for _, c := range []struct {
		name string
		file []byte
		want string
	}{
		{"not an image", []byte("<svg xmlns='http://www.w3.org/2000/svg'></svg>"), "The image must be a PNG, JPEG, GIF or WebP file."},
		{"empty", nil, "Choose a picture to upload."},
		{"too large", append(pngOf(t, 8, 8), make([]byte, images.MaxBytes)...), "The image is too large (at most 5 MiB)."},
	} {
		r := ada.upload("/settings/avatar", c.file)
		if r.status != http.StatusBadRequest || !strings.Contains(r.body, c.want) {
			t.Errorf("%s: status %d, want 400 with %q", c.name, r.status, c.want)
		}
	}

	if r := ada.upload("/settings/avatar", pngOf(t, 300, 200)); r.status != http.StatusSeeOther {
		t.Fatalf("upload: %d: %s", r.status, r.body)
	}
	var small, large string
	if err := a.store.Pool.QueryRow(context.Background(), "SELECT avatar, avatar_large FROM users WHERE handle = 'ada'").Scan(&small, &large); err != nil {
		t.Fatal(err)
	}
	user := a.client().get("/u/ada").body
	if m := avatarImg.FindStringSubmatch(user); m == nil || m[1] != large {
		t.Errorf("the user page does not show the large avatar %s", large)
	}
	if home := ada.get("/").body; !strings.Contains(home, `src="/img/`+small+`"`) {
		t.Error("the home feed's card does not show the sharer's avatar")
	}
	img := a.client().get("/img/" + small)
	if img.status != http.StatusOK || !strings.Contains(img.header.Get("Cache-Control"), "immutable") {
		t.Errorf("GET /img/%s: %d, Cache-Control %q", small, img.status, img.header.Get("Cache-Control"))
	}
	if cfg, _, err := image.DecodeConfig(strings.NewReader(img.body)); err != nil || cfg.Width != images.AvatarSmall || cfg.Height != images.AvatarSmall {
		t.Errorf("the small avatar is %dx%d (err %v), want %d square", cfg.Width, cfg.Height, err, images.AvatarSmall)
	}

	if r := ada.post("/settings/avatar/remove", nil); r.status != http.StatusSeeOther {
		t.Fatalf("remove: %d", r.status)
	}
	if home := ada.get("/").body; avatarImg.MatchString(home) {
		t.Error("the avatar is still shown after it was removed")
	}
}

// A profile change through one instance shows on the next request to another: the pages it
// keeps a user's name for and the cards of its feeds.
func TestProfileChangeReachesEveryInstance(t *testing.T) {
	ts := newTestSite(t)
	a, _ := ts.instance()
	b, _ := ts.instance()
	ada := a.client()
	ada.signup("ada")
	ada.shareAs("https://arxiv.org/abs/2401.00002")
	bob := b.client()
	bob.signup("bob")
	if r := bob.post("/u/ada/follow", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("follow: %d", r.status)
	}
	ada.post("/settings/profile", url.Values{"display_name": {"Ada One"}})
	if p := b.client().get("/u/ada/likes").body; !strings.Contains(p, "Ada One") {
		t.Fatal("B's likes page of ada lacks her name")
	}
	if home := bob.get("/").body; !strings.Contains(home, "Ada One") || avatarImg.MatchString(home) {
		t.Fatal("bob's home on B: no card of ada's, or an avatar already")
	}

	ada.post("/settings/profile", url.Values{"display_name": {"Ada Two"}})
	if r := ada.upload("/settings/avatar", pngOf(t, 40, 40)); r.status != http.StatusSeeOther {
		t.Fatalf("upload: %d", r.status)
	}
	if p := b.client().get("/u/ada/likes").body; !strings.Contains(p, "Ada Two") {
		t.Error("B's likes page still names ada as before")
	}
	home := bob.get("/").body
	if !strings.Contains(home, "Ada Two") || !avatarImg.MatchString(home) {
		t.Error("bob's home on B does not show ada's new name and avatar")
	}
}

// The account pages and actions are their signed-in user's alone: anonymous visitors are sent
// to log in (401 for a form sent), and nothing of one user's shows on another's pages.
func TestAccountPagesNeedTheirUser(t *testing.T) {
	a := newApp(t)
	ada := a.client()
	ada.signup("ada")
	ada.post("/settings/profile", url.Values{"display_name": {"Ada Secretsession"}, "bio": {"hello"}})
	anon := a.client()
	for _, p := range []string{"/settings/profile", "/settings/password", "/settings/sessions"} {
		if r := anon.get(p); r.status != http.StatusSeeOther || !strings.HasPrefix(r.location, "/login?next=") {
			t.Errorf("anonymous GET %s: %d to %q, want 303 to the log-in page", p, r.status, r.location)
		}
	}
	for _, p := range []string{"/settings/profile", "/settings/avatar", "/settings/avatar/remove", "/settings/password",
		"/settings/sessions/1/end", "/settings/sessions/end-all"} {
		if r := anon.post(p, url.Values{"display_name": {"Mallory"}}); r.status != http.StatusUnauthorized {
			t.Errorf("anonymous POST %s: %d, want 401", p, r.status)
		}
	}
	bob := a.client()
	bob.signup("bob")
	for _, p := range []string{"/settings/profile", "/settings/sessions"} {
		if r := bob.get(p); r.status != http.StatusOK || strings.Contains(r.body, "Secretsession") || strings.Contains(r.body, ">hello<") {
			t.Errorf("bob's %s: %d, or it shows ada's", p, r.status)
		}
	}
	if n := len(sessionRow.FindAllString(bob.get("/settings/sessions").body, -1)); n != 1 {
		t.Errorf("bob's sessions page lists %d sessions, want his one", n)
	}
}
