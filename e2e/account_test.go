package e2e

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// A new display name and avatar set on the profile page show on the card a follower's home
// feed shows; a new password logs out the owner's other browser, and the sessions page then
// lists this one alone. The account pages pass the accessibility audit (newPage's).
func TestProfileAvatarAndPassword(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "--poll-seconds", "-1")
	f := newFixture(t, srv)
	f.user("ada", "Ada", false)
	f.user("bob", "Bob", false)
	f.follow("bob", "ada")
	f.share("ada", "https://arxiv.org/abs/2401.11111", "A paper of Ada's", time.Hour)
	f.refresh()

	ada := newPage(t)
	login(t, ada, srv.URL, "ada")
	other := newPage(t) // ada's other browser
	login(t, other, srv.URL, "ada")

	_, err := ada.Goto(srv.URL + "/settings/profile")
	must(t, err)
	must(t, ada.GetByLabel("Display name").Fill("Ada Lovelace"))
	must(t, ada.GetByLabel("Bio").Fill("Reading about #graphs with @bob."))
	must(t, ada.GetByTestId("save-profile").Click())
	must(t, expect.Locator(ada.GetByTestId("flash")).ToHaveText("Your profile is saved."))
	must(t, ada.GetByTestId("avatar-file").SetInputFiles([]playwright.InputFile{{Name: "me.png", MimeType: "image/png", Buffer: squarePNG(t)}}))
	must(t, ada.GetByTestId("save-avatar").Click())
	must(t, expect.Locator(ada.GetByTestId("flash")).ToHaveText("Your picture is saved."))
	must(t, expect.Locator(ada.GetByTestId("avatar-preview").Locator("img")).ToBeVisible())

	bob := newPage(t)
	login(t, bob, srv.URL, "bob")
	card := bob.GetByTestId("card").Filter(playwright.LocatorFilterOptions{HasText: "A paper of Ada's"})
	must(t, expect.Locator(card.GetByTestId("sharers-text")).ToContainText("Ada Lovelace"))
	face := card.Locator("img.avatar-img").First()
	must(t, expect.Locator(face).ToBeVisible())
	loaded, err := face.Evaluate("img => img.complete && img.naturalWidth > 0", nil)
	must(t, err)
	if loaded != true {
		t.Error("the card's avatar did not load")
	}
	_, err = bob.Goto(srv.URL + "/u/ada")
	must(t, err)
	must(t, expect.Locator(bob.GetByTestId("bio").GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "#graphs"})).ToBeVisible())
	must(t, expect.Locator(bob.GetByTestId("profile-avatar").Locator("img")).ToBeVisible())

	_, err = ada.Goto(srv.URL + "/settings/sessions")
	must(t, err)
	must(t, expect.Locator(ada.GetByTestId("session")).ToHaveCount(2))
	_, err = ada.Goto(srv.URL + "/settings/password")
	must(t, err)
	must(t, ada.GetByLabel("Current password").Fill("correct horse battery"))
	must(t, ada.GetByLabel("New password").Fill("a brand new secret"))
	must(t, ada.GetByTestId("save-password").Click())
	must(t, expect.Locator(ada.GetByTestId("flash")).ToHaveText("Your password is changed; you are logged out everywhere else."))

	_, err = other.Reload()
	must(t, err)
	must(t, expect.Locator(other.GetByTestId("nav-me")).ToHaveCount(0))
	_, err = ada.Goto(srv.URL + "/settings/sessions")
	must(t, err)
	must(t, expect.Locator(ada.GetByTestId("session")).ToHaveCount(1))
	must(t, expect.Locator(ada.GetByTestId("this-session")).ToBeVisible())
	loginWith(t, other, srv.URL, "ada", "a brand new secret")
}

// squarePNG is a small picture to upload.
func squarePNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 120, 90))
	for y := range 90 {
		for x := range 120 {
			img.Set(x, y, color.RGBA{uint8(x * 2), 90, uint8(y * 2), 255})
		}
	}
	var b bytes.Buffer
	must(t, png.Encode(&b, img))
	return b.Bytes()
}
