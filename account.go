package tributary

import (
	"strings"
	"unicode/utf8"
)

// Limits of account fields; kept here so forms, the importer and the seeder agree.
const (
	HandleMinLen      = 2
	HandleMaxLen      = 30
	PasswordMinLen    = 8
	PasswordMaxLen    = 72 // bcrypt reads at most 72 bytes
	DisplayNameMaxLen = 60
)

// ValidateHandle reports why a handle is unacceptable, or nil. Handles are ASCII letters,
// digits, '_' and '-', start with a letter or digit, and are case-insensitive.
func ValidateHandle(h string) error {
	switch {
	case h == "":
		return Errorf(EInvalid, "Handle is required.")
	case len(h) < HandleMinLen || len(h) > HandleMaxLen:
		return Errorf(EInvalid, "Handle must be %d to %d characters long.", HandleMinLen, HandleMaxLen)
	}
	for i, r := range h {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || (i > 0 && (r == '_' || r == '-'))
		if !ok {
			return Errorf(EInvalid, "Handle may use only letters, digits, '_' and '-', and must start with a letter or digit.")
		}
	}
	if reservedHandles[strings.ToLower(h)] {
		return Errorf(EInvalid, "Handle %q is reserved.", h)
	}
	return nil
}

// reservedHandles would collide with routes or confuse readers.
var reservedHandles = map[string]bool{
	"admin": true, "api": true, "login": true, "logout": true, "signup": true, "static": true,
	"settings": true, "share": true, "u": true, "healthz": true, "events": true, "directs": true,
	"groups": true, "anonymous": true, "root": true, "tributary": true,
}

// ValidatePassword reports why a password is unacceptable, or nil.
func ValidatePassword(p string) error {
	switch {
	case len(p) < PasswordMinLen:
		return Errorf(EInvalid, "Password must be at least %d characters long.", PasswordMinLen)
	case len(p) > PasswordMaxLen:
		return Errorf(EInvalid, "Password must be at most %d bytes long.", PasswordMaxLen)
	case strings.TrimSpace(p) == "":
		return Errorf(EInvalid, "Password must not be only spaces.")
	}
	return nil
}

// NormalizeDisplayName trims a display name, falling back to the handle.
func NormalizeDisplayName(name, handle string) (string, error) {
	name = strings.Join(strings.Fields(name), " ")
	if name == "" {
		return handle, nil
	}
	if utf8.RuneCountInString(name) > DisplayNameMaxLen {
		return "", Errorf(EInvalid, "Display name must be at most %d characters long.", DisplayNameMaxLen)
	}
	return name, nil
}

// BioMaxLen bounds a bio, in characters.
const BioMaxLen = 500

// NormalizeBio trims a bio's surrounding space (its lines are kept, with \n line ends).
func NormalizeBio(bio string) (string, error) {
	bio = strings.TrimSpace(strings.ReplaceAll(bio, "\r\n", "\n"))
	if utf8.RuneCountInString(bio) > BioMaxLen {
		return "", Errorf(EInvalid, "Bio must be at most %d characters long.", BioMaxLen)
	}
	return bio, nil
}
