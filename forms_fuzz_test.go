package tributary

import (
	"testing"
	"time"
)

// The parsers of the sign-up and share forms answer any input with a plain invalid-input
// error or a value, never a panic or an internal error.
func FuzzForms(f *testing.F) {
	f.Add("https://arxiv.org/abs/2401.00001v2", "A title", "Some text #ml", "ml, nlp", "ada", "Ada L", "correct horse")
	f.Add("javascript:alert(1)", "", "", ",,,", "a", "", "")
	f.Add("http://[::1]:namedport", "\x00", "\xff\xfe", "#", "ada lovelace", "\u202e", "short")
	f.Fuzz(func(t *testing.T, url, title, body, tags, handle, name, password string) {
		check := func(what string, err error) {
			if err != nil && ErrorCode(err) != EInvalid {
				t.Fatalf("%s: %v, want an invalid-input error", what, err)
			}
		}
		_, err := Prepare(NewPost{AuthorID: 1, URL: url, Title: title, Body: body, Tags: ParseTags(tags),
			CreatedAt: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)})
		check("Prepare", err)
		check("ValidateHandle", ValidateHandle(handle))
		_, err = NormalizeDisplayName(name, handle)
		check("NormalizeDisplayName", err)
		check("ValidatePassword", ValidatePassword(password))
	})
}
