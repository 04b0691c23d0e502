package tributary

import (
	"encoding/hex"
	"strings"
)

// Image is an image Tributary serves from its own origin (a link card's thumbnail, an
// avatar): re-encoded by Tributary, so bounded and free of metadata, and named by the
// SHA-256 of its bytes, so one image is stored once and never changes.
type Image struct {
	Hash        string // lowercase hex SHA-256 of Bytes
	ContentType string // image/jpeg or image/png
	Width       int
	Height      int
	Bytes       []byte
}

// Image content types Tributary serves, and the file extensions of their URLs.
const (
	ImageJPEG = "image/jpeg"
	ImagePNG  = "image/png"
)

var imageExts = map[string]string{ImageJPEG: "jpg", ImagePNG: "png"}

// Ext is the file extension of the image's URL ("jpg", "png").
func (i Image) Ext() string { return imageExts[i.ContentType] }

// Path is where the site serves the image.
func (i Image) Path() string { return "/img/" + i.Hash + "." + i.Ext() }

// ParseImageName splits the last segment of an image's path, "{hash}.{ext}" or "{hash}",
// into its hash and extension (""); anything else is EInvalid.
func ParseImageName(name string) (hash, ext string, err error) {
	hash, ext, dot := strings.Cut(name, ".")
	if !ValidImageHash(hash) {
		return "", "", Errorf(EInvalid, "Not an image name: the hash must be 64 lowercase hexadecimal digits.")
	}
	if dot && ext != "jpg" && ext != "png" {
		return "", "", Errorf(EInvalid, "Not an image name: the extension must be jpg or png.")
	}
	return hash, ext, nil
}

// ValidImageHash reports whether h is a SHA-256 in lowercase hex, as Image.Hash is.
func ValidImageHash(h string) bool {
	if len(h) != 64 || strings.ToLower(h) != h {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}
